/**
 * The dead-inbox section: a row per configuration with dead inboxes, the
 * source of its delayed backlog, and nothing when none had any.
 */
import assert from "node:assert/strict";
import { delayedSection } from "./delayed_table.ts";
import { featureDocument } from "../testing/chart_fixtures.ts";
import type { ResultsDocument } from "../results/mod.ts";
import { steadyDocument } from "../testing/load_fixtures.ts";

Deno.test("the delayed section lists each configuration with dead inboxes", () => {
  const document = structuredClone(steadyDocument()) as ResultsDocument;
  assert.equal(delayedSection(document), "");
  const [first, second] = document.results;
  const delayed = {
    inboxDeadRate: 0.2,
    deadRecipients: 4,
    deadAttempts: 1234,
    peakDelayedBacklog: 80,
    meanDelayedBacklog: 44.62,
    delayedSource: "getDepth" as const,
    peakDelayedBacklogBench: 80,
    healthyDeliveriesPerSecond: 128.5,
    healthyLatencyMs: {
      p50: 1266,
      p90: 1900,
      p99: 2073,
      p999: 2080,
      max: 2082,
    },
    series: [],
  };
  const text = delayedSection({
    ...document,
    results: [
      { ...first, delayed },
      second,
      {
        ...second,
        delayed: { ...delayed, delayedSource: "bench" as const },
      },
    ],
  });
  assert.match(text, /^20% of the recipients' inboxes failed/m);
  const rows = text.split("\n").filter((line) =>
    line.startsWith("| ") && !line.startsWith("| -")
  );
  assert.equal(rows.length, 3, text);
  assert.match(
    rows[1],
    /\| +4 \| +1,234 \| +80 \| +44\.6 \| getDepth\(\) \| +128\.5\/s \| +1\.27 s \| +2\.07 s \|$/,
  );
  assert.match(rows[2], /\| bench +\|/);
});

Deno.test("the delayed section is read for the user from its figures", () => {
  const text = delayedSection(featureDocument());
  assert.match(
    text,
    /The delayed backlog peaked at 16 messages in redis key=object and at 13 in redis key=none\./,
  );
  assert.match(
    text,
    /healthy deliveries went from 40\.0\/s \(in-process [^)]*\) down to 25\.0\/s \(redis [^)]*\)/,
  );
  assert.match(text, /--inbox-dead-rate 0/);
});
