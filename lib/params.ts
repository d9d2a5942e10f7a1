/**
 * Command-line and environment parsing for `bench.ts`.  Every mistake becomes
 * a {@link UsageError} whose message names the problem and the fix.
 *
 * @module
 */
import { parseArgs } from "node:util";

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
  /** List drivers and exit. */
  readonly list: boolean;
  /** Activities per configuration. */
  readonly total: number;
  /** Recipients per activity. */
  readonly recipients: number;
  /** Driver names to run, in order; `undefined` means the default suite. */
  readonly drivers?: readonly string[];
  /** Parallelism levels for queue drivers. */
  readonly parallel: readonly number[];
  /** Results folder. */
  readonly out: string;
  /** Time limit per configuration, seconds. */
  readonly timeoutSeconds: number;
  /** Stall window, seconds. */
  readonly stallTimeoutSeconds: number;
  /** Fedify's fanout option. */
  readonly fanout: "auto" | "skip" | "force";
  /** RSA modulus length of the sender's key. */
  readonly rsaBits: number;
  /** User driver modules to load. */
  readonly driverModules: readonly string[];
  /** Runs per configuration. */
  readonly runs: number;
  /** Worker processes per shared queue. */
  readonly workers: number;
  /** Whether to run the baseline rows. */
  readonly baseline: boolean;
  /** Keep `ok` configurations from the results file instead of re-running. */
  readonly resume: boolean;
}

/** Default sizes and limits. */
export const DEFAULTS = {
  total: 500,
  recipients: 100,
  parallel: [1, 4],
  out: "results",
  timeoutSeconds: 600,
  stallTimeoutSeconds: 60,
  fanout: "auto",
  rsaBits: 2048,
  runs: 1,
  workers: 1,
} as const;

/** The help text. */
export const HELP = `Usage: deno task bench [options]

Benchmarks Fedify outbox message queues: TOTAL activities to RECIPIENTS fake
recipients each, through every configuration, with exact delivery accounting.

Options:
  --total N            activities per configuration (env TOTAL; default ${DEFAULTS.total})
  --recipients N       recipients per activity (env RECIPIENTS; default ${DEFAULTS.recipients})
  --drivers a,b        drivers to run (default: all built-in ones; see --list)
  --parallel 1,4       ParallelMessageQueue levels for queue drivers (default 1,4)
  --out DIR            results folder (default results/)
  --timeout S          time limit per configuration in seconds (default ${DEFAULTS.timeoutSeconds})
  --stall-timeout S    stop a configuration after S seconds without a new
                       delivery (default ${DEFAULTS.stallTimeoutSeconds}; widened for queues that poll)
  --fanout MODE        Fedify fanout option: auto, skip or force (default auto)
  --rsa-bits N         sender's RSA key size: 2048, 3072 or 4096 (default 2048)
  --runs N             runs per configuration; figures are medians with
                       min–max (env RUNS; default 1)
  --workers N          worker processes per shared queue (default 1)
  --no-baseline        skip the baseline rows (direct signed POSTs, no queue)
  --resume             keep configurations already ok in OUT/latest.json
                       with the same parameters; run only the rest
  --driver-module M    also load drivers from module M (repeatable)
  --list               list drivers and whether each can run here, then exit
  -h, --help           show this help

Servers: REDIS_URL and POSTGRES_URL are used when set; otherwise the bench
starts throwaway servers if redis-server / PostgreSQL are installed.

Exit codes: 0 every configuration that ran is ok; 1 some are failed or
incomplete; 2 bad input.`;

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

function splitList(raw: string): string[] {
  return raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Parses the arguments and environment.
 * @param args Command-line arguments (without the program name).
 * @param env Environment variables (`TOTAL`, `RECIPIENTS`).
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
        out: { type: "string" },
        timeout: { type: "string" },
        "stall-timeout": { type: "string" },
        fanout: { type: "string" },
        "rsa-bits": { type: "string" },
        "driver-module": { type: "string", multiple: true },
        runs: { type: "string" },
        workers: { type: "string" },
        "no-baseline": { type: "boolean" },
        resume: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message}; run with --help for the options`,
    );
  }
  const totalRaw = values.total ?? env.TOTAL;
  const total = totalRaw == null ? DEFAULTS.total : parseCount(
    totalRaw,
    values.total != null ? "--total" : "TOTAL",
    1,
    MAX_TOTAL,
  );
  const recipientsRaw = values.recipients ?? env.RECIPIENTS;
  const recipients = recipientsRaw == null ? DEFAULTS.recipients : parseCount(
    recipientsRaw,
    values.recipients != null ? "--recipients" : "RECIPIENTS",
    1,
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
    ? [...DEFAULTS.parallel]
    : splitList(values.parallel).map((p) =>
      parseCount(p, "--parallel", 1, MAX_PARALLELISM)
    );
  if (parallel.length < 1) {
    throw new UsageError("--parallel needs at least one level, e.g. 1,4");
  }
  const fanout = values.fanout ?? DEFAULTS.fanout;
  if (fanout !== "auto" && fanout !== "skip" && fanout !== "force") {
    throw new UsageError(
      `--fanout must be auto, skip or force, got ${JSON.stringify(fanout)}`,
    );
  }
  const rsaBits = values["rsa-bits"] == null
    ? DEFAULTS.rsaBits
    : Number(values["rsa-bits"]);
  if (![2048, 3072, 4096].includes(rsaBits)) {
    throw new UsageError(
      `--rsa-bits must be 2048, 3072 or 4096, got ${values["rsa-bits"]}`,
    );
  }
  const runsRaw = values.runs ?? env.RUNS;
  const runs = runsRaw == null
    ? DEFAULTS.runs
    : parseCount(runsRaw, values.runs != null ? "--runs" : "RUNS", 1, MAX_RUNS);
  const workers = values.workers == null
    ? DEFAULTS.workers
    : parseCount(values.workers, "--workers", 1, MAX_WORKERS);
  const out = values.out ?? DEFAULTS.out;
  if (out.trim() === "") throw new UsageError("--out needs a folder name");
  return {
    help: values.help ?? false,
    list: values.list ?? false,
    total,
    recipients,
    drivers,
    parallel: [...new Set(parallel)],
    out,
    timeoutSeconds: values.timeout == null
      ? DEFAULTS.timeoutSeconds
      : parseSeconds(values.timeout, "--timeout"),
    stallTimeoutSeconds: values["stall-timeout"] == null
      ? DEFAULTS.stallTimeoutSeconds
      : parseSeconds(values["stall-timeout"], "--stall-timeout"),
    fanout,
    rsaBits,
    driverModules: values["driver-module"] ?? [],
    runs,
    workers,
    baseline: !(values["no-baseline"] ?? false),
    resume: values.resume ?? false,
  };
}
