import assert from "node:assert/strict";
import { featureDocument, PARAMS, result } from "../testing/chart_fixtures.ts";
import type { ResultsDocument } from "../results/mod.ts";
import { renderMarkdown } from "./markdown.ts";
import { orderingSections, orderingSummary } from "./ordering_section.ts";

const REDIS_NOTE = "not supported by the installed version: @fedify/redis " +
  "1.8.7 predates orderingKey (Fedify 2.0) and ignores it";

function document(): ResultsDocument {
  const row = (
    driver: string,
    key: "none" | "object",
    supported: boolean,
    violations: number,
    rate: number,
  ) =>
    result(driver, 1, "ok", {
      id: `${driver}-key-${key}`,
      orderingKey: key,
      fanout: "auto",
      rsaBits: 2048,
      deliveriesPerSecond: rate,
      latencyMs: { p50: 100, p90: 150, p99: 200, p999: 250, max: 300 },
      ordering: {
        key,
        supported,
        note: supported ? "keeps it" : REDIS_NOTE,
        violations,
      },
    });
  return {
    schemaVersion: 1,
    startedAt: "2026-11-26T00:00:00Z",
    finishedAt: "2026-11-26T00:10:00Z",
    params: { ...PARAMS, workload: "cud", orderingKey: "none" },
    results: [
      // No queue (implementation null): its broken order is not a queue's.
      { ...row("none", "object", true, 3, 120), implementation: null },
      row("in-process", "none", true, 0, 100),
      row("in-process", "object", true, 0, 62),
      row("sqlite", "object", true, 4, 20),
      row("redis", "none", false, 7, 50),
      row("redis", "object", false, 5, 50),
    ],
  };
}

Deno.test("the ordering table: violations, the key's cost, and unsupported rows never shown as keeping order", () => {
  const [section] = orderingSections(document());
  assert.equal(section.title, "Ordering");
  const lines = section.table.split("\n").filter((l) =>
    !l.startsWith("| none ")
  );
  assert.match(
    lines[2],
    /^\| in-process +\| none +\| yes +\| +0 \| +100\.0\/s \| +— \|/,
  );
  assert.match(lines[3], /\| object +\| yes +\| +0 \| +62\.0\/s \| +0\.62× \|/);
  assert.match(
    lines[4],
    /^\| sqlite +\| object +\| yes +\| +4 \| +20\.0\/s \| +— \|/,
  );
  assert.match(lines[5], /^\| redis +\| none +\| no \(1\) +\| +7 \|/);
  assert.match(
    lines[6],
    /\| object +\| no \(1\) +\| +5 \| +50\.0\/s \| +1\.00× \|/,
  );
  assert.deepEqual(section.notes, [
    "With `orderingKey`, order held in in-process; it broke in sqlite (4) " +
    "although the queue implements keys; without a queue, it broke in " +
    "none (3); in redis (5) the installed queue " +
    "does not honour keys (see the numbered notes): those keyed rows " +
    "measure it without ordering. Without a key, order broke in 1 of 2 " +
    "configurations: redis (7).",
    `(1) ${REDIS_NOTE}.`,
    "Order broke with keys although the queue implements them: sqlite " +
    "(4): a failure of that queue to keep a key's order, not a missing " +
    "feature.",
  ]);
});

Deno.test("the report has an Ordering section only when the ordered workload ran", () => {
  const doc = document();
  const markdown = renderMarkdown(doc);
  assert.match(markdown, /## Ordering/);
  assert.match(markdown, /workload `cud`/);
  assert.match(markdown, /not supported by the installed version/);
  const plain = {
    ...doc,
    params: PARAMS,
    results: doc.results.map(({ ordering: _, orderingKey: __, ...r }) => r),
  };
  assert.deepEqual(orderingSections(plain), []);
  assert.doesNotMatch(renderMarkdown(plain), /## Ordering/);
});

Deno.test("the ordering summary names the key's largest and smallest cost", () => {
  const rows = featureDocument().results.map((r) =>
    r.driver === "redis"
      ? {
        ...r,
        driver: "mysql",
        ordering: { ...r.ordering!, supported: true },
        deliveriesPerSecond: r.ordering!.key === "none" ? 50 : 25,
      }
      : r
  );
  const [summary] = orderingSummary(rows, (r) => r.driver);
  assert.match(
    summary,
    /the key cost most in mysql \(0\.50× the deliveries\/s without one\) and least in in-process \(1\.00×\)\./,
  );
  assert.match(summary, /order held in in-process; it broke in mysql \(5\)/);
});
