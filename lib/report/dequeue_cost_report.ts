/**
 * The report of `deno task dequeue-cost`, named as in every results folder:
 * `latest.md` (the points, the fitted lines and the drain projections,
 * tables declared as columns), `charts/dequeue-cost.svg` (the chart,
 * `charts/dequeue_cost_chart.ts`) and `report.html`, as the files to write
 * beside `latest.json` (`lib/cli/write.ts` writes them).
 *
 * @module
 */
import { count, duration, integer, msFigure, type Unit } from "./cells.ts";
import { dequeueCostChart } from "./charts/dequeue_cost_chart.ts";
import { renderSpecs } from "./charts/mod.ts";
import {
  type Column,
  columnTable,
  figureColumn,
  numberColumn,
  textColumn,
} from "./columns.ts";
import { renderDequeueCostHtml, REPORT_HTML } from "./html/mod.ts";
import type { ReportFiles } from "./files.ts";
import { provenanceLines } from "./environment_section.ts";
import { queueCodeLines } from "./implementation_text.ts";
import type { Environment } from "../results/mod.ts";
import {
  type CostFit,
  DEPTH_CALLS,
  type DepthCost,
  type DequeueCostDocument,
  type DequeueCostPoint,
} from "../results/dequeue_cost_record.ts";

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
 * The report of a dequeue-cost document beside its `latest.json`, file by
 * file in the order to write them: `charts/dequeue-cost.svg` when there is
 * a time to draw, then `latest.md` and `report.html` (nothing is
 * measured).  Each is rendered when it is asked for; `lib/cli/write.ts`
 * writes them.
 */
export async function* dequeueCostReportFiles(
  document: DequeueCostDocument,
): ReportFiles {
  const svg = await renderDequeueCostChart(document);
  if (svg != null) yield { path: DEQUEUE_COST_CHART, text: svg };
  yield { path: "latest.md", text: renderDequeueCost(document, svg != null) };
  yield { path: REPORT_HTML, text: await renderDequeueCostHtml(document) };
}
