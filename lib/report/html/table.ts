/**
 * The headline table of `report.html` as data: one row per configuration
 * (or, for a dequeue-cost folder, per driver and backlog), each figure with
 * the exact number of the results file beside the text the Markdown report
 * prints for it, so that the page can sort on the number and a test can
 * check the one against the other.  Every cell is short, so that every row
 * stays one line high: a reason or an estimate's basis is the cell's
 * tooltip (its status, marked ⓘ, or its estimate), and the page's notes
 * under the table say it again.
 *
 * @module
 */
import { basename } from "node:path";
import {
  count,
  cpuMs,
  deliveredCell,
  duration,
  figureCell,
  integer,
  latency,
  msFigure,
  perSecond,
  seconds,
  type Unit,
} from "../cells.ts";

import { configurationLabel, label, rowKind } from "../label.ts";
import type {
  DequeueCostDocument,
  DequeueCostPoint,
} from "../../results/dequeue_cost.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
} from "../../results/types.ts";

/** One cell: what it shows and, for a figure, the number it shows. */
export interface Cell {
  /** The text shown. */
  readonly text: string;
  /** The number in the results file, for sorting and checking. */
  readonly value?: number | null;
  /** Where the number is in the row's JSON object, e.g. `latencyMs.p99`. */
  readonly key?: string;
  /** A link, relative to the report. */
  readonly href?: string;
  /** Shown on hover. */
  readonly title?: string;
}

/** One row and the values the page filters it by. */
export interface Row {
  /** The row's index in the results file's list (`results` or `points`). */
  readonly index: number;
  /** The cells, in column order. */
  readonly cells: readonly Cell[];
  /** `driver`, `parallelism` and `status`, as filter values. */
  readonly filters: Readonly<Record<string, string>>;
  /** Whether the row did not finish (marked on the page). */
  readonly incomplete: boolean;
  /**
   * The names its series may have in the charts (by configuration or by
   * driver), for the page's filters to show only the rows' series.
   */
  readonly labels: readonly string[];
}

/** The table: column headers, whether each is numeric, and the rows. */
export interface Table {
  /** Headers and whether the column sorts as numbers. */
  readonly columns: readonly {
    readonly name: string;
    readonly numeric: boolean;
  }[];
  /** The rows, in the results file's order. */
  readonly rows: readonly Row[];
  /** The filters the page offers, in order. */
  readonly filters: readonly string[];
  /** The JSON list the rows index (`results` or `points`). */
  readonly list: string;
}

function figure(
  value: number | null | undefined,
  unit: (value: number) => Unit,
  key: string,
): Cell {
  return { text: figureCell(value, unit), value: value ?? null, key };
}

/** The mark of a cell whose tooltip says more. */
export const MORE = "ⓘ";

/**
 * The status of a row: `ok`, or `incomplete ⓘ` (failed, skipped) with why
 * as its tooltip.
 */
export function statusCell(
  status: string,
  reason: string | null | undefined,
): Cell {
  if (status === "ok") return { text: status };
  return {
    text: `${status} ${MORE}`,
    title: `${status}: ${reason ?? "no reason"}`,
  };
}

/** Seconds to three significant digits at most: `~58.3 s`, `~2,247 s`. */
const roughSeconds = (value: number): Unit => ({
  scale: 1,
  suffix: " s",
  digits: value >= 100 ? 0 : value >= 10 ? 1 : 2,
  grouping: true,
});

/**
 * A stopped row's estimated total, `~2,247 s ⓘ`, with its bounds and basis
 * as its tooltip; a dash for a row without one.
 */
function estimateCell(r: ConfigurationResult): Cell {
  const key = "estimate.totalSeconds";
  const e = r.estimate;
  if (e == null) return figure(null, roughSeconds, key);
  return {
    text: `~${figureCell(e.totalSeconds, roughSeconds)} ${MORE}`,
    value: e.totalSeconds,
    key,
    title: `an estimate, not a measurement: about ${
      duration(e.totalSeconds)
    } from the first sendActivity call to the last delivery, between ${
      duration(e.lowSeconds)
    } and ${
      duration(e.highSeconds)
    } (stopped by the ${e.stoppedBy}); ${e.basis}`,
  };
}

/** The link to a configuration's log, in the folder's `logs/`. */
function logCell(r: ConfigurationResult): Cell {
  const path = r.log?.path;
  if (path == null) return { text: "—" };
  return {
    text: "log",
    href: `logs/${basename(path)}`,
    title: `${path}: ${integer.format(r.log!.warnings)} warnings, ${
      integer.format(r.log!.errors)
    } errors`,
  };
}

const NUMERIC = new Set([
  "Parallelism",
  "Send",
  "Receive",
  "Total",
  "Total (estimate)",
  "Delivered",
  "Dup.",
  "Lost",
  "Deliveries/s",
  "p99 latency",
  "CPU/delivery app",
  "+ server",
  "Backlog",
  "Fill",
  "Dequeued",
  "ms/dequeue",
  "p50 gap",
  "p90 gap",
  "max gap",
]);

function columns(names: readonly string[]) {
  return names.map((name) => ({ name, numeric: NUMERIC.has(name) }));
}

/** The headline table of a suite's results: every row of the file. */
export function resultsTable(document: ResultsDocument): Table {
  // Crash runs count the deliveries lost to the crash.
  const lost = document.results.some((r) => r.lost != null);
  const rows = document.results.map((r, index): Row => ({
    index,
    incomplete: r.status !== "ok",
    labels: [
      ...new Set([
        label(r),
        `${label(r)} (${r.status})`,
        configurationLabel(r),
        r.driver,
        // The scaling chart's line of the driver.
        label({
          driver: r.driver,
          parallelism: 1,
          parallelImpl: r.parallelImpl,
        }),
      ]),
    ],
    filters: {
      driver: r.driver,
      parallelism: String(r.parallelism),
      status: r.status,
    },
    cells: [
      { text: label(r) },
      { text: rowKind(r) },
      { text: r.driver },
      { text: String(r.parallelism), value: r.parallelism, key: "parallelism" },
      statusCell(r.status, r.reason),
      figure(r.sendSeconds, seconds, "sendSeconds"),
      figure(r.receiveSeconds, seconds, "receiveSeconds"),
      figure(r.totalSeconds, seconds, "totalSeconds"),
      estimateCell(r),
      {
        text: deliveredCell(r),
        // A skipped row shows no count: it never ran.
        value: r.status === "skipped" ? null : r.delivered,
        key: "delivered",
      },
      figure(r.duplicates, count, "duplicates"),
      ...(lost ? [figure(r.lost, count, "lost")] : []),
      figure(r.deliveriesPerSecond, perSecond, "deliveriesPerSecond"),
      figure(r.latencyMs?.p99, latency, "latencyMs.p99"),
      figure(r.cpuMsPerDelivery, cpuMs, "cpuMsPerDelivery"),
      figure(r.serverCpuMsPerDelivery, cpuMs, "serverCpuMsPerDelivery"),
      logCell(r),
    ],
  }));
  return {
    columns: columns([
      "Configuration",
      "Kind",
      "Driver",
      "Parallelism",
      "Status",
      "Send",
      "Receive",
      "Total",
      "Total (estimate)",
      "Delivered",
      "Dup.",
      ...(lost ? ["Lost"] : []),
      "Deliveries/s",
      "p99 latency",
      "CPU/delivery app",
      "+ server",
      "Log",
    ]),
    rows,
    filters: ["driver", "parallelism", "status"],
    list: "results",
  };
}

const tenths = (): Unit => ({ scale: 1, suffix: " s", digits: 1 });

/** The table of a dequeue-cost folder: one row per driver and backlog. */
export function dequeueCostTable(document: DequeueCostDocument): Table {
  const rows = document.points.map((p: DequeueCostPoint, index): Row => ({
    index,
    incomplete: p.status !== "ok",
    labels: [p.driver],
    filters: { driver: p.driver, status: p.status },
    cells: [
      { text: p.driver },
      figure(p.backlog, count, "backlog"),
      statusCell(p.status, p.reason),
      figure(p.fillSeconds, tenths, "fillSeconds"),
      figure(p.dequeued, count, "dequeued"),
      figure(p.msPerDequeue, msFigure, "msPerDequeue"),
      figure(p.gapMs?.p50, msFigure, "gapMs.p50"),
      figure(p.gapMs?.p90, msFigure, "gapMs.p90"),
      figure(p.gapMs?.max, msFigure, "gapMs.max"),
      // Shortened on the page to one line; whole in its tooltip.
      { text: p.reason ?? "", title: p.reason ?? undefined },
    ],
  }));
  return {
    columns: columns([
      "Driver",
      "Backlog",
      "Status",
      "Fill",
      "Dequeued",
      "ms/dequeue",
      "p50 gap",
      "p90 gap",
      "max gap",
      "Note",
    ]),
    rows,
    filters: ["driver", "status"],
    list: "points",
  };
}
