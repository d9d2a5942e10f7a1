/**
 * The send and receive chart: one pair of bars per configuration that
 * finished, send time (the `sendActivity` loop) beside receive time (first to
 * last delivery), with whiskers from the fastest to the slowest run when a
 * configuration ran more than once.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { type ChartSpec, type Context, omittedNote } from "./context.ts";
import { short, unique } from "./format.ts";
import { labelLimit, textWidth } from "./text.ts";
import { BAR_LABEL_MARK, frame, PHASE_COLORS, WIDTH } from "./theme.ts";

/**
 * (a) Send and receive seconds of the `ok` configurations; null when none
 * has either.
 */
export function sendReceiveChart(context: Context): ChartSpec | null {
  const rows: Record<string, string | number | null>[] = [];
  const omitted: string[] = [];
  for (const { result, label } of context.entries) {
    if (result.status !== "ok") {
      if (result.status !== "skipped") omitted.push(omittedNote(result));
      continue;
    }
    for (
      const [phase, key] of [["Send", "sendSeconds"], [
        "Receive",
        "receiveSeconds",
      ]] as const
    ) {
      const seconds = result[key];
      if (seconds == null) continue;
      const spread = result.spread?.[key];
      const hasSpread = spread != null && spread.max > spread.min;
      rows.push({
        configuration: label,
        phase,
        seconds,
        min: hasSpread ? spread.min : null,
        max: hasSpread ? spread.max : null,
        textAt: hasSpread ? Math.max(seconds, spread.max) : seconds,
        text: hasSpread
          ? `${short(seconds)} s (${short(spread.min)}–${short(spread.max)})`
          : `${short(seconds)} s`,
      });
    }
  }
  if (rows.length === 0) return null;
  const order = unique(rows.map((row) => String(row.configuration)));
  const hasSpread = rows.some((row) => row.min != null);
  // Leave room right of the longest bar for its value.
  const plot = WIDTH - 60 -
    Math.max(...order.map((text) => textWidth({ fontSize: 13 }, text)));
  const xMax = Math.max(
    ...rows.map((row) =>
      Number(row.textAt) /
      Math.max(0.3, 1 - (textWidth({ fontSize: 11 }, row.text) + 16) / plot)
    ),
  );
  const y = {
    field: "configuration",
    type: "nominal",
    sort: order,
    title: null,
    axis: {
      labelFontSize: 13,
      labelLimit: labelLimit(order, 13),
      ticks: false,
      domain: false,
    },
  } as const;
  const x = (field: string) => ({
    field,
    type: "quantitative",
    title: "Time (s)",
    axis: { format: ",~r", grid: true },
    scale: { domain: [0, xMax], nice: true },
  });
  const yOffset = {
    field: "phase",
    type: "nominal" as const,
    sort: ["Send", "Receive"],
  };
  const spec = {
    ...frame(
      context,
      "Send and receive time",
      "send: the sendActivity loop · receive: first to last delivery" +
        (hasSpread ? " · whiskers: fastest to slowest run" : ""),
    ),
    autosize: { type: "fit-x", contains: "padding" },
    height: 52 * order.length,
    data: { values: rows },
    encoding: { y, yOffset },
    layer: [
      {
        mark: { type: "bar", height: { band: 0.9 } },
        encoding: {
          x: x("seconds"),
          color: {
            field: "phase",
            type: "nominal",
            title: null,
            scale: {
              domain: Object.keys(PHASE_COLORS),
              range: Object.values(PHASE_COLORS),
            },
            legend: { orient: "top", direction: "horizontal", columns: 2 },
          },
        },
      },
      ...(hasSpread
        ? [
          {
            mark: { type: "rule", color: "#222222", strokeWidth: 1.5 },
            encoding: {
              x: x("min"),
              x2: { field: "max" },
            },
          },
          {
            mark: { type: "tick", color: "#222222", thickness: 1.5, size: 10 },
            encoding: {
              x: x("min"),
            },
          },
          {
            mark: { type: "tick", color: "#222222", thickness: 1.5, size: 10 },
            encoding: {
              x: x("max"),
            },
          },
        ]
        : []),
      {
        mark: BAR_LABEL_MARK,
        encoding: {
          x: x("textAt"),
          text: { field: "text" },
        },
      },
    ],
  };
  return {
    name: "send-receive",
    omitted,
    title: "Send and receive time",
    spec: spec as TopLevelSpec,
  };
}
