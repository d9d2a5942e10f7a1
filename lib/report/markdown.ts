/**
 * Human and machine-readable reports of a suite: the Markdown table (as the
 * original benchmark printed it, plus accounting, latency and CPU, each
 * median with its min–max over the runs), the machine and software the suite
 * ran on, SVG charts, and atomic writes of `latest.json`, `latest.md` and
 * `charts/*.svg`.
 *
 * @module
 */
import { join } from "node:path";
import { type Chart, renderCharts } from "./charts/mod.ts";
import { label } from "./label.ts";
import { renderEnvironment } from "../measure/environment.ts";
import { alignedTable } from "./markdown_table.ts";
import type {
  ConfigurationResult,
  CrashRecord,
  RestartRecord,
  ResultsDocument,
} from "../results/types.ts";

/** Also here for the modules that import it with the table. */
export { label } from "./label.ts";

const integer = new Intl.NumberFormat("en-US");

/** A unit of a column: how to print a median and, bare, its min and max. */
interface Unit {
  readonly scale: number;
  readonly suffix: string;
  readonly digits: number;
}

function cell(
  result: ConfigurationResult,
  key: string,
  value: number | null | undefined,
  pickUnit: (value: number) => Unit,
): string {
  if (value == null) return "—";
  const unit = pickUnit(value);
  const bare = (n: number) => (n / unit.scale).toFixed(unit.digits);
  const spread = result.spread?.[key];
  const range = spread == null
    ? ""
    : ` (${bare(spread.min)}–${bare(spread.max)})`;
  return `${bare(value)}${unit.suffix}${range}`;
}

const SECONDS: Unit = { scale: 1, suffix: " s", digits: 2 };
const seconds = () => SECONDS;
const latency = (ms: number): Unit =>
  ms >= 1000
    ? { scale: 1000, suffix: " s", digits: 2 }
    : { scale: 1, suffix: " ms", digits: ms >= 100 ? 0 : 1 };
const perSecond = (): Unit => ({ scale: 1, suffix: "/s", digits: 1 });
const cpuMs = (): Unit => ({ scale: 1, suffix: " ms", digits: 2 });

function rate(result: ConfigurationResult): string {
  const text = cell(
    result,
    "deliveriesPerSecond",
    result.deliveriesPerSecond,
    perSecond,
  );
  return result.status === "ok" || text === "—" ? text : `${text} so far`;
}

function deliveredCell(result: ConfigurationResult): string {
  if (result.status === "skipped") return "—";
  const share = result.expected > 0
    ? ` (${(100 * result.delivered / result.expected).toFixed(1)}%)`
    : "";
  return `${integer.format(result.delivered)} / ${
    integer.format(result.expected)
  }${result.delivered === result.expected ? "" : share}`;
}

/** One line on a crash the run inflicted. */
function crashNote(result: ConfigurationResult, crash: CrashRecord): string {
  const what = crash.target === "worker"
    ? "consuming process killed with SIGKILL and a fresh one started"
    : "queue server killed with SIGKILL and restarted on the same data";
  return `- **${label(result)}**: ${what} at ${
    crash.atSeconds.toFixed(2)
  } s, ` +
    `after ${integer.format(crash.deliveredBefore)} deliveries`;
}

/** One line on a worker that exited on its own and was started again. */
function restartNote(
  result: ConfigurationResult,
  restart: RestartRecord,
): string {
  return `- **${label(result)}**: at ${restart.atSeconds.toFixed(2)} s, ` +
    `after ${integer.format(restart.deliveredBefore)} deliveries, the ` +
    `${restart.exit}; a fresh worker was started, as a supervisor would`;
}

/** Renders the results as a Markdown table followed by notes on non-ok rows. */
export function renderTable(document: ResultsDocument): string {
  const header = [
    "Configuration",
    "Status",
    "Send",
    "Receive",
    "Total",
    "Delivered / expected",
    "Dup.",
    "Deliveries/s",
    "p99 latency",
    "CPU/delivery app",
    "+ server",
    "= total",
  ];
  // Crash runs add a column: deliveries that never arrived after the crash.
  const crashRuns = document.results.some((r) => r.lost != null);
  if (crashRuns) header.splice(7, 0, "Lost");
  const rows = document.results.map((r) => {
    const row = [
      label(r) + (isStandIn(r) ? " †" : ""),
      r.status,
      cell(r, "sendSeconds", r.sendSeconds, seconds),
      cell(r, "receiveSeconds", r.receiveSeconds, seconds),
      cell(r, "totalSeconds", r.totalSeconds, seconds),
      deliveredCell(r),
      r.status === "skipped" ? "—" : integer.format(r.duplicates),
      rate(r),
      cell(r, "latencyP99Ms", r.latencyMs?.p99, latency),
      cell(r, "cpuMsPerDelivery", r.cpuMsPerDelivery, cpuMs),
      cell(r, "serverCpuMsPerDelivery", r.serverCpuMsPerDelivery, cpuMs),
      totalCpuCell(r),
    ];
    if (crashRuns) {
      row.splice(7, 0, r.lost == null ? "—" : integer.format(r.lost));
    }
    return row;
  });
  const table = alignedTable(header, rows, [0, 1]);
  const standIns = document.results.filter(isStandIn);
  const notes = document.results.flatMap((r) => {
    const out: string[] = [];
    for (const crash of r.crashes ?? []) out.push(crashNote(r, crash));
    for (const restart of r.restarts ?? []) out.push(restartNote(r, restart));
    if (r.status !== "ok") {
      out.push(`- **${label(r)}** ${r.status}: ${r.reason ?? "no reason"}`);
    }
    if (r.status !== "skipped" && (r.unexpected > 0 || r.sendErrors > 0)) {
      out.push(
        `- **${label(r)}**: ${r.unexpected} unexpected inbox requests, ` +
          `${r.sendErrors} failed sends`,
      );
    }
    if (r.duplicatesPerActivity != null) {
      out.push(
        `- **${label(r)}**: duplicate arrivals per activity, largest first: ` +
          r.duplicatesPerActivity.map((n) => integer.format(n)).join(", "),
      );
    }
    if (r.log != null && r.log.warnings + r.log.errors > 0) {
      out.push(
        `- **${label(r)}**: Fedify logged ${
          integer.format(r.log.warnings)
        } warnings and ${integer.format(r.log.errors)} errors` +
          (r.log.path == null ? "" : ` (\`${r.log.path}\`)`),
      );
    }
    for (const o of r.outliers ?? []) {
      out.push(
        `- **${label(r)}**: run ${o.run + 1} is an outlier in ${o.metric} ` +
          `(${o.value.toFixed(2)} against a median of ${o.median.toFixed(2)})`,
      );
    }
    return out;
  });
  if (standIns.length > 0) {
    const specifiers = [
      ...new Set(standIns.map((r) => `\`${r.implementation!.specifier}\``)),
    ];
    notes.unshift(
      `- **†** stand-in: the project's own implementation of ${
        specifiers.join(", ")
      } (the official package is not on this registry); see the README's ` +
        "fidelity table for how it differs",
    );
  }
  return table +
    (notes.length > 0 ? "\n\n" + notes.join("\n") : "") + "\n";
}

/** Whether a result measured a stand-in rather than the official package. */
function isStandIn(result: ConfigurationResult): boolean {
  return result.implementation?.official === false;
}

/**
 * App + server CPU per delivery: the app's alone without a server, unknown
 * (a dash) when the server was not measured (the user's own, or crashed).
 */
function totalCpuCell(result: ConfigurationResult): string {
  const app = result.cpuMsPerDelivery;
  if (app == null) return "—";
  if (result.server == null) return cell(result, "", app, cpuMs);
  const server = result.serverCpuMsPerDelivery;
  if (server == null) return "—";
  return cell(result, "", app + server, cpuMs);
}

/** Renders `latest.md`: parameters, the table, charts, and the environment. */
export function renderMarkdown(
  document: ResultsDocument,
  charts: readonly Chart[] = [],
): string {
  const p = document.params;
  const runs = p.runs ?? 1;
  const figures = charts.map((c) =>
    `### ${c.title}\n\n![${c.title}](charts/${c.name}.svg)\n`
  )
    .join("\n");
  return `# Fedify outbox queue benchmark results

${integer.format(p.total)} activities × ${
    integer.format(p.recipients)
  } recipients = ${
    integer.format(p.total * p.recipients)
  } deliveries per configuration; ${runs} run${runs > 1 ? "s" : ""} each${
    runs > 1 ? " (figures are medians, min–max in parentheses)" : ""
  }; fanout \`${p.fanout}\`; sender key RSA-${p.rsaBits} + Ed25519; ${
    p.workers ?? 1
  } worker process${(p.workers ?? 1) > 1 ? "es" : ""} per shared queue.
Started ${document.startedAt}, finished ${
    document.finishedAt ?? "(still running)"
  }.

${renderTable(document)}
- **Send**: the app's loop of \`sendActivity\` calls (the API's response time).
- **Receive**: first to last delivery at the inbox.
- **Total**: first \`sendActivity\` call to last delivery.
- **Deliveries/s**: distinct deliveries ÷ total.
- **p99 latency**: per delivery, arrival minus the start of its activity's
  \`sendActivity\` call.
${
    document.results.some((r) => r.lost != null)
      ? "- **Lost**: deliveries that never arrived after the crash; the run\n" +
        "  waits for the stall timeout before it calls them lost.\n"
      : ""
  }- **CPU/delivery**: CPU time (user + system, start-up excluded) per
  distinct delivery: **app** is the sender and worker processes, **server**
  the queue server the bench started (its whole process tree; a dash when
  there is none or it was the user's own), **total** their sum.
- **baseline**: no queue and no \`sendActivity\`: every delivery signed and
  POSTed directly, as many at once as the parallelism; the floor.
${logNote(document)}
A configuration that did not finish shows no times, only how far it got.

${figures}${
    document.environment == null
      ? ""
      : "\n## Environment\n\n" + renderEnvironment(document.environment)
  }`;
}

/**
 * Writes through a temporary file and a rename, so a failed write (disk
 * full) leaves the previous file whole, and removes the temporary file.
 */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp-${Deno.pid}`;
  try {
    await Deno.writeTextFile(temp, text);
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * Writes `latest.json`, `charts/*.svg` and `latest.md` into `dir`, each file
 * atomically (the Markdown last, once its charts exist).
 */
export async function writeResults(
  dir: string,
  document: ResultsDocument,
): Promise<void> {
  await Deno.mkdir(join(dir, "charts"), { recursive: true });
  await writeAtomically(
    join(dir, "latest.json"),
    JSON.stringify(document, null, 2) + "\n",
  );
  const charts = await renderCharts(document);
  for (const chart of charts) {
    await writeAtomically(join(dir, "charts", `${chart.name}.svg`), chart.svg);
  }
  await writeAtomically(
    join(dir, "latest.md"),
    renderMarkdown(document, charts),
  );
}

/** The legend's line on Fedify's log files, or nothing without any. */
function logNote(document: ResultsDocument): string {
  const first = document.results.find((r) => r.log?.path != null);
  if (first == null) return "";
  const level = document.params.logLevel ?? "warning";
  return `- **Fedify's log**: what Fedify logged at level ${level} and up in ` +
    `the sender and worker processes, one file per configuration (e.g. ` +
    `\`${first.log!.path}\`), lines prefixed with role/pid; the notes ` +
    "count its warnings and errors.\n";
}
