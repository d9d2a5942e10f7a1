/**
 * What every chart spec starts from: the configurations with their labels
 * and colours, the unit of the time axes, and the suite's subtitle, all read
 * once from the results document; and the shape of a chart spec.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { label, rowKind } from "../label.ts";
import { MAX_POINTS } from "./resample.ts";
import { paletteColor, seriesDash } from "./theme.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
} from "../../results/mod.ts";

/** A chart before rendering: its names and its Vega-Lite spec. */
export interface ChartSpec {
  /** File-name-safe name, e.g. `send-receive`. */
  readonly name: string;
  /** Human-readable title, e.g. `Send and receive time`. */
  readonly title: string;
  /** The Vega-Lite spec to render. */
  readonly spec: TopLevelSpec;
  /**
   * Configurations the chart leaves out, each with why (`redis ×4: timeout
   * after 600 s`), named under the chart.
   */
  readonly omitted?: readonly string[];
}

/** What the chart specs read from the document, worked out once. */
export interface Context {
  /** The document drawn. */
  readonly document: ResultsDocument;
  /**
   * Configurations with a display label, in document order: the burst rows
   * (steady-load rows have charts of their own, `load_chart.ts` and `idle.ts`).
   */
  readonly entries: readonly Entry[];
  /** Every label that may get a colour, and its colour. */
  readonly colors: { readonly domain: string[]; readonly range: string[] };
  /**
   * The same labels' dash patterns, for lines: all solid up to ten
   * configurations, else a pattern per ten, so lines whose colours repeat
   * still differ.
   */
  readonly dashes: {
    readonly domain: string[];
    readonly range: (readonly number[])[];
  };
  /** How time axes count. */
  readonly time: TimeUnit;
  /** The suite's parameters, under every chart's title. */
  readonly subtitle: string;
}

/** A configuration and its display label. */
export interface Entry {
  /** The configuration's result. */
  readonly result: ConfigurationResult;
  /** `redis ×4`, plus `(incomplete)` when not `ok`. */
  readonly label: string;
}

/** The unit of the time axes, and the resolution of the lines over time. */
export interface TimeUnit {
  /** The unit's symbol: `s`, `min` or `h`. */
  readonly name: string;
  /** Seconds in one unit. */
  readonly seconds: number;
  /** Width of the buckets long series are merged into, seconds. */
  readonly bucketSeconds: number;
  /** The end of the longest timeline, seconds. */
  readonly end: number;
}

/**
 * How a chart names a configuration it leaves out: its label, status and
 * reason (`redis ×4 (incomplete: timed out after 600 s)`).
 */
export function omittedNote(result: ConfigurationResult): string {
  const why = result.status === "ok"
    ? "no figure recorded"
    : `${result.status}${result.reason == null ? "" : `: ${result.reason}`}`;
  return `${label(result)} (${why})`;
}

/**
 * Reads the context of the charts from the document: labels of the burst
 * rows in document order, a colour for every configuration with something
 * to draw (failed and skipped ones without data get none, so that colours
 * are not spent on them), the time unit and the subtitle.
 */
export function chartContext(document: ResultsDocument): Context {
  const bursts = document.results.filter((r) => rowKind(r) === "burst");
  const entries = bursts.map((result) => ({
    result,
    label: result.status === "ok"
      ? label(result)
      : `${label(result)} (${result.status})`,
  }));
  const colored = entries.filter(({ result }) =>
    result.status !== "skipped" && result.status !== "failed" ||
    result.timeline != null || result.latencyMs != null
  );
  const domain = colored.map((entry) => entry.label);
  const range = domain.map((_, i) => paletteColor(i));
  const { params } = document;
  const integer = new Intl.NumberFormat("en-US");
  const subtitle = `${integer.format(params.total)} activities × ${
    integer.format(params.recipients)
  } recipients = ${
    integer.format(params.total * params.recipients)
  } deliveries · RSA-${params.rsaBits} · fanout ${params.fanout}`;
  return {
    document,
    entries,
    colors: { domain, range },
    dashes: { domain, range: domain.map((_, i) => seriesDash(i)) },
    time: timeUnit(entries),
    subtitle,
  };
}

/**
 * The time unit for the longest timeline (hours past 3 h, minutes past
 * 10 min), and a bucket width that keeps every line within
 * {@link MAX_POINTS} points: the runs' own width when that is enough, else
 * the next round width.
 */
function timeUnit(entries: readonly Entry[]): TimeUnit {
  let end = 0;
  let bucket = 0;
  for (const { result } of entries) {
    const timeline = result.timeline;
    if (timeline == null) continue;
    bucket = Math.max(bucket, timeline.bucketSeconds);
    // Deliveries count from bucket starts; the other series are points.
    const rate = timeline.deliveries.at(-1);
    if (rate != null) end = Math.max(end, rate[0] + timeline.bucketSeconds);
    for (const series of [timeline.cumulative, timeline.queueDepth]) {
      const last = series.at(-1);
      if (last != null) end = Math.max(end, last[0]);
    }
  }
  const nice = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  const wanted = Math.max(bucket, end / MAX_POINTS);
  const bucketSeconds = bucket > 0 && wanted <= bucket
    ? bucket
    : nice.find((width) => width >= wanted) ?? Math.ceil(wanted / 3600) * 3600;
  if (end > 3 * 3600) return { name: "h", seconds: 3600, bucketSeconds, end };
  if (end > 600) return { name: "min", seconds: 60, bucketSeconds, end };
  return { name: "s", seconds: 1, bucketSeconds, end };
}
