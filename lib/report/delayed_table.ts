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
import type { ConfigurationResult, ResultsDocument } from "../results/types.ts";

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
  return `## Dead inboxes and the delayed backlog

${
    Math.round(rate * 1000) / 10
  }% of the recipients' inboxes failed every request (503, on a host of their
own); the rows count only the healthy deliveries as expected.

${columnTable(COLUMNS, rows)}

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
