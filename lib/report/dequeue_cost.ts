/**
 * The report of `deno task dequeue-cost`, named as in every results folder:
 * `latest.md` (the points, the fitted lines and the drain projections,
 * tables declared as columns), `charts/dequeue-cost.svg` (the chart,
 * `charts/dequeue_cost.ts`) and `report.html`, and the writes of those files
 * beside `latest.json`.
 *
 * @module
 */
import { join } from "node:path";
import { count, duration, integer, msFigure, type Unit } from "./cells.ts";
import { dequeueCostChart } from "./charts/dequeue_cost.ts";
import { renderSpecs } from "./charts/mod.ts";
import {
  type Column,
  columnTable,
  figureColumn,
  numberColumn,
  textColumn,
} from "./columns.ts";
import { renderDequeueCostHtml, REPORT_HTML } from "./html/mod.ts";
import { writeAtomically } from "./markdown.ts";
import { provenanceLines } from "./environment.ts";
import { queueCodeLines } from "./implementation.ts";
import type { Environment } from "../results/types.ts";
import {
  type CostFit,
  DEPTH_CALLS,
  type DepthCost,
  DEQUEUE_COST_FILE,
  type DequeueCostDocument,
  type DequeueCostPoint,
} from "../results/dequeue_cost.ts";

/** Also here for the command that prints the points as they come. */
export { msFigure };

/** Seconds with one decimal. */
const tenths = (): Unit => ({ scale: 1, suffix: " s", digits: 1 });

/** A fit's R², three decimals. */
const thousandths = (): Unit => ({ scale: 1, suffix: "", digits: 3 });

/** The table of points. */
const POINT_COLUMNS: readonly Column<DequeueCostPoint>[] = [
  textColumn("Driver", (p) => p.driver),
  figureColumn("Backlog", count, (p) => p.backlog),
  figureColumn("Fill", tenths, (p) => p.fillSeconds),
  numberColumn("Dequeued", (p) => String(p.dequeued)),
  figureColumn("ms/dequeue", msFigure, (p) => p.msPerDequeue),
  figureColumn("p50 gap", msFigure, (p) => p.gapMs?.p50),
  figureColumn("p90 gap", msFigure, (p) => p.gapMs?.p90),
  figureColumn("max gap", msFigure, (p) => p.gapMs?.max),
  textColumn(
    "Status",
    (p) => `${p.status}${p.reason == null ? "" : `: ${p.reason}`}`,
  ),
];

/** The table of fitted lines. */
const FIT_COLUMNS: readonly Column<CostFit>[] = [
  textColumn("Driver", (f) => f.driver),
  textColumn(
    "ms/dequeue ≈",
    (f) =>
      `${f.interceptMs.toFixed(3)} ${f.slopeMs < 0 ? "−" : "+"} ${
        Math.abs(f.slopeMs * 1000).toFixed(4)
      } × backlog/1000`,
  ),
  figureColumn("R²", thousandths, (f) => f.r2),
  textColumn("From backlogs", (f) => f.backlogs.join(", ")),
];

/** The tables of this report are written as they are, unpadded. */
const UNPADDED = { padded: false } as const;

/**
 * Renders `latest.md`; `chart` says whether `charts/dequeue-cost.svg` was
 * drawn, to link it.
 */
export function renderDequeueCost(
  document: DequeueCostDocument,
  chart = false,
): string {
  const { params } = document;
  const lines = [
    "# Dequeue cost against backlog",
    "",
    `${params.dequeues} dequeues timed per backlog (after ${params.warmup} ` +
    "untimed) by the official queue's `listen()` with a no-op handler, " +
    "from the gaps between consecutive messages; messages of about " +
    `${params.messageBytes} bytes of JSON (an outbox message with its ` +
    "activity and keys); every backlog starts from an empty queue.  A " +
    "queue's own timers and notifications run as usual (for example " +
    "`PostgresMessageQueue` 1.8.7 starts another poll loop every 5 s)." +
    ((params.delayed ?? 0) > 0
      ? `  Before each backlog, ${
        integer.format(params.delayed!)
      } messages due in an hour were enqueued: every dequeue (and every ` +
        "`getDepth()` call) ran beside that delayed backlog."
      : ""),
    ...whatRan(document),
    "",
    columnTable(POINT_COLUMNS, document.points, UNPADDED),
  ];
  if (chart) {
    lines.push(
      "",
      `![Time per dequeue against backlog](${DEQUEUE_COST_CHART})`,
    );
  }
  if (document.fits.length > 0) {
    lines.push(
      "",
      "Least-squares fit, ms per dequeue against backlog:",
      "",
      columnTable(FIT_COLUMNS, document.fits, UNPADDED),
    );
  }
  if (document.projections.length > 0) {
    lines.push(
      "",
      `**Projection, not a measurement**: draining a backlog that starts at ` +
        `${integer.format(params.projectionBacklog)} outbox messages ` +
        "(500 activities × 100 recipients), one dequeue at a time, at the " +
        "fitted cost (dequeue alone: no delivery, no concurrent enqueues):",
      "",
      ...document.projections.map((p) =>
        `- projection: ${p.driver} would take about ${
          duration(p.seconds)
        } to drain it, and dequeue about ${
          integer.format(p.dequeuesIn600Seconds)
        } messages in the bench's 600 s limit`
      ),
    );
  }
  const depth = document.depth ?? [];
  if (depth.length > 0) {
    lines.push(
      "",
      "## `getDepth()` call time",
      "",
      `Milliseconds one \`getDepth()\` call took (median of ${DEPTH_CALLS} ` +
        "once an untimed call counted them all) with that many messages " +
        "in the queue, " +
        "filled as above; one queue per driver, filled step by step.  " +
        "Queues whose installed version has no `getDepth()` say so.",
      "",
      columnTable(
        depthColumns(params.depthBacklogs ?? []),
        depth,
        UNPADDED,
      ),
    );
  }
  return lines.join("\n") + "\n";
}

/**
 * Which code each driver ran, and the commit and command, as far as the
 * file records them: an empty line and the list, or nothing.
 */
function whatRan(document: DequeueCostDocument): string[] {
  const code = queueCodeLines(
    Object.entries(document.implementations ?? {}).map((
      [driver, implementation],
    ) => ({ driver, implementation })),
  );
  const environment = document.environment as
    | Pick<Environment, "commit" | "noCommitReason" | "command">
    | null;
  const lines = [
    ...code,
    ...(environment == null ? [] : provenanceLines(environment)),
  ];
  return lines.length > 0 ? ["", ...lines] : [];
}

/** The `getDepth()` table's columns: one per backlog. */
function depthColumns(backlogs: readonly number[]): Column<DepthCost>[] {
  return [
    textColumn("Driver", (d) => d.driver),
    textColumn(
      "getDepth()",
      (d) => d.supported ? "yes" : "not in the installed version",
    ),
    ...backlogs.map((backlog) =>
      figureColumn(
        `ms at ${integer.format(backlog)}`,
        msFigure,
        (d: DepthCost) => d.callMs?.[String(backlog)],
      )
    ),
    textColumn("Note", (d) => d.reason ?? ""),
  ];
}

/**
 * Renders `charts/dequeue-cost.svg`: ms per dequeue against backlog, one line per
 * driver; `null` when no point has a time.
 */
export async function renderDequeueCostChart(
  document: DequeueCostDocument,
): Promise<string | null> {
  const spec = dequeueCostChart(document);
  if (spec == null) return null;
  const [chart] = await renderSpecs([spec]);
  return chart.svg;
}

/** The chart's file, relative to the folder. */
export const DEQUEUE_COST_CHART = "charts/dequeue-cost.svg";

/**
 * Writes `latest.md`, `report.html` and, when there is a time to draw,
 * `charts/dequeue-cost.svg` into `dir` from the document (nothing is
 * measured).
 * @returns The files written, relative to `dir`.
 */
export async function writeDequeueCostReport(
  dir: string,
  document: DequeueCostDocument,
): Promise<string[]> {
  const svg = await renderDequeueCostChart(document);
  const written = [];
  if (svg != null) {
    await Deno.mkdir(join(dir, "charts"), { recursive: true });
    await writeAtomically(join(dir, DEQUEUE_COST_CHART), svg);
    written.push(DEQUEUE_COST_CHART);
  }
  await writeAtomically(
    join(dir, "latest.md"),
    renderDequeueCost(document, svg != null),
  );
  await writeAtomically(
    join(dir, REPORT_HTML),
    await renderDequeueCostHtml(document),
  );
  return ["latest.md", ...written, REPORT_HTML];
}

/**
 * Writes `latest.json`, then its Markdown, chart and HTML report, into
 * `dir` (created when missing), each file atomically.
 */
export async function writeDequeueCost(
  dir: string,
  document: DequeueCostDocument,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomically(
    join(dir, DEQUEUE_COST_FILE),
    JSON.stringify(document, null, 2) + "\n",
  );
  await writeDequeueCostReport(dir, document);
}
