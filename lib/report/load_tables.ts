/**
 * The steady-load sections of the report, one table each: the load
 * generator's own ceiling, the rate runs against their schedule, the rate
 * each configuration sustains, what each costs idle, and `sendActivity`
 * under concurrent senders.  Every figure has its unit, and its min–max over
 * the runs when a configuration ran more than once.
 *
 * @module
 */
import {
  count,
  deliveredCell,
  figureCell,
  integer,
  latency,
  mebibytes,
  percent,
  rateUnit,
  seconds,
  spreadOver,
} from "./cells.ts";
import { configurationLabel, label, rateText, rowKind } from "./label.ts";
import { alignedTable } from "./markdown_table.ts";
import { rowNotes, tableLabel } from "./notes.ts";
import type {
  ConfigurationResult,
  IdleProcess,
  LoadRecord,
  MaxRateRecord,
  ResultsDocument,
} from "../results/types.ts";

/** One section of the report: a titled table, its notes and its legend. */
export interface Section {
  /** The heading, e.g. `Steady load`. */
  readonly title: string;
  /** The aligned Markdown table, without a final newline. */
  readonly table: string;
  /** Markdown list items on single rows (why one is not `ok`, …). */
  readonly notes: readonly string[];
  /** Markdown list items on what the columns mean, for `latest.md`. */
  readonly legend: readonly string[];
}

/**
 * The steady-load sections the document has rows for, in a fixed order:
 * `Load generator`, `Steady load`, `Sustained rate`, `Idle cost`,
 * `Concurrent senders`; none for a burst suite.
 */
export function loadSections(document: ResultsDocument): Section[] {
  const of = (kind: ReturnType<typeof rowKind>) =>
    document.results.filter((r) => rowKind(r) === kind);
  const senders = document.results.filter((r) =>
    rowKind(r) === "burst" && r.senders != null
  );
  const recipients = document.params.recipients;
  return [
    generatorSection(of("generator")),
    rateSection(of("rate"), recipients),
    maxRateSection(of("max-rate")),
    idleSection(of("idle")),
    sendersSection(senders),
  ].filter((section) => section != null);
}

/** The notes of every row, in order. */
function notesOf(rows: readonly ConfigurationResult[]): string[] {
  return rows.flatMap(rowNotes);
}

/** A rate in activities per second, with its spread over the runs. */
function rateCell(
  r: ConfigurationResult,
  value: number | null | undefined,
  pick: (load: NonNullable<ConfigurationResult["load"]>) => number,
): string {
  return figureCell(
    value,
    rateUnit,
    spreadOver(r, (run) => run.load == null ? null : pick(run.load)),
  );
}

/**
 * The load generator's row(s): how many `sendActivity` calls per second the
 * sender completes into a queue that drops every message.
 */
function generatorSection(
  rows: readonly ConfigurationResult[],
): Section | null {
  if (rows.length === 0) return null;
  const header = [
    "Configuration",
    "Send loops",
    "Calls/s",
    "sendActivity p50",
    "sendActivity p99",
    "Status",
  ];
  const cells = rows.map((r) => [
    label(r),
    r.senders == null ? "—" : String(r.senders),
    figureCell(
      r.callsPerSecond,
      rateUnit,
      spreadOver(r, (run) => run.callsPerSecond),
    ),
    figureCell(
      r.sendCallMs?.p50,
      latency,
      spreadOver(r, (run) => run.sendCallMs?.p50),
    ),
    figureCell(
      r.sendCallMs?.p99,
      latency,
      spreadOver(r, (run) => run.sendCallMs?.p99),
    ),
    r.status,
  ]);
  return {
    title: "Load generator",
    table: alignedTable(header, cells, [0, 5]),
    notes: notesOf(rows),
    legend: [
      "- **Load generator**: the sender's `sendActivity` calls from several " +
      "closed loops at once into a queue that accepts and drops every " +
      "message; **Calls/s** is the highest rate the generator can offer on " +
      "this machine, the ceiling of every rate below and of the max-rate " +
      "search. Each rate run also reports its own start lag (how late its " +
      "calls started against the schedule).",
    ],
  };
}

/** The achieved rate ± the run's noise, then its spread over the runs. */
function achievedCell(r: ConfigurationResult, load: LoadRecord): string {
  const [value, ...range] = rateCell(
    r,
    load.achievedRate,
    (l) => l.achievedRate,
  ).split(" ");
  const noise = figureCell(load.noise, rateUnit).replace("/s", "");
  return [value, `±${noise}`, ...range].join(" ");
}

/** `kept up` or `fell behind`, and how many runs agreed when not all did. */
function verdictCell(r: ConfigurationResult): string {
  if (r.load == null) return "—";
  const text = r.load.verdict === "kept-up" ? "kept up" : "fell behind";
  const verdicts = (r.runs ?? []).map((run) => run.load?.verdict)
    .filter((v) => v != null);
  const same = verdicts.filter((v) => v === r.load!.verdict).length;
  return same < verdicts.length
    ? `${text} (${same} of ${verdicts.length} runs)`
    : text;
}

/** The rate runs: offered against achieved, backlog, latency, accounting. */
function rateSection(
  rows: readonly ConfigurationResult[],
  recipients: number,
): Section | null {
  if (rows.length === 0) return null;
  const header = [
    "Configuration",
    "Offered",
    "= deliveries",
    "Achieved",
    "Verdict",
    "Backlog at end",
    "Latency p50",
    "Latency p99",
    "sendActivity p99",
    "Delivered / expected",
    "Status",
  ];
  const cells = rows.map((r) => {
    const load = r.load!;
    return [
      tableLabel(r),
      rateCell(r, load.offeredRate, (l) => l.offeredRate),
      figureCell(
        load.offeredRate * recipients,
        rateUnit,
        spreadOver(
          r,
          (run) => run.load == null ? null : run.load.offeredRate * recipients,
        ),
      ),
      achievedCell(r, load),
      verdictCell(r),
      figureCell(
        load.backlogAtEnd,
        count,
        spreadOver(r, (run) => run.load?.backlogAtEnd),
      ),
      figureCell(
        r.latencyMs?.p50,
        latency,
        spreadOver(r, (run) => run.latencyMs?.p50),
      ),
      figureCell(
        r.latencyMs?.p99,
        latency,
        r.spread?.latencyP99Ms ?? spreadOver(r, (run) => run.latencyMs?.p99),
      ),
      figureCell(
        r.sendCallMs?.p99,
        latency,
        spreadOver(r, (run) => run.sendCallMs?.p99),
      ),
      deliveredCell(r),
      r.status,
    ];
  });
  return {
    title: "Steady load",
    table: alignedTable(header, cells, [0, 4, 10]),
    notes: notesOf(rows),
    legend: [
      "- **Offered**: activities scheduled per second over the measured " +
      "window (the second half of the arrival window); **= deliveries**: " +
      "the same times the recipients.",
      "- **Achieved**: activities delivered per second over that window, ± " +
      "how far it may fall short of the offered rate by chance in this run.",
      "- **Verdict**: *fell behind* when the backlog still grew at the end " +
      "of the arrival window, the achieved rate fell short by more than " +
      "that noise, or the backlog at the end exceeded everything due in " +
      "the second half; **Backlog at end**: deliveries scheduled but not " +
      "yet arrived then.",
      "- **Latency**: per delivery, arrival minus its activity's " +
      "*scheduled* start, so a sender behind its schedule hides nothing; " +
      "**sendActivity p99**: the calls' own duration.",
    ],
  };
}

/** Where a max-rate search stopped, in words. */
const STOPPED_BY: Readonly<Record<MaxRateRecord["stoppedBy"], string>> = {
  "bracketed": "bracketed",
  "generator": "generator's limit",
  "time-box": "time box",
  "lowest-failed": "lowest rate failed",
};

/** The probes of a search: `2✓ 4✓ 8✗ 6✓`. */
export function probeList(record: MaxRateRecord): string {
  return record.probes.map((probe) =>
    `${rateText(probe.rate)}${probe.passed ? "✓" : "✗"}`
  ).join(" ");
}

/** The sustained rate, or `< lowest failed` when nothing passed. */
function sustainedCell(value: number | null, below: number | null): string {
  if (value != null) return figureCell(value, rateUnit);
  return below == null ? "—" : `< ${rateText(below)}/s`;
}

/** The max-rate searches: the sustained rate and how the search went. */
function maxRateSection(rows: readonly ConfigurationResult[]): Section | null {
  if (rows.length === 0) return null;
  const header = [
    "Configuration",
    "Max rate",
    "= deliveries",
    "p99 at max",
    "p99 bound",
    "Stopped by",
    "Probes",
    "Search",
  ];
  const cells = rows.map((r) => {
    const record = r.maxRate!;
    const best = record.activitiesPerSecond;
    const recipients = best == null || record.deliveriesPerSecond == null
      ? null
      : record.deliveriesPerSecond / best;
    return [
      tableLabel(r, configurationLabel(r)),
      sustainedCell(best, record.lowestFailedRate),
      sustainedCell(
        record.deliveriesPerSecond,
        record.lowestFailedRate == null || recipients == null
          ? null
          : record.lowestFailedRate * recipients,
      ),
      best == null ? "—" : figureCell(r.latencyMs?.p99, latency),
      figureCell(record.latencyBoundMs, latency),
      STOPPED_BY[record.stoppedBy] ?? record.stoppedBy,
      probeList(record),
      figureCell(record.seconds, seconds),
    ];
  });
  return {
    title: "Sustained rate",
    table: alignedTable(header, cells, [0, 5, 6]),
    notes: notesOf(rows),
    legend: [
      "- **Max rate**: the highest rate probed that the configuration kept " +
      "up with, every delivery arriving and p99 latency (from the " +
      "scheduled start) under the bound; `< R` when even the lowest probe, " +
      "R, failed.",
      "- **Probes**: each rate tried, in order, ✓ passed, ✗ failed; " +
      "**Stopped by**: *bracketed* (the next rate up failed, within 20%), " +
      "*generator's limit*, *time box*, or *lowest rate failed*.",
    ],
  };
}

/** The processes of one role, summed: `worker ×2` for two of them. */
interface RoleTotal {
  readonly role: string;
  readonly count: number;
  readonly cpuPercent: number | null;
  readonly rssBytes: number | null;
  readonly wakeups: number | null;
}

/** Sums what every process knows; `null` when one of them does not. */
function sum(
  processes: readonly IdleProcess[],
  pick: (process: IdleProcess) => number | null,
): number | null {
  let total = 0;
  for (const process of processes) {
    const value = pick(process);
    if (value == null) return null;
    total += value;
  }
  return total;
}

/** The processes of an idle record grouped by role, in first-seen order. */
function byRole(processes: readonly IdleProcess[]): RoleTotal[] {
  const roles = [...new Set(processes.map((p) => p.role))];
  return roles.map((role) => {
    const group = processes.filter((p) => p.role === role);
    return {
      role,
      count: group.length,
      cpuPercent: sum(group, (p) => p.cpuPercent),
      rssBytes: sum(group, (p) => p.rssBytes),
      wakeups: sum(group, (p) => p.wakeups),
    };
  });
}

/** The idle rows: CPU, memory and wake-ups per role, and per configuration. */
function idleSection(rows: readonly ConfigurationResult[]): Section | null {
  const measured = rows.filter((r) => r.idle != null);
  if (measured.length === 0) return null;
  const header = ["Configuration", "Role", "CPU", "RSS", "Wakeups/s"];
  const cells = measured.flatMap((r) => {
    const idle = r.idle!;
    const name = tableLabel(r, configurationLabel(r));
    const perSecond = (wakeups: number | null) =>
      wakeups == null || idle.seconds <= 0 ? null : wakeups / idle.seconds;
    const line = (role: string, total: Omit<RoleTotal, "role" | "count">) => [
      name,
      role,
      figureCell(total.cpuPercent, percent),
      figureCell(total.rssBytes, mebibytes),
      figureCell(perSecond(total.wakeups), rateUnit),
    ];
    const roles = byRole(idle.processes).map((total) =>
      line(
        total.count > 1 ? `${total.role} ×${total.count}` : total.role,
        total,
      )
    );
    const all = idle.processes;
    const totalCpu = sum(all, (p) => p.cpuPercent);
    const totalRow = line("total", {
      cpuPercent: totalCpu,
      rssBytes: sum(all, (p) => p.rssBytes),
      wakeups: sum(all, (p) => p.wakeups),
    });
    totalRow[2] = figureCell(
      totalCpu,
      percent,
      spreadOver(r, (run) => {
        const processes = run.idle?.processes;
        return processes == null ? null : sum(processes, (p) => p.cpuPercent);
      }),
    );
    return [...roles, totalRow];
  });
  const windows = [...new Set(measured.map((r) => r.idle!.seconds))];
  return {
    title: "Idle cost",
    table: alignedTable(header, cells, [0, 1]),
    notes: notesOf(rows),
    legend: [
      `- **Idle cost**: every process of the app and its queue server over ${
        windows.map((s) => `${integer.format(s)} s`).join(", ")
      } with an empty queue, after start-up and a short settling time.`,
      "- **CPU**: CPU time as a share of one core; **RSS**: resident memory " +
      "at the end; **Wakeups/s**: context switches per second of every " +
      "thread alive at the end of the window (a server's whole process " +
      "tree; threads that ended meanwhile are not counted, so a lower " +
      "bound); a queue that polls shows here; **total**: the " +
      "configuration's processes together.",
    ],
  };
}

/** `sendActivity` under N closed-loop send loops at once. */
function sendersSection(
  rows: readonly ConfigurationResult[],
): Section | null {
  if (rows.length === 0) return null;
  const header = [
    "Configuration",
    "Senders",
    "sendActivity p50",
    "sendActivity p99",
    "Calls/s",
    "Status",
  ];
  const cells = rows.map((r) => [
    tableLabel(r, configurationLabel(r)),
    integer.format(r.senders!),
    figureCell(
      r.sendCallMs?.p50,
      latency,
      spreadOver(r, (run) => run.sendCallMs?.p50),
    ),
    figureCell(
      r.sendCallMs?.p99,
      latency,
      spreadOver(r, (run) => run.sendCallMs?.p99),
    ),
    figureCell(
      r.callsPerSecond,
      rateUnit,
      spreadOver(r, (run) => run.callsPerSecond),
    ),
    r.status,
  ]);
  return {
    title: "Concurrent senders",
    table: alignedTable(header, cells, [0, 5]),
    // Their notes are the burst table's.
    notes: [],
    legend: [
      "- **Concurrent senders**: every activity sent by N closed-loop send " +
      "loops at once (the rows `… N senders` of the first table); " +
      "**sendActivity** percentiles are the calls' duration under that " +
      "contention, **Calls/s** calls returned per second of the send loop.",
    ],
  };
}
