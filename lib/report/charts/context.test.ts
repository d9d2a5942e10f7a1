import assert from "node:assert/strict";
import { chartContext } from "./context.ts";
import { PALETTE } from "./theme.ts";
import {
  result,
  syntheticDocument,
  timeline,
} from "../../testing/chart_fixtures.ts";

Deno.test("chartContext: labels, colours for what has data, the subtitle", () => {
  const context = chartContext(syntheticDocument());
  assert.deepEqual(context.entries.map((entry) => entry.label), [
    "in-process",
    "redis ×4",
    "postgres (incomplete)",
    "amqp (failed)",
  ]);
  assert.deepEqual(context.colors, {
    domain: ["in-process", "redis ×4", "postgres (incomplete)"],
    range: PALETTE.slice(0, 3),
  });
  assert.equal(
    context.subtitle,
    "20 activities × 10 recipients = 200 deliveries · RSA-2048 · fanout auto",
  );
});

Deno.test("chartContext: a failure with data still gets a colour", () => {
  const document = syntheticDocument();
  const context = chartContext({
    ...document,
    results: [
      result("amqp", 1, "failed", { timeline: timeline([1, 2]) }),
      result("sqlite", 1, "skipped"),
    ],
  });
  assert.deepEqual(context.colors.domain, ["amqp (failed)"]);
});

Deno.test("chartContext: the time unit follows the longest timeline", () => {
  const document = syntheticDocument();
  assert.deepEqual(chartContext(document).time, {
    name: "s",
    seconds: 1,
    bucketSeconds: 1,
    end: 10,
  });
  const long = (counts: number) =>
    chartContext({
      ...document,
      results: [
        result("deno-kv", 1, "incomplete", {
          timeline: timeline(Array.from({ length: counts }, () => 1)),
        }),
      ],
    }).time;
  assert.deepEqual(long(5000), {
    name: "min",
    seconds: 60,
    bucketSeconds: 10,
    end: 5000,
  });
  assert.deepEqual(long(20000), {
    name: "h",
    seconds: 3600,
    bucketSeconds: 60,
    end: 20000,
  });
  assert.deepEqual(chartContext({ ...document, results: [] }).time, {
    name: "s",
    seconds: 1,
    bucketSeconds: 1,
    end: 0,
  });
});
