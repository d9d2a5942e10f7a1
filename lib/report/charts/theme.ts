/**
 * The look shared by every chart: size, font, colours and the Vega-Lite
 * config, and the frame (title, subtitle, width) each chart spec starts from.
 *
 * @module
 */
import type { Percentiles } from "../../results/mod.ts";
import { textWidth } from "./text.ts";

/** Total width of every chart, in pixels. */
export const WIDTH = 720;

/** Fonts named in the SVG; `text.ts` measures Helvetica's (= Arial's). */
const FONT = "Helvetica, Arial, 'Liberation Sans', sans-serif";

/** Colours of the configurations, in document order. */
export const PALETTE = [
  "#4c78a8",
  "#f58518",
  "#54a24b",
  "#e45756",
  "#72b7b2",
  "#b279a2",
  "#eeca3b",
  "#9d755d",
  "#ff9da6",
  "#7f7f7f",
  "#1f3b5c",
  "#8c4a00",
  "#2d5a27",
  "#8f1d1b",
  "#3e6e6a",
  "#6a3d62",
] as const;

/** The colour of the `i`-th configuration (or driver), cycling the palette. */
export function paletteColor(i: number): string {
  return PALETTE[i % PALETTE.length];
}

/** Series a chart tells apart by colour alone; past it, dashes help. */
export const MAX_PLAIN_SERIES = 10;

/** Dash patterns of lines, one per ten series: solid first. */
export const DASHES: readonly (readonly number[])[] = [
  [1, 0],
  [8, 3],
  [2, 2],
  [8, 3, 2, 3],
];

/**
 * The dash pattern of the `i`-th line: solid for the first ten, then a new
 * pattern every ten, so that with {@link paletteColor} (16 colours) no two
 * of the first 40 lines look the same.
 */
export function seriesDash(i: number): readonly number[] {
  return DASHES[Math.floor(i / MAX_PLAIN_SERIES) % DASHES.length];
}

/**
 * Colours of the send and receive bars: neutral, so as not to be read as
 * configuration colours.
 */
export const PHASE_COLORS = { Send: "#b0b0b0", Receive: "#4a5a78" } as const;

/**
 * The name of a stopped row's estimated total in the send and receive
 * chart, drawn beside the measured phases but never like them.
 */
export const ESTIMATE_PHASE = "Total (estimate)";

/**
 * The outline, whiskers and label of an estimate: the colour `report.html`
 * gives rows that did not finish.
 */
export const ESTIMATE_INK = "#8a4b00";

/**
 * The opacity of an estimate's fill (in {@link ESTIMATE_INK}): faint, so
 * that the bar reads as hollow.
 */
export const ESTIMATE_FILL_OPACITY = 0.1;

/** The dash of an estimate's outline, so that it differs in grey too. */
export const ESTIMATE_DASH: readonly number[] = [4, 3];

/**
 * The percentiles of the latency chart: field of {@link Percentiles}, name
 * shown, colour.
 */
export const PERCENTILES: readonly (readonly [
  keyof Percentiles,
  string,
  string,
])[] = [
  ["p50", "p50", "#9ecae9"],
  ["p90", "p90", "#4c78a8"],
  ["p99", "p99", "#f58518"],
  ["p999", "p99.9", "#e45756"],
  ["max", "max", "#222222"],
];

/** Colour of legend symbols that stand for no configuration. */
export const INK = "#333333";

/** The Vega-Lite config of every chart. */
export const CONFIG = {
  background: "#ffffff",
  font: FONT,
  padding: 12,
  title: {
    fontSize: 16,
    fontWeight: "bold",
    anchor: "start",
    subtitleFontSize: 12,
    subtitleColor: "#555555",
    offset: 12,
  },
  axis: {
    labelFontSize: 12,
    titleFontSize: 13,
    titleFontWeight: "normal",
    titleColor: "#333333",
    labelColor: "#333333",
    gridColor: "#e8e8e8",
    domainColor: "#888888",
    tickColor: "#888888",
    labelLimit: 260,
  },
  legend: {
    labelFontSize: 12,
    titleFontSize: 12,
    titleFontWeight: "normal",
    labelLimit: 320,
    // Every entry, never "…8 entries": a reader must find each line.
    symbolLimit: 0,
    orient: "bottom",
    direction: "horizontal",
    columns: 3,
    columnPadding: 16,
    symbolStrokeWidth: 3,
  },
  view: { stroke: null },
} as const;

/**
 * `line` as lines no wider than the chart (at the subtitle's size), broken
 * between its ` · `-separated parts; a part wider than the chart alone stays
 * whole.
 */
export function wrapSubtitle(line: string): string[] {
  const fits = (text: string) =>
    textWidth({ fontSize: CONFIG.title.subtitleFontSize }, text) <= WIDTH;
  const lines: string[] = [];
  for (const part of line.split(" · ")) {
    const last = lines.at(-1);
    if (last != null && fits(`${last} · ${part}`)) {
      lines[lines.length - 1] = `${last} · ${part}`;
    } else lines.push(part);
  }
  return lines;
}

/**
 * The top of every chart spec: schema, config, width, and the title over the
 * suite's subtitle, plus `note` on the lines below when there is one, each
 * broken to the chart's width ({@link wrapSubtitle}).
 */
export function frame(
  context: { readonly subtitle: string },
  title: string,
  note = "",
) {
  const lines = [context.subtitle, ...(note === "" ? [] : [note])]
    .flatMap(wrapSubtitle);
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    description: title,
    config: CONFIG,
    width: WIDTH,
    title: {
      text: title,
      subtitle: lines.length === 1 ? lines[0] : lines,
    },
  };
}

/**
 * How many columns a legend of these labels gets: as many as fit the
 * chart's width, at most {@link CONFIG}'s three.
 */
export function legendColumns(labels: readonly string[]): number {
  const widest = Math.max(
    0,
    ...labels.map((label) =>
      textWidth({ fontSize: CONFIG.legend.labelFontSize }, label)
    ),
  );
  // The symbol (a long dashed stroke at most), its gap, and the padding.
  const entry = widest + 40 + CONFIG.legend.columnPadding;
  return Math.max(
    1,
    Math.min(CONFIG.legend.columns, Math.floor(WIDTH / entry)),
  );
}

/** The size of the charts over a quantitative x axis: full width, 320 high. */
export function fitted() {
  return {
    autosize: { type: "fit-x", contains: "padding" },
    height: 320,
  };
}

/** The mark of a value printed at the end of a bar, beside it. */
export const BAR_LABEL_MARK = {
  type: "text",
  align: "left",
  baseline: "middle",
  dx: 5,
  fontSize: 11,
  color: INK,
} as const;

/** The mark of a label printed just above a horizontal rule, at its left. */
export const RULE_LABEL_MARK = {
  type: "text",
  align: "left",
  baseline: "bottom",
  x: 4,
  dy: -3,
  fontSize: 11,
  color: "#555555",
} as const;
