import assert from "node:assert/strict";
import { renderMarkdown, renderTable } from "./markdown.ts";
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";
import { renderCharts } from "./charts/mod.ts";
import {
  PARAMS,
  result,
  syntheticDocument,
} from "../testing/chart_fixtures.ts";

/** A document of these configurations, with the charts' fixtures' params. */
function document(results: ConfigurationResult[]): ResultsDocument {
  return {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:05:00.000Z",
    params: PARAMS,
    results,
  };
}

const finished = result("postgres", 1, "ok", {
  delivered: 200,
  missing: 0,
  sendSeconds: 0.5,
  receiveSeconds: 3,
  totalSeconds: 3.25,
  deliveriesPerSecond: 61.5,
});

/** The cells of the table row whose label is `name`. */
function row(table: string, name: string): string[] {
  const line = table.split("\n").find((l) => l.startsWith(`| ${name} `));
  assert.ok(line != null, `no row for ${name} in:\n${table}`);
  return line.split("|").slice(1, -1).map((c) => c.trim());
}

Deno.test("a finished run shows its times; one that did not, only how far it got", () => {
  const table = renderTable(document([
    finished,
    result("redis", 1, "incomplete", {
      delivered: 50,
      missing: 150,
      elapsedSeconds: 60,
      deliveriesPerSecond: 50 / 60,
      reason: "timed out after 60 s",
    }),
  ]));
  assert.deepEqual(row(table, "postgres").slice(0, 6), [
    "postgres",
    "ok",
    "0.50 s",
    "3.00 s",
    "3.25 s",
    "200 / 200",
  ]);
  const redis = row(table, "redis");
  assert.deepEqual(redis.slice(2, 6), ["—", "—", "—", "50 / 200 (25.0%)"]);
  assert.equal(redis[7], "0.8/s so far");
  assert.match(table, /- \*\*redis\*\* incomplete: timed out after 60 s/);
  assert.doesNotMatch(table, /Lost/, "no crash, no Lost column");
});

Deno.test("an estimate stands in its own labelled column and note, never under Total", () => {
  const plain = renderTable(document([finished]));
  assert.doesNotMatch(plain, /Estimated total/, "no estimate, no column");
  const table = renderTable(document([
    finished,
    result("redis", 1, "incomplete", {
      delivered: 50,
      missing: 150,
      elapsedSeconds: 30,
      deliveriesPerSecond: 50 / 30,
      reason: "stopped at 30 s: cannot finish within the budget of 120 s",
      estimate: {
        totalSeconds: 120.4,
        lowSeconds: 52.6,
        highSeconds: 210.8,
        deliveriesPerSecond: 1.67,
        stoppedBy: "budget",
        basis: "50 of 200 delivered in 30 s; the basis",
      },
    }),
  ]));
  const header = row(table, "Configuration");
  const column = header.indexOf("Estimated total (bounds)");
  assert.ok(column > header.indexOf("Total"));
  const redis = row(table, "redis");
  assert.equal(redis[header.indexOf("Total")], "—");
  assert.equal(redis[column], "~120 s (53–211)");
  assert.equal(row(table, "postgres")[column], "—");
  assert.match(
    table,
    /- \*\*redis\*\* estimated total \(an estimate, not a measurement\): 120 s, between 53 s and 211 s; 50 of 200 delivered in 30 s; the basis/,
  );
});

Deno.test("crash runs get a Lost column and say what was killed when", () => {
  const crashed = result("in-process", 1, "incomplete", {
    delivered: 120,
    missing: 80,
    lost: 80,
    crashes: [{ target: "worker", atSeconds: 1.5, deliveredBefore: 100 }],
    reason: "stalled after the worker crash: 80 deliveries lost; " +
      "in-process keeps its messages in the memory of the process that " +
      "was killed, so it loses them by design",
  });
  const survived = result("redis-aof", 1, "ok", {
    delivered: 200,
    missing: 0,
    lost: 0,
    duplicates: 3,
    totalSeconds: 4,
    crashes: [{ target: "server", atSeconds: 2, deliveredBefore: 101 }],
    restarts: [{
      atSeconds: 2.5,
      deliveredBefore: 101,
      exit: "worker process exited with code 1: Error: connection refused",
    }],
  });
  const doc = document([crashed, survived]);
  const table = renderTable(doc);
  const header = row(table, "Configuration");
  const lost = header.indexOf("Lost");
  assert.ok(lost > 0, table);
  assert.equal(row(table, "in-process")[lost], "80");
  assert.equal(row(table, "redis-aof")[lost], "0");
  assert.equal(row(table, "redis-aof")[header.indexOf("Dup.")], "3");
  assert.match(
    table,
    /- \*\*in-process\*\*: consuming process killed with SIGKILL and a fresh one started at 1\.50 s, after 100 deliveries/,
  );
  assert.match(
    table,
    /- \*\*redis-aof\*\*: queue server killed with SIGKILL and restarted on the same data at 2\.00 s, after 101 deliveries/,
  );
  assert.match(
    table,
    /- \*\*redis-aof\*\*: at 2\.50 s, after 101 deliveries, the worker process exited with code 1: Error: connection refused; a fresh worker was started/,
  );
  assert.match(table, /loses them by design/);
  assert.match(renderMarkdown(doc), /\*\*Lost\*\*: deliveries that never/);
  assert.doesNotMatch(
    renderMarkdown(document([finished])),
    /\*\*Lost\*\*/,
  );
});

Deno.test("the table adds the server's CPU to the app's and marks stand-ins", () => {
  const official = {
    specifier: "@fedify/postgres",
    resolved: "npm:@fedify/postgres@1.8.7",
    official: true,
    version: "1.8.7",
  };
  const table = renderTable(document([
    result("in-process", 1, "ok", {
      ...finished,
      driver: "in-process",
      id: "in-process",
      cpuMsPerDelivery: 2,
    }),
    {
      ...finished,
      cpuMsPerDelivery: 3.3,
      serverCpuMsPerDelivery: 3.8,
      server: { name: "postgres", version: "15", startedByBench: true },
      implementation: official,
    },
    result("deno-kv", 1, "ok", {
      ...finished,
      driver: "deno-kv",
      id: "deno-kv",
      cpuMsPerDelivery: 4,
      implementation: {
        specifier: "@fedify/denokv",
        resolved: "file:///x/drivers/standins/denokv.ts",
        official: false,
        version: null,
      },
    }),
    result("redis", 1, "ok", {
      ...finished,
      driver: "redis",
      id: "redis",
      cpuMsPerDelivery: 5,
      server: { name: "redis", version: "7", startedByBench: false },
    }),
    // The package's own code from a Fedify tree between releases: not
    // official, and no stand-in either.
    result("sqlite", 1, "ok", {
      ...finished,
      driver: "sqlite",
      id: "sqlite",
      cpuMsPerDelivery: 5,
      implementation: {
        specifier: "@fedify/sqlite",
        resolved: "packages/sqlite/src/mod.ts",
        official: false,
        version: "2.4.0",
        origin: "fedify-source",
        ref: { commit: "0".repeat(40), tag: null, dirty: false },
      },
    }),
  ]));
  assert.deepEqual(row(table, "in-process").slice(-3), [
    "2.00 ms",
    "—",
    "2.00 ms",
  ]);
  assert.deepEqual(row(table, "postgres").slice(-3), [
    "3.30 ms",
    "3.80 ms",
    "7.10 ms",
  ]);
  // A server the user gave was not measured: the total is unknown.
  assert.deepEqual(row(table, "redis").slice(-3), ["5.00 ms", "—", "—"]);
  assert.equal(row(table, "deno-kv †")[0], "deno-kv †");
  assert.match(table, /\*\*†\*\* stand-in: .*`@fedify\/denokv`/);
  assert.doesNotMatch(table, /postgres †/);
  assert.doesNotMatch(table, /sqlite †/);
});

/** A calibration taken before a row, at these RSA rates. */
function speed(one: number, all: number, at: string) {
  return {
    measuredAt: at,
    slices: 3,
    sliceSeconds: 0.25,
    rsaSignsPerSecond: one,
    rsaSignsPerSecondAllCores: all,
    threads: 2,
    loopbackRequestsPerSecond: 8000,
    spread: {
      rsaSignsPerSecond: { min: one * 0.99, max: one * 1.01 },
      rsaSignsPerSecondAllCores: { min: all * 0.99, max: all * 1.01 },
      loopbackRequestsPerSecond: { min: 7900, max: 8100 },
    },
  };
}

Deno.test("a host that drifted by more than 10% is named above the table, with its rows", () => {
  const rows = [
    { ...finished, id: "none", calibration: speed(600, 1150, "t1") },
    { ...finished, id: "in-process", calibration: speed(590, 1140, "t2") },
    // Another program took a core: one thread barely moves, all cores do.
    { ...finished, id: "postgres", calibration: speed(570, 700, "t3") },
    { ...finished, id: "sqlite", calibration: speed(605, 1160, "t4") },
  ];
  const drifted = document(rows);
  const markdown = renderMarkdown(drifted);
  const notice = markdown.indexOf("The host's speed drifted by more than 10%");
  assert.ok(notice >= 0, markdown);
  assert.ok(notice < markdown.indexOf("| Configuration"), "above the table");
  assert.match(
    markdown,
    /more than 10% from the median: `postgres` \(-38\.9% on 2 threads\)\./,
  );
  assert.doesNotMatch(markdown.slice(notice).split("\n")[0], /`sqlite`/);
  assert.match(markdown, /No figure corrected by the calibration is given/);
  // The printed table says it too; the Machine section lists every row.
  assert.match(renderTable(drifted), /^> \*\*The host's speed drifted/);
  assert.match(markdown, /\*\*Calibration before each row\*\*/);
  assert.match(
    markdown,
    /\| postgres \| t3 \| 570\/s \(-4\.2%\) \| 700\/s \(-38\.9%\) \|/,
  );
  // Within 10%: the spread is shown, no notice.
  const steady = document(
    rows.map((r) =>
      r.id === "postgres" ? { ...r, calibration: speed(570, 1100, "t3") } : r
    ),
  );
  const quiet = renderMarkdown(steady);
  assert.doesNotMatch(quiet, /drifted by more than/);
  assert.match(quiet, /on 2 threads \(every core\) 1,100–1,160\/s/);
  assert.doesNotMatch(renderTable(steady), /drifted/);
});

Deno.test("the report names the commit, the command and the suite's wall time", () => {
  const markdown = renderMarkdown({
    ...document([finished]),
    suiteSeconds: 1234.4,
    rounds: [["postgres"]],
    params: { ...PARAMS, orderSeed: 42 },
    environment: {
      cpu: { model: "test", cores: 2, mhz: null },
      memoryBytes: 0,
      os: { name: "test", kernel: "test", arch: "x86_64" },
      runtime: { deno: "2", v8: "1", typescript: "5" },
      packages: {},
      servers: {},
      senderKeys: "RSA-2048",
      fanout: "auto",
      commit: { sha: "a".repeat(40), dirty: true },
      command: ["TOTAL=20", "bench.ts", "--runs", "3"],
    },
  });
  assert.match(
    markdown,
    /the suite took 1,234 s, configurations in a shuffled order \(seed 42/,
  );
  // No budget: each row to its end or its time limit.
  assert.match(
    markdown,
    /each row to its end or its time limit of 60 s \(`--timeout`\)/,
  );
  // The per-row budget of older files, and what set it.
  const relative = renderMarkdown({
    ...document([finished]),
    params: { ...PARAMS, budgetSeconds: 46.4, budgetOfNone: 0.8 },
  });
  assert.match(
    relative,
    /each row's budget 46\.4 s \(0\.8 × the none row's total, `--budget-none`;/,
  );
  const fallback = renderMarkdown({
    ...document([finished]),
    params: { ...PARAMS, budgetSeconds: 80, budgetFallback: "no none row" },
  });
  assert.match(
    fallback,
    /each row's budget 80 s \(the fixed default: no none row;/,
  );
  assert.doesNotMatch(fallback, /`--budget`/);
  assert.match(markdown, /commit\*\*: `a{40}` with uncommitted changes/);
  assert.match(markdown, /\*\*Command\*\*: `TOTAL=20 bench\.ts --runs 3`/);
});

Deno.test("latest.md names, under a chart, the configurations it leaves out", async () => {
  const document = syntheticDocument();
  const charts = await renderCharts(document);
  const markdown = renderMarkdown(document, charts);
  const section = (title: string) => {
    const rest = markdown.slice(markdown.indexOf(`### ${title}`));
    return rest.slice(0, rest.indexOf("###", 4));
  };
  assert.match(
    section("Delivery latency percentiles"),
    /Not drawn: amqp \(failed: failed on purpose\)\./,
  );
  // The headline chart draws every configuration, stopped or failed.
  assert.doesNotMatch(section("Send and receive"), /Not drawn/);
});
