/**
 * The delayed-backlog chart of runs with dead inboxes (`--inbox-dead-rate`):
 * per configuration, the delayed messages that retries and Fedify's circuit
 * breaker left in the queue over the run (solid, left axis), beside the
 * healthy deliveries per second over the same time (dashed, right axis), so
 * that a queue whose healthy deliveries slow as its delayed backlog grows
 * shows it in one picture.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { type ChartSpec, type Context, omittedNote } from "./context.ts";
import { duration, fixed } from "./format.ts";
import { closeLastStep, maxPerBucket, meanPerBucket } from "./resample.ts";
import { fitted, frame } from "./theme.ts";
import { configurationStyle, timeAxis } from "./time_series.ts";

/** One point of one line, `t` in the context's time unit. */
type Row = Record<string, string | number>;

/**
 * (j) The delayed backlog over the run and the healthy deliveries per
 * second, one colour per configuration run with dead inboxes; null when no
 * configuration recorded a delayed backlog.  Each series is kept within
 * the context's bucket width (the backlog's peak, the rate's mean per
 * bucket), as the other charts over time are.
 */
export function delayedBacklogChart(context: Context): ChartSpec | null {
  const { time } = context;
  const backlog: Row[] = [];
  const healthy: Row[] = [];
  const omitted: string[] = [];
  let rate = 0;
  for (const { result, label } of context.entries) {
    const delayed = result.delayed;
    if (delayed == null) continue;
    if (delayed.series.length === 0) {
      if (result.status !== "skipped") omitted.push(omittedNote(result));
      continue;
    }
    rate = delayed.inboxDeadRate;
    for (const [t, value] of maxPerBucket(delayed.series, time.bucketSeconds)) {
      backlog.push({ configuration: label, t: t / time.seconds, value });
    }
    const timeline = result.timeline;
    if (timeline == null || timeline.deliveries.length === 0) continue;
    const width = Math.max(time.bucketSeconds, timeline.bucketSeconds);
    const steps = width > timeline.bucketSeconds
      ? meanPerBucket(timeline.deliveries, timeline.bucketSeconds, width)
      : closeLastStep(timeline.deliveries, width);
    for (const [t, perSecond] of steps) {
      healthy.push({ configuration: label, t: t / time.seconds, perSecond });
    }
  }
  if (backlog.length === 0) return null;
  const x = timeAxis(context);
  const style = configurationStyle(context, [...backlog, ...healthy]);
  const spec = {
    ...frame(
      context,
      "Delayed backlog and healthy deliveries",
      `${fixed(rate * 100, 1)}% of inboxes dead · solid: delayed messages ` +
        "in the queue (left) · dashed: healthy deliveries per second, " +
        `mean over ${duration(time.bucketSeconds)} (right)`,
    ),
    ...fitted(),
    layer: [
      {
        data: { values: backlog },
        mark: { type: "line", strokeWidth: 2, clip: true },
        encoding: {
          x,
          y: {
            field: "value",
            type: "quantitative",
            title: "Delayed messages in the queue (count, solid)",
            axis: { format: ",~r", orient: "left" },
          },
          ...style,
        },
      },
      {
        data: { values: healthy },
        mark: {
          type: "line",
          interpolate: "step-after",
          strokeWidth: 1.5,
          strokeDash: [4, 3],
          opacity: 0.8,
          clip: true,
        },
        encoding: {
          x,
          y: {
            field: "perSecond",
            type: "quantitative",
            title: "Healthy deliveries per second (1/s, dashed)",
            axis: { format: ",~r", orient: "right", grid: false },
          },
          color: style.color,
        },
      },
    ],
    resolve: { scale: { y: "independent" } },
  };
  return {
    name: "delayed-backlog",
    title: "Delayed backlog and healthy deliveries",
    spec: spec as TopLevelSpec,
    omitted,
  };
}
