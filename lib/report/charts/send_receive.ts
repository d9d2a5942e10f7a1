/**
 * The send and receive chart, the report's headline: a mark for every
 * configuration that is not skipped.  A finished configuration gets a pair of
 * measured bars, send time (the `sendActivity` loop) beside receive time
 * (first to last delivery), with whiskers from the fastest to the slowest run
 * when it ran more than once.  A configuration stopped before its end keeps
 * its measured send bar and, in place of receive time, its estimated total
 * (first `sendActivity` call to the projected last delivery): a hollow,
 * dashed bar in its own colour, its low–high bounds as whiskers and its label
 * `~N s (estimate)`, so that it is never read as a measurement.  One with
 * neither says why in words at the start of the axis (`stalled — no
 * estimate`, `failed`).  When the estimates dwarf the measured bars, the
 * time axis is logarithmic, and says so.  What each configuration gets, as
 * data, is `send_receive_data.ts`'s.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { ChartSpec, Context } from "./context.ts";
import { unique } from "./format.ts";
import {
  type MarkKind,
  sendReceiveData,
  type SendReceiveDatum,
} from "./send_receive_data.ts";
import { configurationAxis, textWidth } from "./text.ts";
import {
  BAR_LABEL_MARK,
  ESTIMATE_DASH,
  ESTIMATE_FILL_OPACITY,
  ESTIMATE_INK,
  ESTIMATE_PHASE,
  frame,
  INK,
  PHASE_COLORS,
  WIDTH,
} from "./theme.ts";

/**
 * How many times the largest measured time an estimate's high bound may
 * reach on a linear axis; past it, the axis is logarithmic, so that the
 * measured bars stay readable beside estimates of hours.
 */
export const LINEAR_SPAN = 5;

/** The time axis: its scale, its ticks and its title. */
interface TimeAxis {
  /** The value at the axis's start: `0`, or the log scale's lowest decade. */
  readonly start: number;
  /** The axis's title, which names a log scale. */
  readonly title: string;
  /** The Vega-Lite scale. */
  readonly scale: Record<string, unknown>;
  /** The Vega-Lite axis. */
  readonly axis: Record<string, unknown>;
}

/**
 * A linear axis from zero, or a logarithmic one when estimates reach past
 * {@link LINEAR_SPAN} times the largest measured time; either ends far enough
 * right of every mark for its label (`plot`: the plot's width, pixels).
 */
function timeAxis(data: readonly SendReceiveDatum[], plot: number): TimeAxis {
  const labelled = data.filter((d) => d.kind !== "none");
  // The share of the plot left of a label that must still fit.
  const room = (d: SendReceiveDatum) =>
    Math.max(0.3, 1 - (textWidth({ fontSize: 11 }, d.text) + 16) / plot);
  const measuredMax = Math.max(
    0,
    ...data.map((d) => Math.max(d.seconds ?? 0, d.max ?? 0)),
  );
  const estimateMax = Math.max(0, ...data.map((d) => d.high ?? 0));
  if (!(measuredMax > 0 && estimateMax > LINEAR_SPAN * measuredMax)) {
    const xMax = Math.max(1, ...labelled.map((d) => d.textAt / room(d)));
    return {
      start: 0,
      title: "Time (s)",
      scale: { domain: [0, xMax], nice: true },
      axis: { format: ",~r", grid: true },
    };
  }
  const positive = data.flatMap((d) => [d.seconds, d.min, d.estimate, d.low])
    .filter((v): v is number => v != null && v > 0);
  // Exponents of ten: the decade below the smallest value, and the end.
  const low = Math.floor(Math.log10(Math.min(...positive)));
  const high = Math.max(
    ...labelled.map((d) =>
      low + Math.max(0, Math.log10(d.textAt) - low) / room(d)
    ),
  );
  const values: number[] = [];
  for (let power = low; power <= high; power++) {
    const decade = Number(`1e${power}`);
    values.push(decade);
    // Few decades: their 2 and 5 too, so the axis has ticks to read.
    if (high - low < 2) values.push(2 * decade, 5 * decade);
  }
  const end = 10 ** high;
  return {
    start: Number(`1e${low}`),
    title: "Time (s, log scale)",
    scale: { type: "log", domain: [Number(`1e${low}`), end], nice: false },
    axis: { format: ",~g", grid: true, values: values.filter((v) => v <= end) },
  };
}

/**
 * A Vega expression choosing, by a legend entry's phase, one of `colors`
 * (keyed by phase).
 */
function byPhase(colors: Readonly<Record<string, string>>): string {
  return Object.entries(colors).reduceRight(
    (rest, [phase, color]) =>
      `datum.value === ${JSON.stringify(phase)} ? ${
        JSON.stringify(color)
      } : ${rest}`,
    JSON.stringify(INK),
  );
}

/** The x encoding of a field on the time axis. */
type TimeX = (field: string) => Record<string, unknown>;

/** The x encoding of `field` on `axis`. */
function timeX(axis: TimeAxis): TimeX {
  return (field) => ({
    field,
    type: "quantitative",
    title: axis.title,
    axis: axis.axis,
    scale: axis.scale,
  });
}

/** The marks' tooltip: configuration, figure and time. */
const TOOLTIP = [
  { field: "configuration", type: "nominal", title: "Configuration" },
  { field: "phase", type: "nominal", title: "Figure" },
  { field: "detail", type: "nominal", title: "Time" },
];

/** The data of one kind of mark only. */
function only(kind: MarkKind) {
  return [{ filter: { field: "kind", equal: kind } }];
}

/** Whiskers from `low` to `high`, where a datum has them: a rule, two ticks. */
function whiskers(x: TimeX, low: string, high: string, color: string) {
  return [
    {
      transform: [{ filter: `isValid(datum.${low})` }],
      mark: { type: "rule", color, strokeWidth: 1.5 },
      encoding: { x: x(low), x2: { field: high } },
    },
    ...[low, high].map((field) => ({
      transform: [{ filter: `isValid(datum.${field})` }],
      mark: { type: "tick", color, thickness: 1.5, size: 10 },
      encoding: { x: x(field) },
    })),
  ];
}

/** What the chart's marks mean, the lines its data needs. */
function subtitle(hasSpread: boolean, hasEstimate: boolean): string {
  return [
    "send: the sendActivity loop",
    "receive: first to last delivery",
    ...(hasSpread ? ["whiskers: fastest to slowest run"] : []),
    ...(hasEstimate
      ? [
        "hollow, dashed: the estimated total of a row stopped before " +
        "its end, first send to last delivery",
        "its whiskers: the estimate's bounds; an estimate, not a " +
        "measurement",
      ]
      : []),
  ].join(" · ");
}

/**
 * The estimate's legend entry drawn as its bars are: hollow, dashed.  (Its
 * fill is the legend's own, from the colour scale.)
 */
function estimateSymbol(phases: Readonly<Record<string, string>>) {
  const isEstimate = `datum.value === ${JSON.stringify(ESTIMATE_PHASE)}`;
  return {
    fillOpacity: {
      value: { expr: `${isEstimate} ? ${ESTIMATE_FILL_OPACITY} : 1` },
    },
    stroke: { value: { expr: byPhase(phases) } },
    strokeDash: {
      value: {
        expr: `${isEstimate} ? ${JSON.stringify(ESTIMATE_DASH)} : [1, 0]`,
      },
    },
    strokeWidth: { value: 1.5 },
  };
}

/** The measured bars, coloured by phase, with the legend of the phases. */
function measuredLayer(
  x: TimeX,
  phases: Readonly<Record<string, string>>,
  hasEstimate: boolean,
) {
  return {
    transform: only("measured"),
    mark: { type: "bar", height: { band: 0.9 } },
    encoding: {
      // Side by side (yOffset), never stacked: each bar starts at the axis.
      x: { ...x("seconds"), stack: null },
      color: {
        field: "phase",
        type: "nominal",
        title: null,
        scale: {
          domain: Object.keys(phases),
          range: Object.values(phases),
        },
        legend: {
          orient: "top",
          direction: "horizontal",
          columns: Object.keys(phases).length,
          ...(hasEstimate
            ? { encoding: { symbols: estimateSymbol(phases) } }
            : {}),
        },
      },
      tooltip: TOOLTIP,
    },
  };
}

/** The estimates' hollow, dashed bars and their bounds' whiskers. */
function estimateLayers(x: TimeX) {
  return [
    {
      transform: only("estimate"),
      mark: {
        type: "bar",
        height: { band: 0.9 },
        fill: ESTIMATE_INK,
        fillOpacity: ESTIMATE_FILL_OPACITY,
        stroke: ESTIMATE_INK,
        strokeWidth: 1.5,
        strokeDash: ESTIMATE_DASH,
      },
      encoding: { x: { ...x("estimate"), stack: null }, tooltip: TOOLTIP },
    },
    ...whiskers(x, "low", "high", ESTIMATE_INK),
  ];
}

/** Every mark's label: its value, an estimate's, or why it has none. */
function labelLayer(x: TimeX) {
  return {
    mark: BAR_LABEL_MARK,
    encoding: {
      x: x("textAt"),
      text: { field: "text" },
      color: {
        condition: [
          { test: "datum.kind === 'estimate'", value: ESTIMATE_INK },
          { test: "datum.kind === 'none'", value: "#666666" },
        ],
        value: INK,
      },
    },
  };
}

/**
 * (a) Send and receive seconds of every configuration that is not skipped,
 * with the estimated totals of stopped ones; null when none has a figure or
 * an estimate (words alone make no chart).
 */
export function sendReceiveChart(context: Context): ChartSpec | null {
  const data = sendReceiveData(context);
  if (data.every((d) => d.kind === "none")) return null;
  const order = unique(data.map((d) => d.configuration));
  const hasSpread = data.some((d) => d.min != null);
  const hasEstimate = data.some((d) => d.kind === "estimate");
  // Leave room right of the longest bar for its value.
  const plot = WIDTH - 60 -
    Math.max(...order.map((text) => textWidth({ fontSize: 13 }, text)));
  const axis = timeAxis(data, plot);
  const values = data.map((d) =>
    d.kind === "none" ? { ...d, textAt: axis.start } : d
  );
  const x = timeX(axis);
  const phases: Record<string, string> = {
    ...PHASE_COLORS,
    ...(hasEstimate ? { [ESTIMATE_PHASE]: ESTIMATE_INK } : {}),
  };
  const spec = {
    ...frame(
      context,
      "Send and receive time",
      subtitle(hasSpread, hasEstimate),
    ),
    autosize: { type: "fit-x", contains: "padding" },
    height: 52 * order.length,
    data: { values },
    encoding: {
      y: configurationAxis(order),
      yOffset: {
        field: "slot",
        type: "nominal" as const,
        sort: ["first", "second"],
      },
    },
    layer: [
      measuredLayer(x, phases, hasEstimate),
      ...(hasEstimate ? estimateLayers(x) : []),
      ...(hasSpread ? whiskers(x, "min", "max", "#222222") : []),
      labelLayer(x),
    ],
  };
  return {
    name: "send-receive",
    // Every configuration that is not skipped has a mark.
    omitted: [],
    title: "Send and receive time",
    spec: spec as TopLevelSpec,
  };
}
