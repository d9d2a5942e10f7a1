/**
 * `deno task fresh-check`'s parts that need no Docker: the README's
 * commands, apt's mirror, the `docker run` arguments, what `deno task
 * test` printed, the ignored tests' conditions, a results file's rows and
 * the Markdown report.
 */
import assert from "node:assert/strict";
import {
  CA_BUNDLE,
  CONTAINER_HOME,
  CONTAINER_PROJECT,
  debianMirror,
  dockerRunArgs,
  ERROR_LINES,
  errorExcerpt,
  FIRST_SCREEN_LINES,
  FreshCheckError,
  type FreshCheckReport,
  ignoreCondition,
  imageName,
  isStaleContainer,
  LABEL,
  LABEL_VALUE,
  parseTestOutput,
  readmeCommands,
  renderMarkdown,
  resultsPathFromOutput,
  summariseResults,
  withEnv,
} from "./fresh_check.ts";
import type { ResultsDocument } from "../results/types.ts";

const README = `# fedify-queue-bench

Benchmarks …

\`\`\`sh
npx --yes deno@2.9.6 task bench   # the nine configurations: about 60 minutes
npx --yes deno@2.9.6 task test    # the tests, against real servers
\`\`\`

More text.
`;

Deno.test("the README's first sh block gives the two commands, comments dropped", () => {
  assert.deepEqual(readmeCommands(README), {
    bench: "npx --yes deno@2.9.6 task bench",
    test: "npx --yes deno@2.9.6 task test",
  });
  // This project's own README keeps them on its first screen.
  const own = Deno.readTextFileSync(
    new URL("../../README.md", import.meta.url),
  );
  const commands = readmeCommands(own);
  assert.match(commands.bench, /task bench$/);
  assert.match(commands.test, /task test$/);
});

Deno.test("a README without the block or a command names the fix", () => {
  assert.throws(
    () => readmeCommands("# x\n\nno commands\n"),
    (e: unknown) =>
      e instanceof FreshCheckError && /put the two commands/.test(e.message),
  );
  assert.throws(
    () => readmeCommands("```sh\nnpx deno task bench\n```\n"),
    (e: unknown) =>
      e instanceof FreshCheckError &&
      /"task test".*put it back/.test(e.message),
  );
  const late = "\n".repeat(FIRST_SCREEN_LINES) + README;
  assert.throws(() => readmeCommands(late), FreshCheckError);
});

Deno.test("environment variables go before the command as a user types them", () => {
  assert.equal(
    withEnv("npx deno task bench", { TOTAL: "20", RECIPIENTS: "10" }),
    "TOTAL=20 RECIPIENTS=10 npx deno task bench",
  );
  assert.equal(withEnv("npx deno task test", {}), "npx deno task test");
});

Deno.test("the mirror is apt's: deb822 stanza of the suite, else sources.list", () => {
  const deb822 = `Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main

Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
`;
  assert.equal(
    debianMirror({ deb822, list: null }),
    "http://mirror.example/debian",
  );
  assert.equal(
    debianMirror({
      deb822: null,
      list: "# old\ndeb [arch=amd64] http://old.example/debian bookworm main\n",
    }),
    "http://old.example/debian",
  );
  assert.equal(debianMirror({ deb822: null, list: null }), null);
  assert.equal(debianMirror({ deb822, list: null }, "trixie"), null);
});

Deno.test("the image's name holds the Node.js version", () => {
  assert.equal(
    imageName("v20.20.2"),
    "fedify-queue-bench-fresh:bookworm-node20.20.2",
  );
});

Deno.test("docker run: labelled, host network, CA bundle read-only, mounts, sh -c", () => {
  const args = dockerRunArgs({
    name: "fqb-fresh-1-1",
    image: "img:1",
    projectDir: "/tmp/clone",
    homeDir: "/cache/home",
    user: { uid: 1000, gid: 1000 },
    env: { TOTAL: "20" },
    command: "npx --yes deno@2.9.6 task bench",
  });
  const pairs = (flag: string) =>
    args.flatMap((a, i) => a === flag ? [args[i + 1]] : []);
  assert.equal(args[0], "run");
  assert.ok(!args.includes("--rm"), "removed by the runner, after its logs");
  assert.deepEqual(pairs("--name"), ["fqb-fresh-1-1"]);
  assert.deepEqual(pairs("--label"), [`${LABEL}=${LABEL_VALUE}`]);
  assert.deepEqual(pairs("--network"), ["host"]);
  assert.ok(args.includes("--init"));
  assert.deepEqual(pairs("--user"), ["1000:1000"]);
  assert.deepEqual(pairs("--volume"), [
    `${CA_BUNDLE}:${CA_BUNDLE}:ro`,
    `/cache/home:${CONTAINER_HOME}`,
    `/tmp/clone:${CONTAINER_PROJECT}`,
  ]);
  assert.deepEqual(pairs("--workdir"), [CONTAINER_PROJECT]);
  const env = pairs("--env");
  for (const name of ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "DENO_CERT"]) {
    assert.ok(env.includes(`${name}=${CA_BUNDLE}`), name);
  }
  assert.ok(env.includes(`HOME=${CONTAINER_HOME}`));
  assert.ok(env.includes("TOTAL=20"));
  assert.deepEqual(args.slice(-4), [
    "img:1",
    "sh",
    "-c",
    "npx --yes deno@2.9.6 task bench",
  ]);
});

Deno.test("a container is stale when the check that named it runs no more", () => {
  const running = (pid: number) => pid === 42;
  assert.equal(isStaleContainer("fqb-fresh-42-1", running), false);
  assert.equal(isStaleContainer("fqb-fresh-43-2", running), true);
  assert.equal(isStaleContainer("renamed", running), true);
  assert.equal(isStaleContainer(`fqb-fresh-${Deno.pid}-1`), false);
});

const TEST_OUTPUT = `Check lib/a.test.ts
servers:
fetching Redis …
  postgres: starts a throwaway postgres fetched into /cache/servers/pg
  redis: the tests that need it are skipped: redis-server not found
running 3 test files, 2 at a time
------- pre-test output -------
tests on node are skipped: npm install in /cache/node-1713.tmp failed (exit 127)
npm error node: error while loading shared libraries: libatomic.so.1
skipping the tests that need mariadb: not found
----- pre-test output end -----
running 4 tests from ./lib/a.test.ts
passes ... ok (1ms)
fails here ... FAILED (1ms)
redis only ... ignored (0ms)
with steps ...
  inner ok ... ok (0ms)
  inner skipped ... ignored (0ms)
  inner bad ... FAILED (1ms)
with steps ... FAILED (due to 1 failed step) (1ms)

 ERRORS 

fails here => ./lib/a.test.ts:2:6
error: Error: boom
second line
Deno.test("fails here", () => { throw new Error("boom"); });
                                      ^
    at file:///src/lib/a.test.ts:2:39

with steps ... inner bad => ./lib/a.test.ts:6:11
error: AssertionError: step boom
    at file:///src/lib/a.test.ts:6:43

 FAILURES 

fails here => ./lib/a.test.ts:2:6
with steps ... inner bad => ./lib/a.test.ts:6:11

FAILED | 1 passed (1 step) | 2 failed (1 step) | 1 ignored (11ms)

error: Test failed
------- pre-test output -------
tests on node are skipped: npm install in /cache/node-5597.tmp failed (exit 127)
npm error node: error while loading shared libraries: libatomic.so.1
----- pre-test output end -----
running 1 test from ./b.test.ts
\x1b[0mb on runtime node: skipped, with its reason ... \x1b[33mignored\x1b[0m (0ms)
ok | 0 passed | 0 failed | 1 ignored (5ms)

 ERRORS 

./c.test.ts (uncaught error)
error: (in promise) Error: gone
    at file:///src/c.test.ts:1:1

FAILED | 0 passed | 1 failed (3ms)

failed:
  lib/a.test.ts: 2 failed
  c.test.ts: ended with exit code 1 and no summary

FAILED | 1 passed (1 step) | 4 failed (1 step) | 2 ignored (1m2s)
`;

Deno.test("the test output gives the summary, failures with errors, ignored tests", () => {
  const report = parseTestOutput(TEST_OUTPUT);
  assert.equal(
    report.summary,
    "FAILED | 1 passed (1 step) | 4 failed (1 step) | 2 ignored (1m2s)",
  );
  assert.equal(report.files, 2);
  assert.deepEqual(report.failed, [
    {
      name: "fails here",
      file: "./lib/a.test.ts",
      location: "./lib/a.test.ts:2:6",
      error: [
        "error: Error: boom",
        "second line",
        'Deno.test("fails here", () => { throw new Error("boom"); });',
        "                                      ^",
      ],
    },
    {
      name: "with steps ... inner bad",
      file: "./lib/a.test.ts",
      location: "./lib/a.test.ts:6:11",
      error: ["error: AssertionError: step boom"],
    },
    {
      name: "(uncaught error)",
      file: "./c.test.ts",
      location: "uncaught error",
      error: ["error: (in promise) Error: gone"],
    },
  ]);
  assert.deepEqual(report.ignored, [
    { name: "redis only", file: "./lib/a.test.ts", condition: null },
    {
      name: "b on runtime node: skipped, with its reason",
      file: "./b.test.ts",
      condition: null,
    },
  ]);
  assert.deepEqual(report.servers, [
    "postgres: starts a throwaway postgres fetched into /cache/servers/pg",
    "redis: the tests that need it are skipped: redis-server not found",
  ]);
  assert.deepEqual(report.notes, [
    "tests on node are skipped: npm install in /cache/node-1713.tmp failed " +
    "(exit 127)\nnpm error node: error while loading shared libraries: " +
    "libatomic.so.1",
    "skipping the tests that need mariadb: not found",
  ]);
  assert.deepEqual(report.brokenFiles, [
    "lib/a.test.ts: 2 failed",
    "c.test.ts: ended with exit code 1 and no summary",
  ]);
});

Deno.test("a long error keeps its first and last lines, blank runs collapsed", () => {
  const lines = [
    "error: AssertionError: a long message",
    ...Array.from({ length: 20 }, (_, i) => `stderr line ${i}`),
    "",
    "",
    "0 !== 130",
    "",
    "      assert.equal(status.code, 130, stderr);",
    "             ^",
    "    at fn (file:///src/bench.test.ts:376:14)",
  ];
  assert.deepEqual(errorExcerpt(lines), [
    "error: AssertionError: a long message",
    "stderr line 0",
    "stderr line 1",
    "stderr line 2",
    "stderr line 3",
    "…",
    "0 !== 130",
    "",
    "      assert.equal(status.code, 130, stderr);",
    "             ^",
  ]);
  assert.equal(errorExcerpt(lines.slice(0, 3)).length, 3);
  assert.ok(ERROR_LINES >= 8, "room for a message and an assertion");
});

Deno.test("output that ends before any summary has none", () => {
  const report = parseTestOutput("Check a.test.ts\nerror: TS2304 …\n");
  assert.equal(report.summary, null);
  assert.deepEqual(report.failed, []);
});

const SOURCE = `import { x } from "./x.ts";
const noRedis = !new ServiceManager()
  .availability(redisService).available;

Deno.test("plain", () => {});

Deno.test({
  name:
    "redis only",
  ignore: noRedis,
  fn() {},
});

for (const rtt of [undefined, 2]) {
  Deno.test({
    ...options,
    name: "--worker-hosts 2" +
      (rtt == null ? "" : \` --queue-rtt \${rtt}\`) +
      ": two workers, " +
      "nothing left",
    ignore: servers.some((s) => !s.available),
    fn() {},
  });
}

for (const driver of drivers) {
  Deno.test({
    name: \`\${driver.name} on \${runtime}: skipped, with its reason\`,
    ignore: !unavailable.available ||
      findBinary("script") == null,
    async fn() {},
  });
}
`;

Deno.test("an ignored test's condition comes from its declaration, names defined", () => {
  assert.equal(
    ignoreCondition(SOURCE, "redis only"),
    "noRedis (noRedis = !new ServiceManager() .availability(redisService).available)",
  );
  assert.equal(
    ignoreCondition(SOURCE, "b on node: skipped, with its reason"),
    '!unavailable.available || findBinary("script") == null',
  );
  for (
    const name of [
      "--worker-hosts 2: two workers, nothing left",
      "--worker-hosts 2 --queue-rtt 2: two workers, nothing left",
    ]
  ) {
    assert.equal(
      ignoreCondition(SOURCE, name),
      "servers.some((s) => !s.available)",
      name,
    );
  }
  assert.equal(ignoreCondition(SOURCE, "plain"), null);
  assert.equal(ignoreCondition(SOURCE, "not declared here"), null);
});

Deno.test("the bench's output names its results file", () => {
  assert.equal(
    resultsPathFromOutput(
      "| table |\nResults: runs/2026-12-01T00-00-00Z/latest.json, runs/2026-12-01T00-00-00Z/latest.md\n",
    ),
    "runs/2026-12-01T00-00-00Z/latest.json",
  );
  assert.equal(resultsPathFromOutput("error: boom\n"), null);
});

function document(): ResultsDocument {
  const row = (
    id: string,
    status: "ok" | "skipped",
    server: { name: string; version: string; startedByBench: boolean } | null,
  ) => ({
    id,
    driver: id,
    parallelism: 1,
    status,
    reason: status === "skipped" ? "redis-server not found" : null,
    expected: 200,
    delivered: status === "ok" ? 200 : 0,
    duplicates: 0,
    missing: 0,
    unexpected: 0,
    sendSeconds: 1,
    receiveSeconds: 1,
    totalSeconds: status === "ok" ? 2.25 : null,
    deliveriesPerSecond: null,
    elapsedSeconds: null,
    sendErrors: 0,
    workers: 0,
    stallTimeoutSeconds: 10,
    timeoutSeconds: 1200,
    server,
    processes: [],
  });
  return {
    schemaVersion: 2,
    startedAt: "2026-12-01T00:00:00Z",
    finishedAt: "2026-12-01T00:01:00Z",
    suiteSeconds: 60,
    params: {
      total: 20,
      recipients: 10,
      fanout: "auto",
      rsaBits: 2048,
      timeoutSeconds: 1200,
      stallTimeoutSeconds: 10,
    },
    results: [
      row("none", "ok", null),
      row("redis", "skipped", null),
      row("postgres", "ok", {
        name: "postgres",
        version: "17.10",
        startedByBench: true,
      }),
    ],
  } as unknown as ResultsDocument;
}

Deno.test("a results file's rows keep status, reason and server record", () => {
  const summary = summariseResults(document(), "runs/x/latest.json");
  assert.equal(summary.size, "20 × 10");
  assert.equal(summary.suiteSeconds, 60);
  assert.deepEqual(
    summary.rows.map((r) => [r.id, r.status, r.reason, r.server?.version]),
    [
      ["none", "ok", null, undefined],
      ["redis", "skipped", "redis-server not found", undefined],
      ["postgres", "ok", null, "17.10"],
    ],
  );
});

Deno.test("the Markdown report shows rows, failures and ignored tests", () => {
  const sizes = {
    ".npm": 1e6,
    ".cache/deno": 0,
    ".cache/fedify-queue-bench": 0,
  };
  const command = {
    code: 0,
    timedOut: false,
    interrupted: false,
    seconds: 61,
    cacheBefore: sizes,
    cacheAfter: sizes,
  };
  const report: FreshCheckReport = {
    startedAt: "2026-12-01T00:00:00Z",
    finishedAt: "2026-12-01T00:20:00Z",
    ok: false,
    clone: {
      commit: "0123456789abcdef",
      subject: "a commit",
      uncommitted: ["lib/x.ts"],
      gitDir: true,
    },
    image: {
      name: "img:1",
      id: "sha256:1",
      how: "reused",
      rootfs: "/cache/rootfs-bookworm",
      nodeVersion: "v20.20.2",
      npmVersion: "9.2.0",
      seconds: 0.1,
    },
    dockerVersion: "20.10.24",
    cache: { dir: "/cache", cleaned: false },
    user: { uid: 1000, gid: 1000 },
    bench: {
      ...command,
      command: "TOTAL=20 RECIPIENTS=10 npx --yes deno@2.9.6 task bench",
      log: "bench.log",
      results: summariseResults(document(), "runs/x/latest.json"),
    },
    test: {
      ...command,
      code: 1,
      command: "npx --yes deno@2.9.6 task test",
      log: "test.log",
      report: {
        ...parseTestOutput(TEST_OUTPUT),
        ignored: [{
          name: "redis only",
          file: "./a.test.ts",
          condition: "noRedis",
        }],
      },
    },
  };
  const md = renderMarkdown(report);
  assert.match(md, /^# Fresh check\n\nFAILED: the README's two commands/);
  assert.match(
    md,
    /\| redis \| skipped \| 0 of 200 \| — \| null \| redis-server not found \|/,
  );
  assert.match(md, /"startedByBench":true/);
  assert.match(
    md,
    /npx --yes deno@2.9.6 task test`: \*\*FAILED\*\* \(exit code 1/,
  );
  assert.match(
    md,
    /- \*\*fails here\*\* \(\.\/lib\/a\.test\.ts:2:6\)\n\n {2}```\n {2}error: Error: boom/,
  );
  assert.match(md, /\| redis only \| \.\/a\.test\.ts \| `noRedis` \|/);
  assert.match(md, /- redis: the tests that need it are skipped/);
  assert.match(
    md,
    /- tests on node are skipped: .*\n\n {2}```\n {2}npm error node: error while loading shared libraries: libatomic\.so\.1\n {2}```/,
  );
  assert.match(
    md,
    /Not checked: 1 uncommitted change of the working tree \(lib\/x\.ts\)/,
  );
});
