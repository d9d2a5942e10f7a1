/**
 * "Which queue should I use?", answered from results files alone: the
 * deliveries per second a server needs at peak against each queue's
 * measured sustained rate, with its latency, crash losses and CPU, every
 * figure tied to the file it came from.  Pure: `lib/cli/advise.ts` reads
 * the files and prints {@link renderAdvice}.
 *
 * Which file says what is read from the files' own parameters: a file with
 * a max-rate search gives capacity, latency under load and idle cost; one
 * with `crash.workerAt` or `crash.serverAt` gives what a crash lost; a
 * plain burst (no load, crash or inbox misbehaviour) gives CPU per delivery.
 *
 * @module
 */
import {
  BASELINE_DRIVER,
  type ConfigurationResult,
  GENERATOR_DRIVER,
  type ResultsDocument,
} from "../results/types.ts";
import { MAX_RECIPIENTS } from "../params/mod.ts";

/** What the operator asks. */
export interface Question {
  /** Recipients per post. */
  readonly followers: number;
  /** Posts per minute at peak. */
  readonly postsPerMinute: number;
  /** Whether a crash may not lose a delivery. */
  readonly durable: boolean;
}

/** A results document and where it was read from. */
export interface Source {
  /** Its path as the user would type it, e.g. `results/steady/latest.json`. */
  readonly path: string;
  /** Its contents. */
  readonly document: ResultsDocument;
}

/** A figure and the file it came from. */
export interface Sourced<T> {
  /** The figure. */
  readonly value: T;
  /** The results file. */
  readonly source: string;
}

/** What a crash did to a configuration. */
export interface CrashFigures {
  /** The configuration id, e.g. `redis` or `redis-aof`. */
  readonly id: string;
  /** Deliveries that never arrived. */
  readonly lost: number;
  /** Deliveries that arrived more than once. */
  readonly duplicates: number;
  /** Deliveries expected. */
  readonly expected: number;
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
  /** A worker crash; `null` when not measured. */
  readonly workerCrash: Sourced<CrashFigures> | null;
  /** Server crashes, worst first, the driver's variants included. */
  readonly serverCrash: readonly Sourced<CrashFigures>[];
  /** Sender and worker CPU, and queue server CPU, ms per delivery. */
  readonly cpuMsPerDelivery:
    | Sourced<{ readonly app: number; readonly server: number | null }>
    | null;
  /** CPU of all its processes with an empty queue, % of one core. */
  readonly idleCpuPercent: Sourced<number> | null;
}

/** The whole answer. */
export interface Advice {
  /** The question. */
  readonly question: Question;
  /** Deliveries per second at peak: followers × posts per minute ÷ 60. */
  readonly neededDeliveriesPerSecond: number;
  /** Whether any measured queue sustains that. */
  readonly covered: boolean;
  /** The highest sustained rate measured, and by which queue. */
  readonly highestMeasured:
    | Sourced<{ driver: string; deliveriesPerSecond: number }>
    | null;
  /**
   * The command that would measure the question, when it is not covered or
   * no queue fits.
   */
  readonly measureCommand: string | null;
  /** Recipients per activity of the capacity measurements. */
  readonly measuredRecipients: number | null;
  /** Every queue: those that fit first, best first, then the rest. */
  readonly answers: readonly QueueAnswer[];
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

function crashOf(row: ConfigurationResult): CrashFigures | null {
  if (row.status === "skipped" || row.status === "failed") return null;
  return {
    id: row.id,
    lost: row.missing,
    duplicates: row.duplicates,
    expected: row.expected,
  };
}

function sumIdle(row: ConfigurationResult | undefined): number | null {
  const processes = row?.idle?.processes;
  if (processes == null || processes.length === 0) return null;
  return processes.reduce((sum, p) => sum + (p.cpuPercent ?? 0), 0);
}

/** The rate runs of a driver, as (deliveries/s, p99) of those kept up. */
function keptUpRates(
  rows: readonly ConfigurationResult[],
  driver: string,
  recipients: number,
): { deliveriesPerSecond: number; p99Ms: number }[] {
  return rows
    .filter((r) =>
      r.driver === driver && r.parallelism === 1 && r.maxRate == null &&
      r.load?.verdict === "kept-up" && r.latencyMs != null
    )
    .map((r) => ({
      deliveriesPerSecond: r.load!.nominalRate * recipients,
      p99Ms: r.latencyMs!.p99,
    }));
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
  const needed = question.followers * question.postsPerMinute / 60;
  const steady = sources.filter((s) =>
    s.document.results.some((r) => r.maxRate != null)
  );
  const workerCrashes = sources.filter((s) =>
    s.document.params.crash?.workerAt != null
  );
  const serverCrashes = sources.filter((s) =>
    s.document.params.crash?.serverAt != null
  );
  const bursts = sources.filter((s) => isPlainBurst(s.document));
  // The file that measured the most queues is the comparison; queues only
  // other files measured (ablations, settings) show as variants of theirs.
  const primary =
    [...steady].sort((a, b) => searched(b).length - searched(a).length)[0];
  const drivers = primary == null
    ? []
    : [...new Set(searched(primary))].filter((d) => !NOT_QUEUES.has(d));
  const variants = steady.filter((s) => s !== primary).flatMap((s) =>
    s.document.results
      .filter((r) => r.maxRate != null && !drivers.includes(r.driver))
      .map((r) => ({ row: r, source: s }))
  );
  const answers = drivers.map((driver): QueueAnswer => {
    const source = primary!;
    const rows = source.document.results;
    const recipients = source.document.params.recipients;
    const search = rows.find((r) => r.driver === driver && r.maxRate != null)!;
    const capacity = search.maxRate!.deliveriesPerSecond;
    const rates = keptUpRates(rows, driver, recipients);
    const nearest = rates.sort((a, b) =>
      Math.abs(a.deliveriesPerSecond - needed) -
      Math.abs(b.deliveriesPerSecond - needed)
    )[0];
    const worker = workerCrashes.flatMap((s) => {
      const row = s.document.results.find((r) =>
        r.id === driver
      );
      const figures = row == null ? null : crashOf(row);
      return figures == null ? [] : [{ value: figures, source: s.path }];
    }).sort((a, b) => b.value.lost - a.value.lost)[0] ?? null;
    const server = serverCrashes.flatMap((s) =>
      s.document.results
        .filter((r) => r.id === driver || r.id.startsWith(`${driver}-`))
        .flatMap((r) => {
          const figures = crashOf(r);
          return figures == null ? [] : [{ value: figures, source: s.path }];
        })
    ).sort((a, b) =>
      Number(b.value.id === driver) - Number(a.value.id === driver) ||
      b.value.lost - a.value.lost
    );
    const burst = bursts.flatMap((s) => {
      const row = s.document.results.find((r) =>
        r.id === driver && r.cpuMsPerDelivery != null
      );
      return row == null ? [] : [{
        value: {
          app: row.cpuMsPerDelivery!,
          server: row.serverCpuMsPerDelivery ?? null,
        },
        source: s.path,
      }];
    })[0] ?? null;
    const idle = sumIdle(
      rows.find((r) => r.driver === driver && r.idle != null),
    );
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
    const record = search.maxRate!;
    if (record.latencyBoundMet === false && record.p99AtCapacityMs != null) {
      notes.push(
        `p99 latency at that rate ${
          round(record.p99AtCapacityMs / 1000)
        } s, over the ${round(record.latencyBoundMs / 1000)} s bound`,
      );
    }
    const ownServer = server.find((s) => s.value.id === driver);
    if (question.durable) {
      if (worker != null && worker.value.lost > 0) {
        fits = false;
        notes.push(
          `lost ${worker.value.lost} of ${worker.value.expected} when a ` +
            `worker crashed (${worker.source})`,
        );
      }
      if (ownServer != null && ownServer.value.lost > 0) {
        fits = false;
        notes.push(
          `lost ${ownServer.value.lost} of ${ownServer.value.expected} when ` +
            `its server crashed (${ownServer.source})`,
        );
      }
      if (worker == null) notes.push("a worker crash was not measured");
      if (ownServer == null) notes.push("a server crash was not measured");
    }
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
    for (const variant of server.filter((s) => s.value.id !== driver)) {
      notes.push(
        `variant ${variant.value.id}: a server crash lost ` +
          `${variant.value.lost}, duplicated ${variant.value.duplicates} ` +
          `(${variant.source})`,
      );
    }
    return {
      driver,
      fits,
      notes,
      capacity: { value: capacity, source: source.path },
      failedAt: search.maxRate!.lowestFailedRate == null
        ? null
        : search.maxRate!.lowestFailedRate * recipients,
      headroom: capacity == null ? null : capacity / needed,
      latency: nearest == null ? null : { value: nearest, source: source.path },
      workerCrash: worker,
      serverCrash: server,
      cpuMsPerDelivery: burst,
      idleCpuPercent: idle == null
        ? null
        : { value: idle, source: source.path },
    };
  });
  const unknowns = (a: QueueAnswer) =>
    a.notes.filter((n) => n.endsWith("not measured")).length;
  answers.sort((a, b) =>
    Number(b.fits) - Number(a.fits) || unknowns(a) - unknowns(b) ||
    (a.latency?.value.p99Ms ?? Infinity) -
      (b.latency?.value.p99Ms ?? Infinity) ||
    (b.capacity.value ?? 0) - (a.capacity.value ?? 0)
  );
  const best = answers
    .filter((a) => a.capacity.value != null)
    .sort((a, b) => b.capacity.value! - a.capacity.value!)[0];
  const covered = best != null && best.capacity.value! >= needed;
  return {
    question,
    neededDeliveriesPerSecond: needed,
    covered,
    highestMeasured: best == null ? null : {
      value: { driver: best.driver, deliveriesPerSecond: best.capacity.value! },
      source: best.capacity.source,
    },
    measureCommand: covered && answers.some((a) => a.fits)
      ? null
      : measureCommand(question, drivers),
    measuredRecipients: steady[0]?.document.params.recipients ?? null,
    answers,
  };
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
    `--duration ${duration} --out runs/advise`;
}

function round(value: number, digits = 1): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}
