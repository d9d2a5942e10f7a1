import assert from "node:assert/strict";
import { join } from "node:path";
import {
  compareResults,
  type FigureChange,
  renderComparison,
  ResultsFileError,
  validateResultsDocument,
} from "./compare.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
  Spread,
  Status,
} from "./results.ts";

const PARAMS = {
  total: 100,
  recipients: 10,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 600,
  stallTimeoutSeconds: 120,
} as const;

function config(
  id: string,
  receive: number,
  rate: number,
  p99: number | null,
  spread: Record<string, Spread> = {},
  status: Status = "ok",
): ConfigurationResult {
  return {
    id,
    driver: id.replace(/-x\d+$/, ""),
    parallelism: 1,
    status,
    reason: status === "ok" ? null : "something",
    expected: 1000,
    delivered: status === "ok" ? 1000 : 500,
    duplicates: 0,
    missing: status === "ok" ? 0 : 500,
    unexpected: 0,
    sendSeconds: 1,
    receiveSeconds: status === "ok" ? receive : null,
    totalSeconds: status === "ok" ? receive + 1 : null,
    deliveriesPerSecond: rate,
    elapsedSeconds: receive + 1,
    sendErrors: 0,
    workers: 1,
    stallTimeoutSeconds: 120,
    timeoutSeconds: 600,
    server: null,
    processes: [],
    latencyMs: p99 == null
      ? null
      : { p50: p99 / 2, p90: p99 / 2, p99, p999: p99, max: p99 },
    spread,
  };
}

function doc(
  results: ConfigurationResult[],
  params: Partial<ResultsDocument["params"]> = {},
): ResultsDocument {
  return {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T01:00:00.000Z",
    params: { ...PARAMS, ...params },
    results,
  };
}

function change(
  c: ReturnType<typeof compareResults>,
  id: string,
  figure: FigureChange["figure"],
): FigureChange | undefined {
  return c.rows.find((r) => r.id === id)?.changes.find((x) =>
    x.figure === figure
  );
}

Deno.test("compareResults: single runs are better or worse unless equal", () => {
  const c = compareResults(
    doc([config("redis", 10, 100, 50)]),
    doc([config("redis", 8, 80, 50)]),
  );
  assert.deepEqual(c.paramDifferences, []);
  assert.equal(c.rows.length, 1);
  assert.equal(c.rows[0].presence, "both");
  assert.deepEqual(change(c, "redis", "receiveSeconds"), {
    figure: "receiveSeconds",
    old: 10,
    new: 8,
    delta: -2,
    percent: -20,
    verdict: "better",
  });
  assert.equal(change(c, "redis", "deliveriesPerSecond")?.verdict, "worse");
  assert.equal(change(c, "redis", "deliveriesPerSecond")?.percent, -20);
  const p99 = change(c, "redis", "latencyP99Ms");
  assert.equal(p99?.verdict, "noise", "equal values");
  assert.equal(p99?.delta, 0);
});

Deno.test("compareResults: overlapping spreads are noise", () => {
  const c = compareResults(
    doc([
      config("pg", 10, 100, 50, {
        receiveSeconds: { min: 9, max: 11 },
        deliveriesPerSecond: { min: 90, max: 110 },
        latencyP99Ms: { min: 40, max: 60 },
      }),
    ]),
    doc([
      config("pg", 12, 130, 70, {
        receiveSeconds: { min: 10.5, max: 13 },
        deliveriesPerSecond: { min: 111, max: 140 },
        latencyP99Ms: { min: 60, max: 80 },
      }),
    ]),
  );
  assert.equal(change(c, "pg", "receiveSeconds")?.verdict, "noise");
  assert.equal(
    change(c, "pg", "deliveriesPerSecond")?.verdict,
    "better",
    "disjoint ranges, higher throughput",
  );
  assert.equal(
    change(c, "pg", "latencyP99Ms")?.verdict,
    "noise",
    "touching ranges overlap",
  );
});

Deno.test("compareResults: a spread on one side only", () => {
  const c = compareResults(
    doc([config("x", 10, 100, 50, { receiveSeconds: { min: 8, max: 12 } })]),
    doc([config("x", 11.5, 100, 50), config("y", 1, 1, 1)]),
  );
  assert.equal(change(c, "x", "receiveSeconds")?.verdict, "noise");
  const d = compareResults(
    doc([config("x", 10, 100, 50, { receiveSeconds: { min: 8, max: 12 } })]),
    doc([config("x", 12.5, 100, 50)]),
  );
  assert.equal(change(d, "x", "receiveSeconds")?.verdict, "worse");
});

Deno.test("compareResults: rows only on one side, in order", () => {
  const c = compareResults(
    doc([config("a", 1, 1, 1), config("b", 1, 1, 1)]),
    doc([config("c", 1, 1, 1), config("b", 1, 1, 1)]),
  );
  assert.deepEqual(
    c.rows.map((r) => [r.id, r.presence, r.oldStatus, r.newStatus]),
    [
      ["a", "only in old", "ok", null],
      ["b", "both", "ok", "ok"],
      ["c", "only in new", null, "ok"],
    ],
  );
  assert.deepEqual(c.rows[0].changes, []);
});

Deno.test("compareResults: non-ok configurations compare statuses", () => {
  const c = compareResults(
    doc([
      config("a", 1, 1, 1),
      config("b", 1, 1, 1, {}, "failed"),
      config("c", 1, 1, 1, {}, "incomplete"),
    ]),
    doc([
      config("a", 1, 1, 1, {}, "incomplete"),
      config("b", 1, 1, 1),
      config("c", 1, 1, 1, {}, "incomplete"),
    ]),
  );
  assert.deepEqual(
    c.rows.map((r) => [r.id, r.statusVerdict, r.changes.length]),
    [["a", "worse", 0], ["b", "better", 0], ["c", null, 0]],
  );
  const text = renderComparison(c);
  assert.match(text, /\| a +\| status +\| +ok \| +incomplete \|.*\| worse/);
  assert.match(text, /\| c +\| status .*\| still incomplete/);
});

Deno.test("compareResults: a missing figure has no verdict", () => {
  const c = compareResults(
    doc([config("x", 10, 100, null)]),
    doc([config("x", 10, 100, 5)]),
  );
  assert.deepEqual(change(c, "x", "latencyP99Ms"), {
    figure: "latencyP99Ms",
    old: null,
    new: 5,
    delta: null,
    percent: null,
    verdict: null,
  });
});

Deno.test("compareResults: parameter differences", () => {
  const c = compareResults(
    doc([], {}),
    doc([], { total: 500, rsaBits: 4096, timeoutSeconds: 10 }),
  );
  assert.deepEqual(c.paramDifferences, [
    { name: "total", old: 100, new: 500 },
    { name: "rsaBits", old: 2048, new: 4096 },
  ]);
  const text = renderComparison(c);
  assert.match(text, /^Warning: .*total 100 → 500, rsaBits 2048 → 4096/);
  assert.match(text, /No configurations/);
});

Deno.test("renderComparison: a table with signed changes", () => {
  const text = renderComparison(compareResults(
    doc([config("redis", 10, 100, 50), config("gone", 1, 1, 1)]),
    doc([config("redis", 8, 150, 50), config("new", 1, 1, 1, {}, "failed")]),
  ));
  assert.doesNotMatch(text, /Warning/);
  const lines = text.split("\n");
  assert.match(lines[0], /^\| Configuration \| Figure +\| +Old \| +New \|/);
  assert.match(lines[1], /^\| -+ \| -+ \| -+: \|/);
  assert.match(
    text,
    /\| redis +\| receive \(s\) +\| +10\.00 \| +8\.000 \| +-2\.000 \| +-20\.0% \| better/,
  );
  assert.match(
    text,
    /deliveries\/s +\| +100\.0 \| +150\.0 \| +\+50\.00 \| +\+50\.0% \| better/,
  );
  assert.match(text, /p99 latency \(ms\) .*\| +0\.000 \| +0\.0% \| noise/);
  assert.match(text, /\| gone .*\| +ok \| +— \|.*\| only in old/);
  assert.match(text, /\| new .*\| +— \| +failed \|.*\| only in new/);
  const widths = lines.filter((l) => l.startsWith("|")).map((l) => l.length);
  assert.ok(widths.every((w) => w === widths[0]), "aligned columns");
});

Deno.test("validateResultsDocument: rejects wrong shapes", () => {
  assert.throws(
    () => validateResultsDocument([], "a.json"),
    (e) =>
      e instanceof ResultsFileError && /a\.json: not a results/.test(e.message),
  );
  assert.throws(
    () => validateResultsDocument({ ...doc([]), schemaVersion: 2 }, "b.json"),
    /b\.json: unsupported schemaVersion 2 \(expected 1\)/,
  );
  assert.throws(
    () => validateResultsDocument({ schemaVersion: 1, results: [] }, "c"),
    /c: missing "params"/,
  );
  assert.throws(
    () => validateResultsDocument({ ...doc([]), results: [{ id: "x" }] }, "d"),
    /d: results\[0\]/,
  );
  const good = doc([config("x", 1, 1, 1)]);
  assert.equal(validateResultsDocument(good, "e"), good);
});

async function cli(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      new URL("./compare.ts", import.meta.url).pathname,
      ...args,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("compare CLI: prints the table; bad usage exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "compare-test-" });
  try {
    const oldPath = join(dir, "old.json");
    const newPath = join(dir, "new.json");
    const badJson = join(dir, "bad.json");
    const badVersion = join(dir, "v2.json");
    await Deno.writeTextFile(
      oldPath,
      JSON.stringify(doc([config("redis", 10, 100, 50)])),
    );
    await Deno.writeTextFile(
      newPath,
      JSON.stringify(doc([config("redis", 5, 200, 20)], { recipients: 20 })),
    );
    await Deno.writeTextFile(badJson, "{ not json");
    await Deno.writeTextFile(
      badVersion,
      JSON.stringify({ ...doc([]), schemaVersion: 2 }),
    );

    const ok = await cli(oldPath, newPath);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^Warning: .*recipients 10 → 20/);
    assert.match(ok.stdout, /\| redis +\| receive \(s\) .*\| better/);

    const missing = await cli(oldPath, join(dir, "nope.json"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.json: cannot read \(no such file\)/);

    const invalid = await cli(badJson, newPath);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /bad\.json: invalid JSON/);

    const version = await cli(oldPath, badVersion);
    assert.equal(version.code, 2);
    assert.match(version.stderr, /v2\.json: unsupported schemaVersion 2/);

    const usage = await cli(oldPath);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Usage: deno task compare OLD\.json NEW\.json/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
