/**
 * The "Where a delivery's time goes" section of `latest.md`: per
 * configuration with stage timings, the measured and predicted rates, what
 * limits it, and the stages that make up a delivery's time (medians, 99th
 * percentiles, means and shares); and {@link consumerParts}, the split of a
 * slot's time per delivery that the stages chart draws.
 *
 * @module
 */
import { latency, msFigure, perSecond } from "./cells.ts";
import {
  type Column,
  columnTable,
  figureColumn,
  numberColumn,
  textColumn,
} from "./columns.ts";
import { label } from "./label.ts";
import {
  type ConfigurationResult,
  perDelivery,
  type ResultsDocument,
  type StageFigures,
  type StageName,
} from "../results/mod.ts";

/** One part of a slot's time per delivery, ms. */
export interface ConsumerPart {
  /** What it is, as the chart's legend says it. */
  readonly part: string;
  /** Milliseconds per delivery. */
  readonly ms: number;
}

/** The parts, in stacking order, with the colour each is drawn in. */
export const CONSUMER_PARTS: readonly { part: string; color: string }[] = [
  { part: "signing", color: "#e45756" },
  { part: "POST without signing", color: "#4c78a8" },
  { part: "rest of the outbox handler", color: "#72b7b2" },
  { part: "fanout", color: "#f58518" },
  { part: "slot pick-up", color: "#9d755d" },
  { part: "slot hand-over", color: "#b279a2" },
  { part: "queue turnaround", color: "#54a24b" },
  { part: "idle or not timed", color: "#d0d0d0" },
];

/**
 * How a slot's time per delivery (slots × 1000 ÷ deliveries/s, ms) splits
 * into the measured stages, and what is left: idle, or not timed.  `null`
 * for a row without a queue, a rate or an outbox handler's timings.  The
 * queue's turnaround is a slot's time only where the queue hands out one
 * message at a time with no parallel wrapper.
 */
export function consumerParts(
  result: ConfigurationResult,
): ConsumerPart[] | null {
  const stages = result.stages;
  const rate = result.deliveriesPerSecond;
  const outbox = stages?.byStage.outbox;
  if (stages == null || rate == null || rate <= 0 || outbox == null) {
    return null;
  }
  if (stages.slots <= 0) return null;
  const mean = (name: StageName) => stages.byStage[name]?.meanMs ?? 0;
  const shares = perDelivery(stages);
  if (shares == null) return null;
  const turnaround = result.parallelism <= 1 && stages.serial
    ? shares.turnaroundMs ?? 0
    : 0;
  const measured: ConsumerPart[] = [
    { part: "signing", ms: mean("sign") },
    {
      part: "POST without signing",
      ms: Math.max(0, mean("post") - mean("sign")),
    },
    {
      part: "rest of the outbox handler",
      ms: Math.max(0, outbox.meanMs - mean("post")),
    },
    {
      part: "fanout",
      ms: shares.fanoutMs,
    },
    { part: "slot pick-up", ms: shares.pickupMs },
    { part: "slot hand-over", ms: shares.handoverMs },
    { part: "queue turnaround", ms: turnaround },
  ];
  const slotMs = stages.slots * 1000 / rate;
  const used = measured.reduce((sum, p) => sum + p.ms, 0);
  return [
    ...measured,
    { part: "idle or not timed", ms: Math.max(0, slotMs - used) },
  ];
}

const p50p99 = (figures: StageFigures | undefined): string =>
  figures == null ? "—" : `${cellOf(figures.p50Ms)} / ${cellOf(figures.p99Ms)}`;

function cellOf(ms: number): string {
  const unit = latency(ms);
  return `${(ms / unit.scale).toFixed(unit.digits)}${unit.suffix}`;
}

/** The prediction beside the measured rate: `412.0/s (−3%)`. */
function predictedCell(result: ConfigurationResult): string {
  const predicted = result.predictedDeliveriesPerSecond;
  const rate = result.deliveriesPerSecond;
  if (predicted == null) return "—";
  const off = rate == null || rate <= 0
    ? ""
    : ` (${predicted >= rate ? "+" : "−"}${
      Math.round(Math.abs(predicted / rate - 1) * 100)
    }%)`;
  return `${predicted.toFixed(1)}/s${off}`;
}

const COLUMNS: readonly Column<ConfigurationResult>[] = [
  textColumn("Configuration", label),
  figureColumn("Measured", perSecond, (r) => r.deliveriesPerSecond),
  numberColumn("Predicted", predictedCell),
  textColumn(
    "Limited by",
    (r) =>
      r.limitedBy == null
        ? "—"
        : `${r.limitedBy.resource} (${
          Math.round(r.limitedBy.utilisation * 100)
        }%)`,
  ),
  numberColumn(
    "Queue wait p50 / p99",
    (r) => p50p99(r.stages?.byStage["queue.wait"]),
  ),
  numberColumn(
    "Outbox handler p50 / p99",
    (r) => p50p99(r.stages?.byStage.outbox),
  ),
  figureColumn(
    "Signing, mean ms",
    msFigure,
    (r) => r.stages?.byStage.sign?.meanMs,
  ),
  figureColumn(
    "POST, mean ms",
    msFigure,
    (r) => r.stages?.byStage.post?.meanMs,
  ),
  figureColumn(
    "Turnaround, mean ms",
    msFigure,
    (r) => r.stages?.byStage["queue.after"]?.meanMs,
  ),
  figureColumn(
    "Slot pick-up + hand-over, ms/delivery",
    msFigure,
    (r) => {
      if (r.parallelism <= 1 || r.stages == null) return undefined;
      const shares = perDelivery(r.stages);
      return shares == null ? undefined : shares.pickupMs + shares.handoverMs;
    },
  ),
  numberColumn("Slots", (r) => r.stages?.slots ? String(r.stages.slots) : "—"),
  numberColumn("Busy", (r) => {
    const parts = consumerParts(r);
    if (parts == null) return "—";
    const total = parts.reduce((sum, p) => sum + p.ms, 0);
    const idle = parts.at(-1)!.ms;
    return total > 0 ? `${Math.round((1 - idle / total) * 100)}%` : "—";
  }),
];

/**
 * The section (ending in a blank line), or `""` when no configuration
 * timed its stages.
 */
export function stagesSection(document: ResultsDocument): string {
  const rows = document.results.filter((r) => r.stages != null);
  if (rows.length === 0) return "";
  const limits = rows.filter((r) => r.limitedBy != null).map((r) =>
    `- **${label(r)}**: ${r.limitedBy!.resource}: ${r.limitedBy!.evidence}`
  );
  const notes = new Map<string, string[]>();
  for (const r of rows) {
    for (const note of r.stages!.notes) {
      const list = notes.get(note) ?? [];
      list.push(label(r));
      notes.set(note, list);
    }
  }
  const noteLines = [...notes].map(([note, labels]) =>
    `- ${labels.join(", ")}: ${note}`
  );
  return `## Where a delivery's time goes

${columnTable(COLUMNS, rows)}

${[...limits, ...noteLines].join("\n")}

- **Measured**: deliveries per second (so far, for a row that did not
  finish). **Predicted**: the smallest of five bounds, each from the row's
  own figures: CPU (cores × 1000 ÷ CPU ms per delivery of the app, the
  queue server and the inbox), the event loop (deliveries ÷ the main-thread
  CPU seconds of the busiest consuming process: one core at most), the
  handler slots (slots × 1000 ÷ a slot's
  ms per delivery: the outbox handler, the fanout's share, under
  \`ParallelMessageQueue\` the slot pick-up and hand-over, and, for a queue
  that hands out one message at a time at ×1, its turnaround) and, under
  \`ParallelMessageQueue\`, the queue's turnaround (1000 ÷ turnaround ms),
  and where those two both apply, the two together (the dequeue loop and the
  slots each waiting on the other at times); nothing in it is fitted to the
  rates (docs/methodology.md).
- **Limited by**: the bound the measured rate comes closest to, with the
  share of it used; \`unexplained\` when the rate reaches less than 85% of
  every bound.
- **Queue wait**: from the start of an outbox message's enqueue call to the
  driver's queue handing it to a handler (the bench's wrapper).
  **Outbox handler**, **Signing**, **POST**: Fedify's own spans
  (\`activitypub.outbox\`, \`http_signatures.sign\`,
  \`activitypub.send_activity\`; the POST includes the signing).
  **Turnaround**: from the driver's handler returning to its next hand-off
  while a message was waiting and no other handler ran. **Slot pick-up +
  hand-over**: under \`ParallelMessageQueue\`, a slot's idle time per
  delivery between one handler's end and the next one's start: waking the
  message that waited for it, then Fedify's \`setTimeout(0)\` before the
  handler.
- **Slots**: handlers that can run at once (the \`ParallelMessageQueue\`
  level × the consuming processes, or for a queue that runs handlers
  concurrently itself, the most it ran at once). **Busy**: the share of the
  slots' time the timed stages account for.

`;
}
