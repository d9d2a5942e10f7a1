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
import {
  type Column,
  columnTable,
  figureColumn,
  numberColumn,
  runsColumn,
  textColumn,
} from "./columns.ts";
import { configurationLabel, label, rateText, rowKind } from "./label.ts";
import { rowNotes, tableLabel } from "./notes.ts";
import type {
  ConfigurationResult,
  IdleProcess,
  LoadRecord,
  MaxRateRecord,
  ResultsDocument,
  Spread,
} from "../results/mod.ts";

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

/** The `Status` column every table but two ends with. */
const STATUS = textColumn<ConfigurationResult>("Status", (r) => r.status);

/** `sendActivity`'s p50 or p99 over a configuration's runs. */
function sendCallColumn(
  percentile: "p50" | "p99",
): Column<ConfigurationResult> {
  return runsColumn(
    `sendActivity ${percentile}`,
    latency,
    (run) => run.sendCallMs?.[percentile],
  );
}

/** The load generator's own table. */
const GENERATOR_COLUMNS: readonly Column<ConfigurationResult>[] = [
  textColumn("Configuration", label),
  numberColumn(
    "Send loops",
    (r) => r.senders == null ? "—" : String(r.senders),
  ),
  runsColumn("Calls/s", rateUnit, (run) => run.callsPerSecond),
  sendCallColumn("p50"),
  sendCallColumn("p99"),
  STATUS,
];

/**
 * The load generator's row(s): how many `sendActivity` calls per second the
 * sender completes into a queue that drops every message.
 */
function generatorSection(
  rows: readonly ConfigurationResult[],
): Section | null {
  if (rows.length === 0) return null;
  return {
    title: "Load generator",
    table: columnTable(GENERATOR_COLUMNS, rows),
    notes: notesOf(rows),
    legend: [
      "- **Load generator**: the sender's `sendActivity` calls from several " +
      "closed loops at once into a queue that accepts and drops every " +
      "message; **Calls/s** is the highest rate the generator can offer on " +
      "this machine, the ceiling of every rate below and of the max-rate " +
      "search (with --runtime, one row per runtime of the app, the ceiling " +
      "of that runtime's rows). Each rate run also reports its own start lag (how late its " +
      "calls started against the schedule).",
    ],
  };
}

/** The achieved rate ± the run's noise, then its spread over the runs. */
function achievedCell(r: ConfigurationResult, load: LoadRecord): string {
  const [value, ...range] = figureCell(
    load.achievedRate,
    rateUnit,
    spreadOver(r, (run) => run.load?.achievedRate),
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

/** The rate runs' table, whose activities go to `recipients` inboxes each. */
function rateColumns(recipients: number): Column<ConfigurationResult>[] {
  return [
    textColumn("Configuration", (r) => tableLabel(r)),
    runsColumn("Offered", rateUnit, (run) => run.load?.offeredRate),
    runsColumn(
      "= deliveries",
      rateUnit,
      (run) => run.load == null ? null : run.load.offeredRate * recipients,
    ),
    numberColumn("Achieved", (r) => achievedCell(r, r.load!)),
    textColumn("Verdict", verdictCell),
    runsColumn("Backlog at end", count, (run) => run.load?.backlogAtEnd),
    runsColumn("Latency p50", latency, (run) => run.latencyMs?.p50),
    figureColumn(
      "Latency p99",
      latency,
      (r) => r.latencyMs?.p99,
      (r) =>
        r.spread?.latencyP99Ms ?? spreadOver(r, (run) => run.latencyMs?.p99),
    ),
    sendCallColumn("p99"),
    numberColumn("Delivered / expected", deliveredCell),
    STATUS,
  ];
}

/** The rate runs: offered against achieved, backlog, latency, accounting. */
function rateSection(
  rows: readonly ConfigurationResult[],
  recipients: number,
): Section | null {
  if (rows.length === 0) return null;
  return {
    title: "Steady load",
    table: columnTable(rateColumns(recipients), rows),
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

/** The probes of a search, ✓ kept up: `2✓ 8✓ 32✗ 16✓`. */
export function probeList(record: MaxRateRecord): string {
  return record.probes.map((probe) =>
    `${rateText(probe.rate)}${probe.passed ? "✓" : "✗"}`
  ).join(" ");
}

/** The capacity, or `< lowest failed` when nothing kept up. */
function sustainedCell(value: number | null, below: number | null): string {
  if (value != null) return figureCell(value, rateUnit);
  return below == null ? "—" : `< ${rateText(below)}/s`;
}

/** A max-rate search's configuration and record. */
interface Search {
  readonly result: ConfigurationResult;
  readonly record: MaxRateRecord;
}

/**
 * The deliveries per second of the lowest rate that failed: that rate times
 * the recipients, known only when some rate passed.
 */
function lowestFailedDeliveries({ record }: Search): number | null {
  const best = record.activitiesPerSecond;
  if (
    best == null || record.deliveriesPerSecond == null ||
    record.lowestFailedRate == null
  ) {
    return null;
  }
  return record.lowestFailedRate * (record.deliveriesPerSecond / best);
}

/** The latency verdict at the capacity: within or over the bound. */
function latencyVerdict(record: MaxRateRecord): string {
  if (record.latencyBoundMet == null) return "—";
  return record.latencyBoundMet ? "within" : "over";
}

/**
 * The p99 latency at the capacity: the record's own figure, or (in files
 * without it) the p99 of the run the record sits on.
 */
function p99AtCapacity({ result, record }: Search): number | null {
  if (record.activitiesPerSecond == null) return null;
  if (record.p99AtCapacityMs !== undefined) return record.p99AtCapacityMs;
  return result.latencyMs?.p99 ?? null;
}

/** The max-rate searches' table. */
const MAX_RATE_COLUMNS: readonly Column<Search>[] = [
  textColumn(
    "Configuration",
    ({ result }) => tableLabel(result, configurationLabel(result)),
  ),
  numberColumn(
    "Capacity",
    ({ record }) =>
      sustainedCell(record.activitiesPerSecond, record.lowestFailedRate),
  ),
  numberColumn(
    "= deliveries",
    (search) =>
      sustainedCell(
        search.record.deliveriesPerSecond,
        lowestFailedDeliveries(search),
      ),
  ),
  figureColumn(
    "Resolution",
    percent,
    ({ record }) => record.resolution == null ? null : record.resolution * 100,
  ),
  figureColumn("p99 at capacity", latency, p99AtCapacity),
  figureColumn("p99 bound", latency, ({ record }) => record.latencyBoundMs),
  textColumn("Latency", ({ record }) => latencyVerdict(record)),
  textColumn(
    "Stopped by",
    ({ record }) => STOPPED_BY[record.stoppedBy] ?? record.stoppedBy,
  ),
  textColumn("Probes", ({ record }) => probeList(record)),
  figureColumn("Search", seconds, ({ record }) => record.seconds),
];

/** The max-rate searches: the capacity, its latency and the search. */
function maxRateSection(rows: readonly ConfigurationResult[]): Section | null {
  if (rows.length === 0) return null;
  const searches = rows.map((result) => ({ result, record: result.maxRate! }));
  return {
    title: "Sustained rate",
    table: columnTable(MAX_RATE_COLUMNS, searches),
    notes: notesOf(rows),
    legend: [
      "- **Capacity**: the highest rate probed that the configuration kept " +
      "up with, whatever its latency: every delivery arrived by the end " +
      "of the probe's drain window, and the backlog's peak over the last " +
      "quarter of the arrival window exceeded its peak over the third by " +
      "at most 5% of that quarter's deliveries; `< R` when even the " +
      "lowest probe, R, failed.  Results without a *Latency* verdict " +
      "counted p99 under the bound as part of keeping up.",
      "- **Resolution**: the final bracket's width, the lowest rate not " +
      "kept up over the capacity, minus one; the capacity lies in that " +
      "bracket.  — when nothing failed or nothing kept up.",
      "- **p99 at capacity**: p99 latency (from the scheduled start) of " +
      "the probe at the capacity; **Latency**: *within* or *over* the p99 " +
      "bound there, a verdict of its own.",
      "- **Probes**: each rate tried, in order, ✓ kept up, ✗ did not; " +
      "**Stopped by**: *bracketed* (within the resolution), *generator's " +
      "limit*, *time box*, or *lowest rate failed*.",
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

/** One line of the idle table: a role's processes, or all of them. */
interface IdleLine {
  /** The configuration's label. */
  readonly name: string;
  /** `worker`, `worker ×2`, or `total`. */
  readonly role: string;
  readonly cpuPercent: number | null;
  /** The CPU's min–max over the runs (on the `total` line). */
  readonly cpuSpread?: Spread;
  readonly rssBytes: number | null;
  readonly wakeupsPerSecond: number | null;
}

/** The idle table. */
const IDLE_COLUMNS: readonly Column<IdleLine>[] = [
  textColumn("Configuration", (line) => line.name),
  textColumn("Role", (line) => line.role),
  figureColumn(
    "CPU",
    percent,
    (line) => line.cpuPercent,
    (line) => line.cpuSpread,
  ),
  figureColumn("RSS", mebibytes, (line) => line.rssBytes),
  figureColumn("Wakeups/s", rateUnit, (line) => line.wakeupsPerSecond),
];

/** A configuration's idle lines: one per role, then their total. */
function idleLines(r: ConfigurationResult): IdleLine[] {
  const idle = r.idle!;
  const name = tableLabel(r, configurationLabel(r));
  const line = (
    role: string,
    total: Omit<RoleTotal, "role" | "count">,
  ): IdleLine => ({
    name,
    role,
    cpuPercent: total.cpuPercent,
    rssBytes: total.rssBytes,
    wakeupsPerSecond: total.wakeups == null || idle.seconds <= 0
      ? null
      : total.wakeups / idle.seconds,
  });
  const roles = byRole(idle.processes).map((total) =>
    line(total.count > 1 ? `${total.role} ×${total.count}` : total.role, total)
  );
  const all = idle.processes;
  const total = line("total", {
    cpuPercent: sum(all, (p) => p.cpuPercent),
    rssBytes: sum(all, (p) => p.rssBytes),
    wakeups: sum(all, (p) => p.wakeups),
  });
  const cpuSpread = spreadOver(r, (run) => {
    const processes = run.idle?.processes;
    return processes == null ? null : sum(processes, (p) => p.cpuPercent);
  });
  return [...roles, { ...total, cpuSpread }];
}

/** The idle rows: CPU, memory and wake-ups per role, and per configuration. */
function idleSection(rows: readonly ConfigurationResult[]): Section | null {
  const measured = rows.filter((r) => r.idle != null);
  if (measured.length === 0) return null;
  const windows = [...new Set(measured.map((r) => r.idle!.seconds))];
  return {
    title: "Idle cost",
    table: columnTable(IDLE_COLUMNS, measured.flatMap(idleLines)),
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

/** The table of bursts by concurrent send loops. */
const SENDERS_COLUMNS: readonly Column<ConfigurationResult>[] = [
  textColumn("Configuration", (r) => tableLabel(r, configurationLabel(r))),
  numberColumn("Senders", (r) => integer.format(r.senders!)),
  sendCallColumn("p50"),
  sendCallColumn("p99"),
  runsColumn("Calls/s", rateUnit, (run) => run.callsPerSecond),
  STATUS,
];

/** `sendActivity` under N closed-loop send loops at once. */
function sendersSection(
  rows: readonly ConfigurationResult[],
): Section | null {
  if (rows.length === 0) return null;
  return {
    title: "Concurrent senders",
    table: columnTable(SENDERS_COLUMNS, rows),
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
