/**
 * Command-line and environment parsing for `bench.ts`.  Every mistake becomes
 * a {@link UsageError} whose message names the problem and the fix.
 *
 * Precedence for each setting: command-line flag, then environment variable
 * (`TOTAL`, `RECIPIENTS`, `RUNS`), then the `--scenario` preset, then the
 * default.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { INSTANT_INBOX, parseLatency } from "../../fake_inbox/behaviour.ts";
import {
  PARALLEL_IMPLS,
  type ParallelImpl,
} from "../queue/awaiting_parallel_queue.ts";
import {
  DEFAULT_LOG_LEVEL,
  isLogLevel,
  LOG_LEVELS,
} from "../child/fedify_log.ts";
import type {
  FanoutMode,
  InboxProfile,
  LoadParams,
  SuiteParams,
} from "../results/types.ts";

/** Bad input: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  /** Creates a usage error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Largest accepted `total`. */
export const MAX_TOTAL = 100_000;
/** Largest accepted `recipients`. */
export const MAX_RECIPIENTS = 10_000;
/** Largest accepted `total × recipients`. */
export const MAX_DELIVERIES = 5_000_000;
/** Largest accepted parallelism. */
export const MAX_PARALLELISM = 256;
/** Largest accepted number of runs per configuration. */
export const MAX_RUNS = 100;
/** Largest accepted number of worker processes. */
export const MAX_WORKERS = 64;

/** Everything the CLI was asked to do. */
export interface CliOptions {
  /** Print help and exit. */
  readonly help: boolean;
  /** List drivers (and scenarios) and exit. */
  readonly list: boolean;
  /** Activities per configuration. */
  readonly total: number;
  /** Recipients per activity. */
  readonly recipients: number;
  /** Driver names to run, in order; `undefined` means the default suite. */
  readonly drivers?: readonly string[];
  /** Parallelism levels for queue drivers. */
  readonly parallel: readonly number[];
  /** Parallel wrappers to run above parallelism 1 (a list sweeps them). */
  readonly parallelImpl: readonly ParallelImpl[];
  /** Lowest level of Fedify's log kept. */
  readonly logLevel: NonNullable<SuiteParams["logLevel"]>;
  /** Results folder. */
  readonly out: string;
  /** Time limit per configuration, seconds. */
  readonly timeoutSeconds: number;
  /** Stall window, seconds. */
  readonly stallTimeoutSeconds: number;
  /** Fedify's fanout options to sweep (the first is the suite's). */
  readonly fanout: readonly FanoutMode[];
  /** RSA modulus lengths to sweep (the first is the suite's). */
  readonly rsaBits: readonly number[];
  /** User driver modules to load. */
  readonly driverModules: readonly string[];
  /** Runs per configuration. */
  readonly runs: number;
  /** Worker processes per shared queue. */
  readonly workers: number;
  /** Whether to run the baseline rows. */
  readonly baseline: boolean;
  /** Whether to measure the machine's speed at the suite's start and end. */
  readonly calibrate: boolean;
  /** Keep `ok` configurations from the results file instead of re-running. */
  readonly resume: boolean;
  /** The inbox behaviour. */
  readonly inbox: InboxProfile;
  /** Share of deliveries after which to kill the consuming process(es). */
  readonly crashWorkerAt?: number;
  /** Share of deliveries after which to kill and restart the queue server. */
  readonly crashServerAt?: number;
  /** The scenario preset, if one was chosen. */
  readonly scenario?: string;
  /** Steady-load settings; absent for a burst suite. */
  readonly load?: LoadParams;
}

/** Default steady-load settings. */
export const LOAD_DEFAULTS = {
  durationSeconds: 60,
  drainSeconds: 30,
  arrivals: "poisson",
  seed: 1,
  latencyBoundMs: 5000,
  maxRateTimeSeconds: 300,
  maxRateStart: 1,
} as const;

/** Largest accepted rate, activities per second. */
export const MAX_RATE = 10_000;
/** Largest accepted number of concurrent send loops. */
export const MAX_SENDERS = 1_000;

/** Default sizes and limits. */
export const DEFAULTS = {
  total: 500,
  recipients: 100,
  parallel: [1, 4],
  out: "results",
  timeoutSeconds: 600,
  stallTimeoutSeconds: 60,
  fanout: ["auto"],
  rsaBits: [2048],
  runs: 1,
  workers: 1,
} as const;

/** Settings a scenario may preset (flags and environment still win). */
export interface ScenarioSettings {
  readonly total?: number;
  readonly recipients?: number;
  readonly parallel?: readonly number[];
  readonly rsaBits?: readonly number[];
  readonly inboxLatency?: string;
  readonly inboxErrorRate?: number;
  readonly crashWorkerAt?: number;
  readonly rates?: readonly number[];
  readonly durationSeconds?: number;
  readonly drainSeconds?: number;
  readonly findMaxRate?: boolean;
  readonly maxRateTimeSeconds?: number;
  readonly maxRateStart?: number;
  readonly idleSeconds?: number;
}

/** A named, documented combination of settings. */
export interface Scenario {
  /** What it models, for `--help`, `--list` and the README. */
  readonly description: string;
  /** What it sets. */
  readonly settings: ScenarioSettings;
}

/** The scenario presets. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  original: {
    description: "the original benchmark's setting: 500 × 100, RSA-4096 " +
      "sender key, an inbox that answers at once",
    settings: { total: 500, recipients: 100, rsaBits: [4096] },
  },
  realistic: {
    description: "RSA-2048, an inbox answering in 50–300 ms (uniform) that " +
      "refuses 2% of first attempts with 503; 100 × 20 at parallelism " +
      "1, 4, 16 and 64 to show where each queue stops gaining",
    settings: {
      total: 100,
      recipients: 20,
      parallel: [1, 4, 16, 64],
      rsaBits: [2048],
      inboxLatency: "50-300ms",
      inboxErrorRate: 0.02,
    },
  },
  crash: {
    description: "the consuming process is killed with SIGKILL once half " +
      "the deliveries have arrived and a fresh one started; the inbox " +
      "answers in 10–50 ms so messages are in flight; 100 × 20",
    settings: {
      total: 100,
      recipients: 20,
      inboxLatency: "10-50ms",
      crashWorkerAt: 0.5,
    },
  },
  steady: {
    description: "steady load, about an hour for the default suite: 10 " +
      "recipients per activity, each queue without a wrapper; 20 s idle, " +
      "Poisson arrivals at 2, 8 and 32 activities/s for 20 s each, then " +
      "the highest rate kept up with p99 latency under 5 s (at most 150 s " +
      "of probes per queue), and the load generator's own limit",
    settings: {
      recipients: 10,
      parallel: [1],
      rates: [2, 8, 32],
      durationSeconds: 20,
      drainSeconds: 20,
      findMaxRate: true,
      maxRateTimeSeconds: 150,
      maxRateStart: 2,
      idleSeconds: 20,
    },
  },
};

/** The help text. */
export const HELP = `Usage: deno task bench [options]

Benchmarks Fedify outbox message queues: TOTAL activities to RECIPIENTS fake
recipients each, through every configuration, with exact delivery accounting.

Sizes and suite:
  --total N            activities per configuration (env TOTAL; default ${DEFAULTS.total})
  --recipients N       recipients per activity (env RECIPIENTS; default ${DEFAULTS.recipients})
  --drivers a,b        drivers to run (default: the default suite and any
                       --driver-module drivers; see --list)
  --parallel 1,4       ParallelMessageQueue levels for queue drivers (default 1,4)
  --parallel-impl I    the wrapper above parallelism 1: fedify (Fedify's
                       ParallelMessageQueue, acks when a message starts) or
                       awaiting (ours, acks when it is done); a list sweeps
                       them (default fedify)
  --workers N          worker processes per shared queue (default 1)
  --fanout MODES       Fedify fanout option(s): auto, skip, force; a list
                       sweeps them (default auto)
  --rsa-bits BITS      sender's RSA key size(s): 2048, 3072, 4096; a list
                       sweeps them (default 2048)
  --runs N             runs per configuration; figures are medians with
                       min–max (env RUNS; default 1)
  --no-baseline        skip the baseline rows (direct signed POSTs, no queue)
  --no-calibrate       skip measuring the machine's speed at the start and end
                       (about 4 s each); compare then calls it unknown
  --scenario NAME      preset: ${Object.keys(SCENARIOS).join(", ")} (see --list)

Steady load (instead of one burst of TOTAL; see README "Steady load"):
  --rate R             open loop: activities arrive at R per second whether
                       or not earlier sendActivity calls returned; a list
                       sweeps rates (e.g. 2,8,32); latency counts from each
                       activity's scheduled start
  --duration S         seconds of arrivals per rate run (default ${LOAD_DEFAULTS.durationSeconds})
  --arrivals A         poisson (seeded) or fixed spacing (default ${LOAD_DEFAULTS.arrivals})
  --seed N             seed of the Poisson arrivals (default ${LOAD_DEFAULTS.seed})
  --drain S            seconds a rate run waits after its arrivals for the
                       rest; what is still missing then is reported (default ${LOAD_DEFAULTS.drainSeconds})
  --senders N          closed loop: TOTAL activities from N send loops at
                       once (siege -c); a list sweeps them
  --find-max-rate      search the highest rate each configuration keeps up
                       with, p99 latency under --latency-bound
  --latency-bound T    p99 latency bound of --find-max-rate (default 5s)
  --max-rate-time S    seconds of probes per configuration (default ${LOAD_DEFAULTS.maxRateTimeSeconds})
  --max-rate-start R   first rate probed, activities/s (default ${LOAD_DEFAULTS.maxRateStart})
  --idle S             measure each configuration's processes for S seconds
                       with an empty queue: CPU, memory, wake-ups

Inbox behaviour:
  --inbox-latency T    answer delay: 100ms, or a uniform range like 50-300ms
  --inbox-error-rate F share of deliveries answered 503 on their first attempt
  --inbox-gone-rate F  share of recipients whose inbox answers 410 Gone
  --inbox-drop-rate F  share of deliveries whose first attempt is dropped
  --inbox-verify       verify every HTTP signature (fetches the sender's key)

Crashes:
  --crash-worker-at F  SIGKILL the consuming process(es) once a share F of
                       the deliveries arrived, then start fresh ones
  --crash-server-at F  kill the queue server the bench started at F and
                       restart it on the same data

Limits and output:
  --timeout S          time limit per run of a configuration, seconds (default ${DEFAULTS.timeoutSeconds})
  --stall-timeout S    stop a run after S seconds without a new delivery
                       (default ${DEFAULTS.stallTimeoutSeconds}; widened for queues that poll)
  --out DIR            results folder (default results/); Fedify's log of
                       each configuration goes to OUT/logs/ID.log
  --log-level L        lowest level of Fedify's log kept: ${
  LOG_LEVELS.join(", ")
} (default ${DEFAULT_LOG_LEVEL})
  --resume             keep configurations already ok in OUT/latest.json
                       with the same parameters; run only the rest
  --driver-module M    also load drivers from module M (repeatable)
  --list               list drivers, whether each can run here, and scenarios
  -h, --help           show this help

Servers: REDIS_URL, POSTGRES_URL, AMQP_URL and MYSQL_URL are used when set;
otherwise the bench starts throwaway servers if they are installed.

Exit codes: 0 every configuration that ran is ok (a rate run that fell behind,
or a max-rate search, counts as measured); 1 some are failed or incomplete, or
the final write to OUT failed (the results are then in a
fallback file it names, or on stdout); 2 bad input, or an --out that cannot be
written (checked before measuring); 130 interrupted (Ctrl-C, SIGTERM, SIGHUP).`;

function parseCount(
  raw: string,
  name: string,
  min: number,
  max: number,
): number {
  const text = raw.trim();
  if (!/^\d+$/.test(text)) {
    throw new UsageError(
      `${name} must be a whole number, got ${JSON.stringify(raw)}; ` +
        `for example ${name}=${min === 0 ? 1 : min * 10}`,
    );
  }
  const value = Number(text);
  if (value < min || value > max) {
    throw new UsageError(
      `${name} must be between ${min} and ${max}, got ${text}`,
    );
  }
  return value;
}

function parseSeconds(raw: string, name: string): number {
  const value = Number(raw.trim().replace(/s$/, ""));
  if (!Number.isFinite(value) || value <= 0 || value > 7 * 24 * 3600) {
    throw new UsageError(
      `${name} must be a positive number of seconds, got ${
        JSON.stringify(raw)
      }`,
    );
  }
  return value;
}

function parseShare(raw: string, name: string, allowZero = true): number {
  const text = raw.trim();
  const value = text.endsWith("%")
    ? Number(text.slice(0, -1)) / 100
    : Number(text);
  if (
    text === "" || !Number.isFinite(value) || value < 0 || value > 1 ||
    (!allowZero && value === 0)
  ) {
    throw new UsageError(
      `${name} must be a share between 0 and 1 (or a percentage like 2%), ` +
        `got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

function splitList(raw: string): string[] {
  return raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Parses the arguments and environment.
 * @param args Command-line arguments (without the program name).
 * @param env Environment variables (`TOTAL`, `RECIPIENTS`, `RUNS`).
 * @throws {UsageError} On any bad input.
 */
export function parseCli(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        help: { type: "boolean", short: "h" },
        list: { type: "boolean" },
        total: { type: "string" },
        recipients: { type: "string" },
        drivers: { type: "string" },
        parallel: { type: "string" },
        "parallel-impl": { type: "string" },
        "log-level": { type: "string" },
        out: { type: "string" },
        timeout: { type: "string" },
        "stall-timeout": { type: "string" },
        fanout: { type: "string" },
        "rsa-bits": { type: "string" },
        "driver-module": { type: "string", multiple: true },
        runs: { type: "string" },
        workers: { type: "string" },
        "no-baseline": { type: "boolean" },
        "no-calibrate": { type: "boolean" },
        resume: { type: "boolean" },
        scenario: { type: "string" },
        "inbox-latency": { type: "string" },
        "inbox-error-rate": { type: "string" },
        "inbox-gone-rate": { type: "string" },
        "inbox-drop-rate": { type: "string" },
        "inbox-verify": { type: "boolean" },
        "crash-worker-at": { type: "string" },
        "crash-server-at": { type: "string" },
        rate: { type: "string" },
        duration: { type: "string" },
        arrivals: { type: "string" },
        seed: { type: "string" },
        drain: { type: "string" },
        senders: { type: "string" },
        "find-max-rate": { type: "boolean" },
        "latency-bound": { type: "string" },
        "max-rate-time": { type: "string" },
        "max-rate-start": { type: "string" },
        idle: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message}; run with --help for the options`,
    );
  }
  let preset: ScenarioSettings = {};
  if (values.scenario != null) {
    const scenario = SCENARIOS[values.scenario];
    if (scenario == null) {
      throw new UsageError(
        `unknown scenario "${values.scenario}"; known scenarios: ${
          Object.keys(SCENARIOS).join(", ")
        }`,
      );
    }
    preset = scenario.settings;
  }
  const count = (
    flag: string | undefined,
    flagName: string,
    envName: string | null,
    fallback: number,
    max: number,
  ): number => {
    const raw = flag ?? (envName == null ? undefined : env[envName]);
    if (raw == null) return fallback;
    return parseCount(raw, flag != null ? flagName : envName!, 1, max);
  };
  const total = count(
    values.total,
    "--total",
    "TOTAL",
    preset.total ?? DEFAULTS.total,
    MAX_TOTAL,
  );
  const recipients = count(
    values.recipients,
    "--recipients",
    "RECIPIENTS",
    preset.recipients ?? DEFAULTS.recipients,
    MAX_RECIPIENTS,
  );
  if (total * recipients > MAX_DELIVERIES) {
    throw new UsageError(
      `total × recipients is ${total * recipients}, more than the ` +
        `${MAX_DELIVERIES} deliveries one configuration may have; lower ` +
        `TOTAL or RECIPIENTS`,
    );
  }
  const drivers = values.drivers == null
    ? undefined
    : splitList(values.drivers);
  if (drivers != null && drivers.length < 1) {
    throw new UsageError(
      "--drivers needs at least one driver name; see --list",
    );
  }
  const parallel = values.parallel == null
    ? [...(preset.parallel ?? DEFAULTS.parallel)]
    : splitList(values.parallel).map((p) =>
      parseCount(p, "--parallel", 1, MAX_PARALLELISM)
    );
  if (parallel.length < 1) {
    throw new UsageError("--parallel needs at least one level, e.g. 1,4");
  }
  const parallelImpl = values["parallel-impl"] == null
    ? [PARALLEL_IMPLS[0]]
    : splitList(values["parallel-impl"]).map((impl) => {
      if (!(PARALLEL_IMPLS as readonly string[]).includes(impl)) {
        throw new UsageError(
          `--parallel-impl must be ${PARALLEL_IMPLS.join(" or ")} (or a ` +
            `list of them), got ${JSON.stringify(impl)}`,
        );
      }
      return impl as ParallelImpl;
    });
  if (parallelImpl.length < 1) {
    throw new UsageError("--parallel-impl needs fedify, awaiting or both");
  }
  const logLevel = values["log-level"] ?? DEFAULT_LOG_LEVEL;
  if (!isLogLevel(logLevel)) {
    throw new UsageError(
      `--log-level must be one of ${LOG_LEVELS.join(", ")}, got ${
        JSON.stringify(logLevel)
      }`,
    );
  }
  const fanout = values.fanout == null
    ? [...DEFAULTS.fanout]
    : splitList(values.fanout).map((mode) => {
      if (mode !== "auto" && mode !== "skip" && mode !== "force") {
        throw new UsageError(
          `--fanout must be auto, skip or force (or a list of them), got ${
            JSON.stringify(mode)
          }`,
        );
      }
      return mode as FanoutMode;
    });
  if (fanout.length < 1) throw new UsageError("--fanout needs a mode");
  const rsaBits = values["rsa-bits"] == null
    ? [...(preset.rsaBits ?? DEFAULTS.rsaBits)]
    : splitList(values["rsa-bits"]).map((bits) => {
      const value = Number(bits);
      if (![2048, 3072, 4096].includes(value)) {
        throw new UsageError(
          `--rsa-bits must be 2048, 3072 or 4096 (or a list of them), got ${bits}`,
        );
      }
      return value;
    });
  if (rsaBits.length < 1) throw new UsageError("--rsa-bits needs a size");
  const runs = count(values.runs, "--runs", "RUNS", DEFAULTS.runs, MAX_RUNS);
  const workers = count(
    values.workers,
    "--workers",
    null,
    DEFAULTS.workers,
    MAX_WORKERS,
  );
  const out = values.out ?? DEFAULTS.out;
  if (out.trim() === "") throw new UsageError("--out needs a folder name");

  const latencyText = values["inbox-latency"] ?? preset.inboxLatency;
  let latency = null;
  if (latencyText != null) {
    try {
      latency = parseLatency(latencyText);
    } catch {
      throw new UsageError(
        `--inbox-latency must be a delay like 100ms or 0.2s, or a range ` +
          `like 50-300ms, got ${JSON.stringify(latencyText)}`,
      );
    }
  }
  const share = (raw: string | undefined, name: string, fallback = 0) =>
    raw == null ? fallback : parseShare(raw, name);
  const inbox: InboxProfile = {
    ...INSTANT_INBOX,
    latency,
    errorRate: share(
      values["inbox-error-rate"],
      "--inbox-error-rate",
      preset.inboxErrorRate ?? 0,
    ),
    goneRate: share(values["inbox-gone-rate"], "--inbox-gone-rate"),
    dropRate: share(values["inbox-drop-rate"], "--inbox-drop-rate"),
    verifySignatures: values["inbox-verify"] ?? false,
  };
  if (inbox.errorRate + inbox.dropRate > 1) {
    throw new UsageError(
      "--inbox-error-rate and --inbox-drop-rate add up to more than 1",
    );
  }
  const crashWorkerAt = values["crash-worker-at"] == null
    ? preset.crashWorkerAt
    : parseShare(values["crash-worker-at"], "--crash-worker-at", false);
  const crashServerAt = values["crash-server-at"] == null
    ? undefined
    : parseShare(values["crash-server-at"], "--crash-server-at", false);
  const load = parseLoad(values, preset);
  if (load != null && (crashWorkerAt != null || crashServerAt != null)) {
    throw new UsageError(
      "crash tests (--crash-worker-at, --crash-server-at) run on a burst, " +
        "not under steady load; drop --rate, --senders, --find-max-rate " +
        "and --idle, or the crash option",
    );
  }
  return {
    help: values.help ?? false,
    list: values.list ?? false,
    total,
    recipients,
    drivers,
    parallel: [...new Set(parallel)],
    parallelImpl: [...new Set(parallelImpl)],
    logLevel,
    out,
    timeoutSeconds: values.timeout == null
      ? DEFAULTS.timeoutSeconds
      : parseSeconds(values.timeout, "--timeout"),
    stallTimeoutSeconds: values["stall-timeout"] == null
      ? DEFAULTS.stallTimeoutSeconds
      : parseSeconds(values["stall-timeout"], "--stall-timeout"),
    fanout: [...new Set(fanout)],
    rsaBits: [...new Set(rsaBits)],
    driverModules: values["driver-module"] ?? [],
    runs,
    workers,
    baseline: !(values["no-baseline"] ?? false),
    calibrate: !(values["no-calibrate"] ?? false),
    resume: values.resume ?? false,
    inbox,
    crashWorkerAt,
    crashServerAt,
    scenario: values.scenario,
    ...(load == null ? {} : { load }),
  };
}

/** The steady-load flags as the parser returns them. */
interface LoadFlags {
  readonly rate?: string;
  readonly duration?: string;
  readonly arrivals?: string;
  readonly seed?: string;
  readonly drain?: string;
  readonly senders?: string;
  readonly "find-max-rate"?: boolean;
  readonly "latency-bound"?: string;
  readonly "max-rate-time"?: string;
  readonly "max-rate-start"?: string;
  readonly idle?: string;
}

function parseRate(raw: string, name: string): number {
  const value = Number(raw.trim().replace(/\/s$/, ""));
  if (!Number.isFinite(value) || value <= 0 || value > MAX_RATE) {
    throw new UsageError(
      `${name} must be a rate in activities per second above 0 and up to ` +
        `${MAX_RATE}, like 8 or 0.5, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** A duration like `5s`, `500ms` or `5` (seconds), in ms. */
function parseBoundMs(raw: string, name: string): number {
  const text = raw.trim();
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text);
  const value = match == null
    ? NaN
    : Number(match[1]) * (match[2] === "ms" ? 1 : 1000);
  if (!(value > 0)) {
    throw new UsageError(
      `${name} must be a duration like 5s or 500ms, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** The steady-load settings the flags and preset ask for, if any. */
function parseLoad(
  values: LoadFlags,
  preset: ScenarioSettings,
): LoadParams | undefined {
  const rates = values.rate == null
    ? [...(preset.rates ?? [])]
    : splitList(values.rate).map((r) => parseRate(r, "--rate"));
  if (values.rate != null && rates.length < 1) {
    throw new UsageError("--rate needs at least one rate, e.g. --rate 2,8,32");
  }
  const senders = values.senders == null ? [] : splitList(values.senders).map(
    (n) => parseCount(n, "--senders", 1, MAX_SENDERS),
  );
  if (values.senders != null && senders.length < 1) {
    throw new UsageError("--senders needs a number of send loops, e.g. 8");
  }
  const findMaxRate = values["find-max-rate"] ?? preset.findMaxRate ?? false;
  const idleSeconds = values.idle == null
    ? preset.idleSeconds
    : parseSeconds(values.idle, "--idle");
  const onlyWithRates = ["duration", "arrivals", "seed", "drain"] as const;
  if (rates.length === 0 && !findMaxRate) {
    const stray = onlyWithRates.find((flag) => values[flag] != null);
    if (stray != null) {
      throw new UsageError(
        `--${stray} applies to rate runs; add --rate R or --find-max-rate`,
      );
    }
  }
  if (!findMaxRate) {
    const stray =
      (["latency-bound", "max-rate-time", "max-rate-start"] as const)
        .find((flag) => values[flag] != null);
    if (stray != null) {
      throw new UsageError(`--${stray} applies to --find-max-rate; add it`);
    }
  }
  if (
    rates.length === 0 && senders.length === 0 && !findMaxRate &&
    idleSeconds == null
  ) {
    return undefined;
  }
  const arrivals = values.arrivals ?? LOAD_DEFAULTS.arrivals;
  if (arrivals !== "poisson" && arrivals !== "fixed") {
    throw new UsageError(
      `--arrivals must be poisson or fixed, got ${JSON.stringify(arrivals)}`,
    );
  }
  return {
    rates: [...new Set(rates)],
    durationSeconds: values.duration == null
      ? preset.durationSeconds ?? LOAD_DEFAULTS.durationSeconds
      : parseSeconds(values.duration, "--duration"),
    arrivals,
    seed: values.seed == null
      ? LOAD_DEFAULTS.seed
      : parseCount(values.seed, "--seed", 0, 2 ** 32 - 1),
    drainSeconds: values.drain == null
      ? preset.drainSeconds ?? LOAD_DEFAULTS.drainSeconds
      : parseSeconds(values.drain, "--drain"),
    senders: [...new Set(senders)],
    ...(findMaxRate
      ? {
        maxRate: {
          latencyBoundMs: values["latency-bound"] == null
            ? LOAD_DEFAULTS.latencyBoundMs
            : parseBoundMs(values["latency-bound"], "--latency-bound"),
          timeBoxSeconds: values["max-rate-time"] == null
            ? preset.maxRateTimeSeconds ?? LOAD_DEFAULTS.maxRateTimeSeconds
            : parseSeconds(values["max-rate-time"], "--max-rate-time"),
          startRate: values["max-rate-start"] == null
            ? preset.maxRateStart ?? LOAD_DEFAULTS.maxRateStart
            : parseRate(values["max-rate-start"], "--max-rate-start"),
        },
      }
      : {}),
    ...(idleSeconds == null ? {} : { idleSeconds }),
  };
}

/** Whether a profile is the plain instant inbox. */
function isInstant(profile: InboxProfile): boolean {
  return profile.latency == null && profile.errorRate === 0 &&
    profile.goneRate === 0 && profile.dropRate === 0 &&
    !profile.verifySignatures;
}

/** The suite parameters the options describe. */
export function suiteParams(options: CliOptions): SuiteParams {
  const crash = options.crashWorkerAt != null || options.crashServerAt != null
    ? { workerAt: options.crashWorkerAt, serverAt: options.crashServerAt }
    : undefined;
  return {
    total: options.total,
    recipients: options.recipients,
    fanout: options.fanout[0],
    rsaBits: options.rsaBits[0],
    timeoutSeconds: options.timeoutSeconds,
    stallTimeoutSeconds: options.stallTimeoutSeconds,
    runs: options.runs,
    workers: options.workers,
    ...(isInstant(options.inbox) ? {} : { inbox: options.inbox }),
    ...(options.fanout.length > 1 || options.rsaBits.length > 1
      ? { axes: { fanout: options.fanout, rsaBits: options.rsaBits } }
      : {}),
    ...(crash == null ? {} : { crash }),
    ...(options.parallelImpl.length === 1 &&
        options.parallelImpl[0] === PARALLEL_IMPLS[0]
      ? {}
      : { parallelImpl: options.parallelImpl }),
    ...(options.logLevel === DEFAULT_LOG_LEVEL
      ? {}
      : { logLevel: options.logLevel }),
    ...(options.load == null ? {} : { load: options.load }),
    ...(options.scenario == null ? {} : { scenario: options.scenario }),
  };
}
