/**
 * Turns a chart's Vega-Lite spec, as the SVG charts draw it, into the
 * interactive one `report.html` embeds, with Vega-Lite's own means only:
 * a tooltip on every mark (on a line, at its points, marked transparent so
 * the pointer finds them), a click on a legend entry hides or shows that
 * configuration's series (a legend-bound point selection that filters the
 * data), the page's filters leave only the rows' configurations shown (a
 * `shown` parameter the page sets), and the charts over time zoom and pan along their time axis (an
 * interval selection bound to the scales).
 *
 * @module
 */
import type { ChartSpec } from "../charts/mod.ts";

/** A node of a Vega-Lite spec: a unit (with `mark`) or a layer. */
type Node = Record<string, unknown>;

/** The fields a chart draws one series per value of. */
const SERIES_FIELDS = ["configuration", "driver"] as const;

/** The name of the selection of hidden series. */
export const HIDDEN = "hidden";

/**
 * The name of the list of configurations the page's filters leave shown
 * (`null`: all of them), set by the page's script.
 */
export const SHOWN = "shown";

/** The name of the time axis's zoom. */
export const ZOOM = "zoom";

/** Marks that carry no figure of their own get no tooltip. */
const NO_TOOLTIP = new Set(["text", "rule"]);

/** The views inside a node: its layers, or a facet's inner spec. */
function children(node: Node): Node[] {
  const inner = node.spec as Node | undefined;
  return [
    ...((node.layer as Node[] | undefined) ?? []),
    ...(inner ? [inner] : []),
  ];
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

function channelField(encoding: Node | undefined, channel: string) {
  const def = encoding?.[channel] as Node | undefined;
  return typeof def?.field === "string" ? def.field : undefined;
}

/**
 * The series field of a chart: `configuration` or `driver` when a colour
 * legend shows it, else none (bars labelled on their axis need no legend).
 */
function seriesField(node: Node, inherited?: Node): string | undefined {
  const encoding = { ...inherited, ...(node.encoding as Node | undefined) };
  const color = encoding.color as Node | undefined;
  const field = channelField(encoding, "color");
  if (
    field != null && (SERIES_FIELDS as readonly string[]).includes(field) &&
    color?.legend !== null
  ) return field;
  for (const child of children(node)) {
    const found = seriesField(child, encoding);
    if (found != null) return found;
  }
  return undefined;
}

/** Whether a node, or a layer under it, encodes `field` somewhere. */
function encodes(node: Node, field: string): boolean {
  const encoding = node.encoding as Node | undefined;
  if (
    Object.keys(encoding ?? {}).some((c) => channelField(encoding, c) === field)
  ) return true;
  if ((node.facet as Node | undefined)?.field === field) return true;
  return children(node).some((c) => encodes(c, field));
}

/** The units under a node, in order, with the encoding they inherit. */
function units(node: Node, inherited: Node = {}): [Node, Node][] {
  const encoding = { ...inherited, ...(node.encoding as Node | undefined) };
  if (node.mark != null) return [[node, encoding]];
  return children(node).flatMap((c) => units(c, encoding));
}

/**
 * Adds `filter` to the transforms of every node that has its own data and
 * encodes `field` (the top, or each layer with data of its own).
 */
function addFilter(node: Node, field: string, filter: unknown): void {
  if (node.data != null && encodes(node, field)) {
    node.transform = [
      ...((node.transform as unknown[] | undefined) ?? []),
      { filter },
    ];
    return;
  }
  for (const child of children(node)) addFilter(child, field, filter);
}

/**
 * The legend's entries of hidden series faded (Vega-Lite fades the
 * unselected ones, and here the selection is of hidden series).
 */
function fadeHidden(field: string) {
  const opacity = {
    value: {
      expr: `${HIDDEN}[${JSON.stringify(field)}] && indexof(${HIDDEN}[${
        JSON.stringify(field)
      }], datum.value) >= 0 ? 0.3 : 1`,
    },
  };
  return { symbols: { opacity }, labels: { opacity } };
}

/**
 * The interactive spec of a chart (a new object; the input is unchanged).
 * `interactions` says which were added, for the page's hints and tests.
 */
export function interactiveSpec(chart: ChartSpec): {
  readonly spec: Node;
  readonly seriesField: string | null;
  readonly shownField: string | null;
  readonly zoom: boolean;
} {
  const spec = clone(chart.spec as unknown) as Node;
  const all = units(spec);
  for (const [unit] of all) {
    const mark = typeof unit.mark === "string"
      ? { type: unit.mark }
      : unit.mark as Node;
    if (!NO_TOOLTIP.has(String(mark.type))) mark.tooltip = true;
    // Vega shows a line's tooltip only on its vertices: mark them, unseen.
    if (mark.type === "line" && mark.point == null) mark.point = "transparent";
    unit.mark = mark;
  }
  const field = seriesField(spec) ?? null;
  if (field != null) {
    const owner = all.find(([, encoding]) =>
      channelField(encoding, "color") === field
    );
    if (owner != null) {
      const [unit, encoding] = owner;
      unit.params = [
        ...((unit.params as unknown[] | undefined) ?? []),
        {
          name: HIDDEN,
          select: { type: "point", fields: [field], toggle: "true" },
          bind: "legend",
        },
      ];
      // The legend lives where the colour is encoded: the unit, or above it.
      const colorOwner = (unit.encoding as Node | undefined)?.color != null
        ? unit
        : spec;
      const color = {
        ...(encoding.color as Node),
        ...((colorOwner.encoding as Node | undefined)?.color as Node),
      };
      const legend = (color.legend as Node | undefined) ?? {};
      color.legend = { ...legend, encoding: fadeHidden(field) };
      colorOwner.encoding = { ...(colorOwner.encoding as Node), color };
      addFilter(spec, field, { not: { param: HIDDEN, empty: false } });
    }
  }
  // The page's filters show only the configurations of the rows shown.
  const shownField = field ??
    (encodes(spec, "configuration") ? "configuration" : null);
  if (shownField != null) {
    spec.params = [
      ...((spec.params as unknown[] | undefined) ?? []),
      { name: SHOWN, value: null },
    ];
    addFilter(
      spec,
      shownField,
      `!${SHOWN} || indexof(${SHOWN}, datum[${
        JSON.stringify(shownField)
      }]) >= 0`,
    );
  }
  const timed = all.find(([, encoding]) => channelField(encoding, "x") === "t");
  if (timed != null) {
    const [unit] = timed;
    unit.params = [
      ...((unit.params as unknown[] | undefined) ?? []),
      {
        name: ZOOM,
        select: { type: "interval", encodings: ["x"] },
        bind: "scales",
      },
    ];
  }
  return { spec, seriesField: field, shownField, zoom: timed != null };
}
