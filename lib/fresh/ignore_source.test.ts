/**
 * An ignored test's condition, from its declaration in the source, and a
 * test report's ignored tests given theirs from their files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ignoreCondition, withIgnoreConditions } from "./ignore_source.ts";
import type { TestReport } from "./test_output.ts";

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

Deno.test("each ignored test of a report takes its condition from its file in the clone", async () => {
  const clone = await Deno.makeTempDir({ prefix: "fresh-ignore-test-" });
  try {
    await Deno.mkdir(join(clone, "lib"));
    await Deno.writeTextFile(join(clone, "lib/a.test.ts"), SOURCE);
    const report: TestReport = {
      summary: null,
      files: 2,
      failed: [],
      ignored: [
        { name: "redis only", file: "./lib/a.test.ts", condition: null },
        { name: "plain", file: "./lib/a.test.ts", condition: null },
        { name: "gone", file: "./lib/missing.test.ts", condition: null },
      ],
      brokenFiles: [],
      servers: [],
      notes: [],
    };
    const filled = await withIgnoreConditions(clone, report);
    assert.deepEqual(filled.ignored.map((i) => i.condition), [
      ignoreCondition(SOURCE, "redis only"),
      null,
      null,
    ]);
    assert.match(filled.ignored[0].condition!, /^noRedis \(noRedis = /);
    assert.deepEqual({ ...filled, ignored: [] }, { ...report, ignored: [] });
  } finally {
    await Deno.remove(clone, { recursive: true });
  }
});
