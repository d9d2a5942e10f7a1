/**
 * The "Dead inboxes and the delayed backlog" section of `latest.md`: for
 * each configuration run with `--inbox-dead-rate`, the delayed backlog that
 * retries and Fedify's circuit breaker built, beside the healthy
 * deliveries' throughput and latency.
 *
 * @module
 */
import { count, latency, perSecond } from "./cells.ts";
import {
  type Column,
  columnTable,
  figureColumn,
  numberColumn,
  textColumn,
} from "./columns.ts";
import { label } from "./label.ts";
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";

/** Messages with one decimal (a mean backlog). */
const tenths = () => ({ scale: 1, suffix: "", digits: 1 });

const COLUMNS: readonly Column<ConfigurationResult>[] = [
  textColumn("Configuration", label),
  numberColumn("Dead", (r) => String(r.delayed!.deadRecipients)),
  figureColumn("Dead attempts", count, (r) => r.delayed!.deadAttempts),
  figureColumn("Peak delayed", count, (r) => r.delayed!.peakDelayedBacklog),
  figureColumn("Mean delayed", tenths, (r) => r.delayed!.meanDelayedBacklog),
  textColumn(
    "From",
    (r) => r.delayed!.delayedSource === "getDepth" ? "getDepth()" : "bench",
  ),
  figureColumn(
    "Healthy/s",
    perSecond,
    (r) => r.delayed!.healthyDeliveriesPerSecond,
  ),
  figureColumn(
    "p50 latency",
    latency,
    (r) => r.delayed!.healthyLatencyMs?.p50,
  ),
  figureColumn(
    "p99 latency",
    latency,
    (r) => r.delayed!.healthyLatencyMs?.p99,
  ),
];

/**
 * The section (ending in a blank line), or `""` when no configuration had
 * dead inboxes.
 */
export function delayedSection(document: ResultsDocument): string {
  const rows = document.results.filter((r) => r.delayed != null);
  if (rows.length === 0) return "";
  const rate = rows[0].delayed!.inboxDeadRate;
  const summary = delayedSummary(rows);
  return `## Dead inboxes and the delayed backlog

${
    Math.round(rate * 1000) / 10
  }% of the recipients' inboxes failed every request (503, on a host of their
own); the rows count only the healthy deliveries as expected.

${columnTable(COLUMNS, rows)}
${summary === "" ? "" : `\n${summary}\n`}
- **Dead**: recipients whose inbox failed every request; **Dead attempts**:
  requests they answered, retries included (none is a delivery).
- **Peak delayed**, **Mean delayed**: messages waiting in the queue with a
  delay not yet due (Fedify's retries, and deliveries its circuit breaker
  holds), from the start of sending to the last healthy delivery; **From**
  says whether the queue's \`getDepth()\` reported them or the bench counted
  its own enqueues with a delay.
- **Healthy/s**, **p50/p99 latency**: the healthy deliveries' throughput and
  latency, as in the main table.

`;
}

/**
 * The section read for the user, from its figures only: the largest and
 * smallest peak delayed backlog, and the range of the healthy deliveries'
 * throughput beside it, naming the configurations.
 */
export function delayedSummary(rows: readonly ConfigurationResult[]): string {
  const peaks = rows.filter((r) => r.delayed!.peakDelayedBacklog != null)
    .sort((a, b) =>
      b.delayed!.peakDelayedBacklog! - a.delayed!.peakDelayedBacklog!
    );
  const rates = rows.filter((r) =>
    r.delayed!.healthyDeliveriesPerSecond != null
  )
    .sort((a, b) =>
      b.delayed!.healthyDeliveriesPerSecond! -
      a.delayed!.healthyDeliveriesPerSecond!
    );
  const messages = new Intl.NumberFormat("en-US");
  const sentences: string[] = [];
  if (peaks.length > 0) {
    const [high, low] = [peaks[0], peaks[peaks.length - 1]];
    sentences.push(
      `The delayed backlog peaked at ${
        messages.format(high.delayed!.peakDelayedBacklog!)
      } messages in ${label(high)}` +
        (peaks.length > 1 &&
            low.delayed!.peakDelayedBacklog! < high.delayed!.peakDelayedBacklog!
          ? ` and at ${messages.format(low.delayed!.peakDelayedBacklog!)} in ${
            label(low)
          }.`
          : "."),
    );
  }
  if (rates.length > 1) {
    const [fast, slow] = [rates[0], rates[rates.length - 1]];
    const rate = (r: ConfigurationResult) =>
      `${r.delayed!.healthyDeliveriesPerSecond!.toFixed(1)}/s`;
    sentences.push(
      (rate(fast) === rate(slow)
        ? `Beside it, healthy deliveries went at ${rate(fast)} in every ` +
          "configuration"
        : `Beside it, healthy deliveries went from ${rate(fast)} (${
          label(fast)
        }) down to ${rate(slow)} (${label(slow)})`) +
        "; the chart " +
        '"Delayed backlog and healthy deliveries" shows whether a queue ' +
        "slowed as its backlog grew. What the backlog itself costs needs a " +
        "run at `--inbox-dead-rate 0` to compare with.",
    );
  }
  return sentences.join(" ");
}
