/**
 * Text measurement for charts rendered without a canvas: Helvetica's advance
 * widths, used both to lay out the charts' own labels and, while a chart is
 * rendered, in place of Vega's rough estimate, so that legends and labels are
 * spaced as they will be drawn.
 *
 * @module
 */
import * as vega from "vega";

/** A text item as Vega's text measurement sees it. */
export interface TextItem {
  /** Font size in pixels; Vega's default, 11, when missing. */
  readonly fontSize?: number;
  /** `bold` or a CSS weight; 600 and up count as bold. */
  readonly fontWeight?: string | number;
  /** Widest the text may be drawn, in pixels, when positive. */
  readonly limit?: number;
}

/**
 * Helvetica's advance widths (1/1000 em) of the printable ASCII characters,
 * from space (32) to tilde (126), sixteen characters a line; Arial and
 * Liberation Sans share them.
 */
const HELVETICA = (
  "278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 " +
  "556 556 556 556 556 556 556 556 556 556 278 278 584 584 584 556 " +
  "1015 667 667 722 722 667 611 778 722 278 500 667 556 833 722 778 " +
  "667 778 722 667 611 722 667 944 667 667 611 278 278 278 469 556 " +
  "333 556 556 500 556 556 278 556 556 222 222 500 222 833 556 556 " +
  "556 556 333 500 278 556 500 722 500 500 500 334 260 334 584"
).split(" ").map(Number);

/** Widths of the other characters the charts print. */
const OTHER_WIDTHS: Readonly<Record<string, number>> = {
  "×": 584,
  "–": 556,
  "—": 1000,
  "·": 278,
  "…": 1000,
  "→": 1000,
  "µ": 556,
};

/**
 * How much wider than Helvetica a chart's text may be drawn.  The charts ask
 * for Helvetica, Arial or Liberation Sans (the same widths), but a machine
 * with none of them draws DejaVu Sans, the sans-serif of many Linux systems:
 * measured in Chromium, the charts' labels ran 13.6–15.5% wider in it.
 */
const SPARE = 1.18;

/**
 * Text width for Vega's layout without a canvas: Helvetica's metrics instead
 * of Vega's rough estimate (0.8 em per character), {@link SPARE} times as
 * wide, to leave room for DejaVu Sans, and no wider than the item's limit.
 */
export function textWidth(item: TextItem, text?: unknown): number {
  const value = text == null ? "" : String(text).trim();
  const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  const bold = item.fontWeight === "bold" || Number(item.fontWeight) >= 600;
  let units = 0;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    units += code >= 32 && code <= 126
      ? HELVETICA[code - 32]
      : OTHER_WIDTHS[char] ?? (code >= 0x2e80 ? 1000 : 556);
  }
  const width = units / 1000 * size * (bold ? 1.07 : 1) * SPARE;
  const limit = Number(item.limit);
  return limit > 0 ? Math.min(width, limit) : width;
}

/**
 * Vega's text measurement (exported by vega-scenegraph, missing from Vega's
 * type definitions).  Vega documents replacing `width` for renderers without
 * a canvas.
 */
const textMetrics = (vega as unknown as {
  textMetrics: { width: (item: TextItem, text?: unknown) => number };
}).textMetrics;

/**
 * Runs `render` with Vega measuring text by {@link textWidth}, and gives Vega
 * its own measurement back afterwards, even when `render` throws.  Vega's
 * measurement is global: callers run one render at a time.
 */
export async function measuringHelvetica<T>(
  render: () => Promise<T>,
): Promise<T> {
  const vegaWidth = textMetrics.width;
  textMetrics.width = textWidth;
  try {
    return await render();
  } finally {
    textMetrics.width = vegaWidth;
  }
}

/**
 * The `labelLimit` of an axis that lists `labels` at `fontSize`: the widest
 * label's width and a little, so Vega never shortens one with "…".
 */
export function labelLimit(
  labels: readonly string[],
  fontSize: number,
): number {
  const widest = Math.max(0, ...labels.map((l) => textWidth({ fontSize }, l)));
  return Math.ceil(widest) + 8;
}

/**
 * The axis of a chart whose bars or points stand one configuration a row,
 * in `order`: its labels at 13 px and never shortened, no ticks or domain
 * line; `extra` adds to the axis (a grid, say).
 */
export function configurationAxis(
  order: readonly string[],
  extra: Readonly<Record<string, unknown>> = {},
) {
  return {
    field: "configuration",
    type: "nominal" as const,
    sort: order,
    title: null,
    axis: {
      labelFontSize: 13,
      labelLimit: labelLimit(order, 13),
      ticks: false,
      domain: false,
      ...extra,
    },
  };
}
