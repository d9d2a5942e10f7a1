/**
 * "Which queue should I use?", answered from results files alone: the
 * deliveries per second a server needs at peak against each queue's
 * measured sustained rate, with its latency, crash losses and CPU, every
 * figure tied to the file it came from.  Pure: `lib/cli/advise.ts` reads
 * the files and prints `renderAdvice` (`lib/report/capacity_plan.ts`).
 *
 * Which file says what is read from the files' own parameters: the file
 * with the most max-rate searches gives capacity, and latency and CPU per
 * delivery at the kept-up rate nearest the question's, and idle cost; files
 * with `crash.workerAt` or `crash.serverAt` give what crashes lost, as a
 * range over every file that crashed the configuration (see
 * `advice_crash.ts`); a plain burst (no load, crash or inbox misbehaviour)
 * gives CPU per delivery only when no steady run has it.
 *
 * @module
 */
import {
  BASELINE_DRIVER,
  type ConfigurationResult,
  GENERATOR_DRIVER,
  type MaxRateRecord,
  type ResultsDocument,
  type RuntimeName,
} from "../results/mod.ts";
import { MAX_RECIPIENTS } from "../params/mod.ts";
import {
  type CrashEvidence,
  crashEvidence,
  type Source,
} from "./advice_crash.ts";

/** What the operator asks. */
export interface Question {
  /** Recipients per post. */
  readonly followers: number;
  /** Posts per minute at peak. */
  readonly postsPerMinute: number;
  /** Whether a crash may not lose a delivery. */
  readonly durable: boolean;
  /** The runtime the app runs on; Deno when absent. */
  readonly runtime?: RuntimeName;
  /** The cores the app runs on (`--cpus`); every core when absent. */
  readonly cpus?: number;
  /** The round trip to the queue server, ms; loopback when absent. */
  readonly queueRttMs?: number;
}

/**
 * What a queue delivered in a burst deployed as the question asks (its
 * cores, its round trip to the server), beside the same configuration in
 * the same file on every core or at 0 ms.
 */
export interface DeployedRun {
  /** The row's id, e.g. `redis-x4-rtt5`. */
  readonly id: string;
  /** `ParallelMessageQueue` workers. */
  readonly parallelism: number;
  /** The row's status: a stopped row's rate is its rate so far. */
  readonly status: string;
  /** Deliveries per second (so far, for a row that did not finish). */
  readonly deliveriesPerSecond: number | null;
  /**
   * The same configuration's deliveries per second at 0 ms added, or on
   * the most cores the file measured; `null` when the file has none.
   */
  readonly reference: number | null;
  /** The results file. */
  readonly source: string;
}

/** Whether the results cover the question's cores and round trip. */
export interface DeploymentCoverage {
  /** Whether some file measured the question's deployment. */
  readonly covered: boolean;
  /** The round trips measured, ms, over every file. */
  readonly measuredRttMs: readonly number[];
  /** The core counts measured, over every file. */
  readonly measuredCpus: readonly number[];
  /** The command that would measure it, when not covered. */
  readonly command: string | null;
}

/** The runtime a row's app ran on: its `runtime`, Deno when absent. */
export function rowRuntime(row: ConfigurationResult): RuntimeName {
  return (row.runtime?.name ?? "deno") as RuntimeName;
}

/**
 * `sources` with only the rows whose app ran on `runtime`, and without the
 * files left with none.
 */
export function onRuntime(
  sources: readonly Source[],
  runtime: RuntimeName,
): Source[] {
  return sources
    .map((s) => ({
      ...s,
      document: {
        ...s.document,
        results: s.document.results.filter((r) => rowRuntime(r) === runtime),
      },
    }))
    .filter((s) => s.document.results.length > 0);
}

/** A figure and the file it came from. */
export interface Sourced<T> {
  /** The figure. */
  readonly value: T;
  /** The results file. */
  readonly source: string;
}

/** One queue's answer. */
export interface QueueAnswer {
  /** The driver, e.g. `postgres`. */
  readonly driver: string;
  /** Whether it fits the question. */
  readonly fits: boolean;
  /** Why it does not fit, or what is unknown. */
  readonly notes: readonly string[];
  /** Sustained deliveries per second (the max-rate search's capacity). */
  readonly capacity: Sourced<number | null>;
  /** The lowest rate it fell behind at, deliveries per second, if probed. */
  readonly failedAt: number | null;
  /** Capacity divided by what is needed. */
  readonly headroom: number | null;
  /** p99 latency of the measured rate nearest to what is needed. */
  readonly latency:
    | Sourced<{ readonly p99Ms: number; readonly deliveriesPerSecond: number }>
    | null;
  /** Worker crashes over every file that crashed it; `null` when none did. */
  readonly workerCrash: CrashEvidence | null;
  /** Server crashes over every file; `null` when none crashed its server. */
  readonly serverCrash: CrashEvidence | null;
  /**
   * The queue server its sustained rate was measured with (e.g. `redis`),
   * `null` for a queue in the app's process or a local file.
   */
  readonly queueServer: Sourced<string | null>;
  /** Server crashes of the driver's variants (e.g. `redis-aof`). */
  readonly serverCrashVariants: readonly CrashEvidence[];
  /** Sender and worker CPU, and queue server CPU, ms per delivery. */
  readonly cpuMsPerDelivery: Sourced<CpuFigures> | null;
  /** CPU of all its processes with an empty queue, % of one core. */
  readonly idleCpuPercent: Sourced<number> | null;
  /** With `--cpus` or `--queue-rtt`: its bursts deployed so. */
  readonly deployed: readonly DeployedRun[];
}

/** CPU per delivery, and the run it was measured in. */
export interface CpuFigures {
  /** Sender and worker CPU, ms per delivery. */
  readonly app: number;
  /** The queue server's CPU, ms per delivery; `null` without a server. */
  readonly server: number | null;
  /**
   * `steady`: a run at a sustained rate (the one nearest the question's);
   * `burst`: everything sent at once, when no steady run has the figure.
   */
  readonly basis: "steady" | "burst";
  /** The rate of the steady run, deliveries per second; `null` for a burst. */
  readonly deliveriesPerSecond: number | null;
}

/** The whole answer. */
export interface Advice {
  /** The question. */
  readonly question: Question;
  /** Deliveries per second at peak: followers × posts per minute ÷ 60. */
  readonly neededDeliveriesPerSecond: number;
  /** Whether any measured queue sustains that. */
  readonly covered: boolean;
  /**
   * The highest sustained rate measured, and by which queue or variant (a
   * setting measured in another file, e.g. `sqlite-poll1s`).
   */
  readonly highestMeasured:
    | Sourced<{ driver: string; deliveriesPerSecond: number }>
    | null;
  /**
   * The command that would measure the question, when it is not covered or
   * no queue fits.
   */
  readonly measureCommand: string | null;
  /** Recipients per activity of the capacity measurements, and their file. */
  readonly measuredRecipients: Sourced<number> | null;
  /** Every queue: those that fit first, best first, then the rest. */
  readonly answers: readonly QueueAnswer[];
  /**
   * The runtimes the crash figures shown were measured on, when they are
   * not only the question's (crash files run the app on Deno).
   */
  readonly crashRuntimes: readonly RuntimeName[];
  /** With `--cpus` or `--queue-rtt`: whether any file measured that. */
  readonly deployment: DeploymentCoverage | null;
}

/** Whether `row` was deployed as `question` asks. */
function deployedAsAsked(row: ConfigurationResult, question: Question) {
  const d = row.deployment;
  if (d == null) return false;
  return (question.queueRttMs == null ||
    d.queueRttMs === question.queueRttMs) &&
    (question.cpus == null || d.cpus === question.cpus);
}

/** The bursts of `driver` deployed as `question` asks, in every file. */
function deployedRuns(
  sources: readonly Source[],
  driver: string,
  question: Question,
): DeployedRun[] {
  if (question.cpus == null && question.queueRttMs == null) return [];
  return sources.flatMap((source) => {
    const rows = source.document.results.filter((r) =>
      r.driver === driver && r.load == null && r.maxRate == null
    );
    return rows.filter((r) => deployedAsAsked(r, question)).map((row) => {
      const same = (r: ConfigurationResult) =>
        r.parallelism === row.parallelism && r !== row;
      const mostCpus = Math.max(
        ...rows.map((r) => r.deployment?.cpus ?? 0),
      );
      const reference = rows.find((r) =>
        same(r) &&
        (question.queueRttMs == null
          ? r.deployment?.cpus === mostCpus &&
            r.deployment?.queueRttMs === row.deployment!.queueRttMs
          : r.deployment?.queueRttMs === 0 &&
            r.deployment?.cpus === row.deployment!.cpus)
      );
      return {
        id: row.id,
        parallelism: row.parallelism,
        status: row.status,
        deliveriesPerSecond: row.deliveriesPerSecond,
        reference: reference?.deliveriesPerSecond ?? null,
        source: source.path,
      };
    });
  });
}

/** Whether any file measured the question's deployment, and what they did. */
function deploymentCoverage(
  sources: readonly Source[],
  question: Question,
): DeploymentCoverage | null {
  if (question.cpus == null && question.queueRttMs == null) return null;
  const rows = sources.flatMap((s) => s.document.results);
  const values = (pick: (r: ConfigurationResult) => number | null) =>
    [
      ...new Set(
        rows.map(pick).filter((v): v is number => v != null),
      ),
    ].sort((a, b) => a - b);
  const covered = rows.some((r) => deployedAsAsked(r, question));
  const flags = [
    ...(question.cpus == null
      ? []
      : [`--scenario deployment-cpus --cpus ${question.cpus}`]),
    ...(question.queueRttMs == null
      ? []
      : [`--scenario deployment --queue-rtt 0,${question.queueRttMs}`]),
  ];
  return {
    covered,
    measuredRttMs: values((r) => r.deployment?.queueRttMs ?? null),
    measuredCpus: values((r) => r.deployment?.cpus ?? null),
    command: covered
      ? null
      : flags.map((f) =>
        `deno task bench ${f}${
          (question.runtime ?? "deno") === "deno"
            ? ""
            : ` --runtime ${question.runtime}`
        } --out runs/advise`
      ).join("; "),
  };
}

const NOT_QUEUES = new Set([BASELINE_DRIVER, GENERATOR_DRIVER, "none"]);

/** The drivers of a file's max-rate searches at parallelism 1. */
function searched(source: Source): string[] {
  return source.document.results
    .filter((r) => r.maxRate != null && r.parallelism === 1)
    .map((r) => r.driver);
}

function isPlainBurst(document: ResultsDocument): boolean {
  const p = document.params;
  return p.load == null && p.crash == null && p.inbox == null;
}

function sumIdle(row: ConfigurationResult | undefined): number | null {
  const processes = row?.idle?.processes;
  if (processes == null || processes.length === 0) return null;
  return processes.reduce((sum, p) => sum + (p.cpuPercent ?? 0), 0);
}

/**
 * The run of a driver at a sustained rate (a rate run or the max-rate
 * search's best probe, kept up) nearest to `needed` deliveries per second,
 * among those `has` accepts.
 */
function nearestKeptUp(
  rows: readonly ConfigurationResult[],
  driver: string,
  recipients: number,
  needed: number,
  has: (row: ConfigurationResult) => boolean,
): { row: ConfigurationResult; deliveriesPerSecond: number } | null {
  return rows
    .filter((r) =>
      r.driver === driver && r.parallelism === 1 &&
      r.load?.verdict === "kept-up" && has(r)
    )
    .map((row) => ({
      row,
      deliveriesPerSecond: row.load!.nominalRate * recipients,
    }))
    .sort((a, b) =>
      Math.abs(a.deliveriesPerSecond - needed) -
        Math.abs(b.deliveriesPerSecond - needed) ||
      a.deliveriesPerSecond - b.deliveriesPerSecond
    )[0] ?? null;
}

/** What every queue's answer is read from: the files sorted by what they measured. */
interface Evidence {
  readonly question: Question;
  /** Deliveries per second the question needs at peak. */
  readonly needed: number;
  /** The files of the question's runtime. */
  readonly own: readonly Source[];
  /** The file that measured the most queues: the comparison. */
  readonly primary: Source | undefined;
  /** The queues of the comparison. */
  readonly drivers: readonly string[];
  /** Queues only other files searched (ablations, settings), with their file. */
  readonly variants: readonly { row: ConfigurationResult; source: Source }[];
  readonly workerCrashes: readonly Source[];
  readonly serverCrashes: readonly Source[];
  /** Plain bursts of the question's runtime. */
  readonly bursts: readonly Source[];
}

/** Sorts the sources into what each answer is read from. */
function evidenceFor(
  question: Question,
  sources: readonly Source[],
  runtime: RuntimeName,
): Evidence {
  // Rates, latency, CPU and idle cost are the runtime's own; what a crash
  // loses is the queue's, measured with the app on whichever runtime.
  const own = onRuntime(sources, runtime);
  const steady = own.filter((s) =>
    s.document.results.some((r) => r.maxRate != null)
  );
  // The file that measured the most queues is the comparison; queues only
  // other files measured (ablations, settings) show as variants of theirs.
  const primary =
    [...steady].sort((a, b) => searched(b).length - searched(a).length)[0];
  const drivers = primary == null
    ? []
    : [...new Set(searched(primary))].filter((d) => !NOT_QUEUES.has(d));
  return {
    question,
    needed: question.followers * question.postsPerMinute / 60,
    own,
    primary,
    drivers,
    variants: steady.filter((s) => s !== primary).flatMap((s) =>
      s.document.results
        .filter((r) => r.maxRate != null && !drivers.includes(r.driver))
        .map((r) => ({ row: r, source: s }))
    ),
    workerCrashes: sources.filter((s) =>
      s.document.params.crash?.workerAt != null
    ),
    serverCrashes: sources.filter((s) =>
      s.document.params.crash?.serverAt != null
    ),
    bursts: own.filter((s) => isPlainBurst(s.document)),
  };
}

/**
 * CPU per delivery of `driver`: at the kept-up rate nearest the question's
 * in the comparison, else from a plain burst.
 */
function cpuFigures(
  driver: string,
  steadyCpu: { row: ConfigurationResult; deliveriesPerSecond: number } | null,
  source: Source,
  bursts: readonly Source[],
): Sourced<CpuFigures> | null {
  if (steadyCpu != null) {
    return {
      value: {
        app: steadyCpu.row.cpuMsPerDelivery!,
        server: steadyCpu.row.serverCpuMsPerDelivery ?? null,
        basis: "steady",
        deliveriesPerSecond: steadyCpu.deliveriesPerSecond,
      },
      source: source.path,
    };
  }
  return bursts.flatMap((s) => {
    const row = s.document.results.find((r) =>
      r.id === driver && r.cpuMsPerDelivery != null
    );
    return row == null ? [] : [{
      value: {
        app: row.cpuMsPerDelivery!,
        server: row.serverCpuMsPerDelivery ?? null,
        basis: "burst" as const,
        deliveriesPerSecond: null,
      },
      source: s.path,
    }];
  })[0] ?? null;
}

/** Whether a queue's capacity fits, and the notes on its capacity and latency. */
function capacityNotes(
  record: MaxRateRecord,
  needed: number,
): { fits: boolean; notes: string[] } {
  const capacity = record.deliveriesPerSecond;
  const notes: string[] = [];
  let fits = true;
  if (capacity == null) {
    fits = false;
    notes.push("kept up with none of the rates probed");
  } else if (capacity < needed) {
    fits = false;
    notes.push(
      `sustains ${round(capacity)} deliveries/s, below the ` +
        `${round(needed)} needed`,
    );
  }
  if (record.latencyBoundMet === false && record.p99AtCapacityMs != null) {
    notes.push(
      `p99 latency at that rate ${
        round(record.p99AtCapacityMs / 1000)
      } s, over the ${round(record.latencyBoundMs / 1000)} s bound`,
    );
  }
  return { fits, notes };
}

/**
 * With `--durable`: whether no crash lost a message, and the notes on what
 * the crashes lost or that they were not measured.
 */
function durabilityNotes(
  worker: CrashEvidence | null,
  ownServer: CrashEvidence | null,
  search: ConfigurationResult,
): { fits: boolean; notes: string[] } {
  const notes: string[] = [];
  let fits = true;
  for (
    const [evidence, what] of [
      [worker, "a worker crashed"],
      [ownServer, "its server crashed"],
    ] as const
  ) {
    if (evidence?.lost != null && evidence.lost.max > 0) {
      fits = false;
      notes.push(`lost ${lossText(evidence, `when ${what}`)}`);
    }
  }
  if (worker == null) notes.push(NOT_MEASURED.worker);
  else if (worker.lost == null) notes.push(CUT_OFF.worker);
  if (ownServer == null) {
    notes.push(
      search.server == null ? NOT_MEASURED.noServer : NOT_MEASURED.server,
    );
  } else if (ownServer.lost == null) notes.push(CUT_OFF.server);
  return { fits, notes };
}

/** The notes on a queue's variants: their capacity and their server crashes. */
function variantNotes(
  driver: string,
  variants: Evidence["variants"],
  serverVariants: readonly CrashEvidence[],
): string[] {
  const notes: string[] = [];
  for (const { row, source: where } of variants) {
    if (!row.driver.startsWith(`${driver}-`)) continue;
    const rate = row.maxRate!.deliveriesPerSecond;
    notes.push(
      `variant ${row.driver}: sustains ${
        rate == null
          ? "none of the rates probed"
          : `${round(rate)} deliveries/s`
      } (${where.path})`,
    );
  }
  for (const variant of serverVariants) {
    notes.push(
      `variant ${variant.id}: a server crash ${
        variant.lost == null
          ? "cut every run off before redelivery"
          : `lost ${
            lossText(variant, `and duplicated ${range(variant.duplicates!)}`)
          }`
      }`,
    );
  }
  return notes;
}

/** One queue of the comparison, answered from the evidence. */
function answerFor(driver: string, evidence: Evidence): QueueAnswer {
  const { question, needed, drivers } = evidence;
  const source = evidence.primary!;
  const rows = source.document.results;
  const recipients = source.document.params.recipients;
  const search = rows.find((r) => r.driver === driver && r.maxRate != null)!;
  const capacity = search.maxRate!.deliveriesPerSecond;
  const kept = (has: (row: ConfigurationResult) => boolean) =>
    nearestKeptUp(rows, driver, recipients, needed, has);
  const nearest = kept((r) => r.latencyMs != null);
  const worker =
    crashEvidence(evidence.workerCrashes, (r) => r.id === driver)[0] ?? null;
  const ownOrVariant = (r: ConfigurationResult) =>
    r.parallelism === 1 && (r.driver === driver ||
      r.driver.startsWith(`${driver}-`) && !drivers.includes(r.driver));
  const servers = crashEvidence(evidence.serverCrashes, ownOrVariant);
  const ownServer = servers.find((e) => e.id === driver) ?? null;
  const serverVariants = servers.filter((e) => e !== ownServer);
  const cpu = cpuFigures(
    driver,
    kept((r) => r.cpuMsPerDelivery != null),
    source,
    evidence.bursts,
  );
  const idle = sumIdle(
    rows.find((r) => r.driver === driver && r.idle != null),
  );
  const sized = capacityNotes(search.maxRate!, needed);
  const durable = question.durable
    ? durabilityNotes(worker, ownServer, search)
    : { fits: true, notes: [] };
  return {
    driver,
    fits: sized.fits && durable.fits,
    notes: [
      ...sized.notes,
      ...durable.notes,
      ...variantNotes(driver, evidence.variants, serverVariants),
    ],
    capacity: { value: capacity, source: source.path },
    failedAt: search.maxRate!.lowestFailedRate == null
      ? null
      : search.maxRate!.lowestFailedRate * recipients,
    headroom: capacity == null ? null : capacity / needed,
    latency: nearest == null ? null : {
      value: {
        p99Ms: nearest.row.latencyMs!.p99,
        deliveriesPerSecond: nearest.deliveriesPerSecond,
      },
      source: source.path,
    },
    workerCrash: worker,
    serverCrash: ownServer,
    queueServer: { value: search.server?.name ?? null, source: source.path },
    serverCrashVariants: serverVariants,
    cpuMsPerDelivery: cpu,
    idleCpuPercent: idle == null ? null : { value: idle, source: source.path },
    deployed: deployedRuns(evidence.own, driver, question),
  };
}

/**
 * Sorts answers best first: those that fit, then the fewest unknown crash
 * losses, the lowest p99 latency, the highest capacity.
 */
function rankAnswers(answers: QueueAnswer[]): void {
  const unknowns = (a: QueueAnswer) =>
    a.notes.filter((n) => UNKNOWN_CRASH_NOTES.has(n)).length;
  answers.sort((a, b) =>
    Number(b.fits) - Number(a.fits) || unknowns(a) - unknowns(b) ||
    (a.latency?.value.p99Ms ?? Infinity) -
      (b.latency?.value.p99Ms ?? Infinity) ||
    (b.capacity.value ?? 0) - (a.capacity.value ?? 0)
  );
}

/**
 * The highest rate any queue of the comparison or a variant of one
 * sustained, with its file; `undefined` when none sustained any.
 */
function bestMeasured(
  answers: readonly QueueAnswer[],
  evidence: Evidence,
): { driver: string; rate: number | null; source: string } | undefined {
  // Variants count for the highest rate measured: a setting is a queue too.
  return [
    ...answers.map((a) => ({
      driver: a.driver,
      rate: a.capacity.value,
      source: a.capacity.source,
    })),
    ...evidence.variants
      .filter(({ row }) =>
        evidence.drivers.some((d) => row.driver.startsWith(`${d}-`))
      )
      .map(({ row, source }) => ({
        driver: row.driver,
        rate: row.maxRate!.deliveriesPerSecond,
        source: source.path,
      })),
  ].filter((m) => m.rate != null).sort((a, b) => b.rate! - a.rate!)[0];
}

/**
 * Answers the question from the sources.
 * @param question What the operator asks.
 * @param sources Every results file read, the top-level one first.
 */
export function advise(
  question: Question,
  sources: readonly Source[],
): Advice {
  const runtime = question.runtime ?? "deno";
  const evidence = evidenceFor(question, sources, runtime);
  const { needed, primary, drivers } = evidence;
  const answers = drivers.map((driver) => answerFor(driver, evidence));
  rankAnswers(answers);
  const best = bestMeasured(answers, evidence);
  const covered = best != null && best.rate! >= needed;
  return {
    question,
    neededDeliveriesPerSecond: needed,
    covered,
    highestMeasured: best == null ? null : {
      value: { driver: best.driver, deliveriesPerSecond: best.rate! },
      source: best.source,
    },
    measureCommand: covered && answers.some((a) => a.fits)
      ? null
      : measureCommand(question, drivers),
    crashRuntimes: crashRuntimes(answers, sources, runtime),
    deployment: deploymentCoverage(evidence.own, question),
    measuredRecipients: primary == null ? null : {
      value: primary.document.params.recipients,
      source: primary.path,
    },
    answers,
  };
}

/**
 * The runtimes of the crash rows behind `answers`, when any is not
 * `runtime`; empty otherwise.
 */
function crashRuntimes(
  answers: readonly QueueAnswer[],
  sources: readonly Source[],
  runtime: RuntimeName,
): RuntimeName[] {
  const shown = new Set(
    answers.flatMap((a) => [
      ...[a.workerCrash, a.serverCrash, ...a.serverCrashVariants]
        .flatMap((e) =>
          e == null ? [] : e.runs.map((r) => `${r.source}#${e.id}`)
        ),
    ]),
  );
  const runtimes = new Set<RuntimeName>();
  for (const source of sources) {
    for (const row of source.document.results) {
      if (shown.has(`${source.path}#${row.id}`)) runtimes.add(rowRuntime(row));
    }
  }
  return [...runtimes].some((r) => r !== runtime) ? [...runtimes].sort() : [];
}

/** The bench command that measures the question directly. */
function measureCommand(question: Question, drivers: readonly string[]) {
  const recipients = Math.min(question.followers, MAX_RECIPIENTS);
  const rate = question.followers * question.postsPerMinute / 60 / recipients;
  const list = drivers.length > 0 ? drivers.join(",") : "postgres";
  // Long enough for twenty posts, and never under two minutes.
  const duration = Math.max(120, Math.ceil(20 / rate));
  return `deno task bench --drivers ${list} --parallel 1,4 ` +
    `--recipients ${recipients} --rate ${round(rate, 4)} ` +
    `--duration ${duration}${
      (question.runtime ?? "deno") === "deno"
        ? ""
        : ` --runtime ${question.runtime}`
    } --out runs/advise`;
}

const NOT_MEASURED = {
  worker: "a worker crash was not measured",
  server: "a server crash was not measured",
  noServer: "it has no queue server; losing the machine or disk that holds " +
    "its queue was not measured",
} as const;

const CUT_OFF = {
  worker: "every worker crash run was cut off before redelivery: loss unknown",
  server: "every server crash run was cut off before redelivery: loss unknown",
} as const;

/**
 * The notes that say a crash figure is unknown (not measured, or every run
 * cut off); the text shows them on the crash lines instead.
 */
export const UNKNOWN_CRASH_NOTES: ReadonlySet<string> = new Set<string>([
  ...Object.values(NOT_MEASURED),
  ...Object.values(CUT_OFF),
]);

/**
 * `4 of 2000 when … (file)` or `1–4 of 2000 when … (4 in file, 1 in file)`,
 * over the runs counted.
 */
function lossText(evidence: CrashEvidence, when: string): string {
  const counted = evidence.runs.filter((r) => r.cutOff == null);
  const where = counted.length === 1
    ? counted[0].source
    : counted.map((r) => `${r.missing} in ${r.source}`).join(", ");
  return `${range(evidence.lost!)} of ${
    counted[0].expected
  } ${when} (${where})`;
}

function range(spread: { min: number; max: number }): string {
  return spread.min === spread.max
    ? `${spread.min}`
    : `${spread.min}–${spread.max}`;
}

function round(value: number, digits = 1): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}
