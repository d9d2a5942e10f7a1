/**
 * fedify-queue-bench as a library: the driver registry, the `Driver`
 * contract for writing your own queue driver, and {@link runBenchmark}, which
 * runs a suite programmatically and returns the same results document that
 * `deno task bench` writes to `OUT/latest.json` (by default a new folder of
 * `runs/`; `--out results` for the published results).
 *
 * @example
 * ```ts ignore
 * import { runBenchmark } from "./mod.ts";
 * import myDriver from "./my_queue.ts"; // default-exports a Driver
 *
 * const results = await runBenchmark({
 *   drivers: ["in-process", myDriver],
 *   total: 50,
 *   recipients: 20,
 * });
 * for (const r of results.results) console.log(r.id, r.status, r.totalSeconds);
 * ```
 *
 * @module
 */
import { builtinDrivers, findDriver } from "./drivers/mod.ts";
import type { Driver } from "./drivers/driver.ts";
import { DEFAULTS, paramsOf } from "./lib/cli/params.ts";
import type { ResultsDocument, SuiteParams } from "./lib/results/mod.ts";
import type { BenchValues } from "./lib/params/mod.ts";
import type { Progress } from "./lib/run/watch.ts";
import { runSuite } from "./lib/run/suite.ts";
import { writeResults } from "./lib/cli/write.ts";
import { join } from "node:path";

export type {
  DepthReport,
  DocsRow,
  Driver,
  DriverCore,
  DriverDocs,
  DriverLifecycle,
  DriverPackaging,
  DriverService,
  DriverTraits,
  Json,
  OpenedQueue,
  OrderingSupport,
  PrepareContext,
  PreparedQueue,
  SuiteTier,
} from "./drivers/driver.ts";
export type {
  Availability,
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "./lib/services/service_types.ts";
export type {
  AgentClockRecord,
  AgentRecord,
  AgentsRecord,
  AppSignRate,
  ArrivalPattern,
  Calibration,
  CalibrationPoint,
  ClockEstimate,
  Commit,
  ConfigurationResult,
  CrashRecord,
  DelayedRecord,
  DeploymentRecord,
  DepthRecord,
  Environment,
  EstimateRecord,
  FanoutMode,
  IdleProcess,
  IdleRecord,
  Implementation,
  ImplementationOrigin,
  InboxProfile,
  LimitedByRecord,
  LimitingResource,
  LoadParams,
  LoadRecord,
  LogSummary,
  MaxRateProbe,
  MaxRateRecord,
  OrderingKey,
  OrderingRecord,
  Outlier,
  ParallelImpl,
  Percentiles,
  PinningRecord,
  PredictionBounds,
  ProcessRecord,
  ProxyRecord,
  ProxyTraffic,
  RateSpread,
  RestartRecord,
  ResultsDocument,
  RoundTripsRecord,
  RunResult,
  RuntimeIdentity,
  RuntimeName,
  ServerRecord,
  SourceRefRecord,
  Spread,
  StageFigures,
  StageName,
  StagesRecord,
  Status,
  SuiteParams,
  Timeline,
  WorkerCpuLimitRecord,
  Workload,
} from "./lib/results/mod.ts";
export type { Progress } from "./lib/run/watch.ts";
export type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
export type { LatencyRange, Series } from "./lib/results/mod.ts";
export {
  AwaitingParallelMessageQueue,
  wrapParallel,
} from "./lib/queue/awaiting_parallel_queue.ts";
export type { Chart } from "./lib/report/charts/mod.ts";
export {
  allSuite,
  builtinDrivers,
  defaultSuite,
  findDriver,
  loadDrivers,
  selectDrivers,
  type Selection,
} from "./drivers/mod.ts";
export { renderMarkdown, renderTable } from "./lib/report/markdown.ts";
export { writeResults } from "./lib/cli/write.ts";
export {
  freePort,
  launchServer,
  type LaunchSpec,
  restartableServer,
  runSetup,
  type ServerProcess,
  type ServingCheck,
  waitUntilServing,
} from "./lib/services/server.ts";
export { errorMessage } from "./lib/results/error_message.ts";
export { findBinary } from "./lib/services/binaries.ts";
export type {
  FetchedLayout,
  ServerFetcher,
  ServerTools,
} from "./lib/services/fetched.ts";
export {
  type LoggedProcess,
  spawnLogged,
  type SpawnLoggedOptions,
} from "./lib/system/logged_process.ts";
export {
  UnreachableError,
  unreachableError,
} from "./lib/services/unreachable.ts";
export { sleep } from "./lib/system/sleep.ts";

/**
 * Options for {@link runBenchmark}.  Every size and limit not given takes
 * the default of the CLI option of the same name (listed in docs/options.md
 * and `deno task bench --help`), except `baseline`, off here.
 */
export interface BenchmarkOptions {
  /**
   * The drivers to run, by built-in name or as `Driver` objects.  A driver
   * of your own must set `module` (to its module's `import.meta.url`), whose
   * default export includes it, so that worker processes can load it.
   */
  readonly drivers: readonly (string | Driver)[];
  /** Activities per configuration (`--total`). */
  readonly total?: number;
  /** Recipients per activity (`--recipients`). */
  readonly recipients?: number;
  /** `ParallelMessageQueue` levels (`--parallel`). */
  readonly parallel?: readonly number[];
  /** Runs per configuration (`--runs`). */
  readonly runs?: number;
  /** Worker processes per shared queue (`--workers`). */
  readonly workers?: number;
  /** Also run the baseline rows (default `false` here). */
  readonly baseline?: boolean;
  /** Time limit per run, seconds (`--timeout`). */
  readonly timeoutSeconds?: number;
  /** Stall window, seconds (`--stall-timeout`). */
  readonly stallTimeoutSeconds?: number;
  /**
   * Per-row budget, seconds (`--budget`), for a quick look: a row still
   * delivering when it is reached, or sure not to finish within it, ends
   * `incomplete` with an `estimate`.  Without it each row runs to its end or
   * its time limit ({@link timeoutSeconds}).
   */
  readonly budgetSeconds?: number;
  /** No budget even where `params` sets one (`--until-done`). */
  readonly untilDone?: boolean;
  /**
   * Any other suite parameter (inbox profile, fanout, keys, crashes, and
   * `load` for steady load: rates, senders, the max-rate search, idle).
   */
  readonly params?: Partial<SuiteParams>;
  /** Write `latest.json`, `latest.md` and charts here as the suite goes. */
  readonly outDir?: string;
  /** Stops the suite; the running configuration ends `incomplete`. */
  readonly signal?: AbortSignal;
  /** Live progress, about once a second. */
  readonly onProgress?: (progress: Progress) => void;
  /**
   * Measure the machine's speed (RSA signatures on one thread and on every
   * core, loopback HTTP) for a few seconds at the start and the end, and
   * for about 3 s before each run (its result's `calibration`), so results
   * can be compared fairly; default `true`.
   */
  readonly calibrate?: boolean;
}

/**
 * Options whose every member named like a bench parameter has that
 * parameter's type (the table in lib/params/bench/): `deno check` fails on
 * {@link BenchmarkOptions} when the table's type of one of them changes.
 */
type TypedLikeTheTable<
  T extends {
    readonly [K in keyof T & keyof BenchValues]?: BenchValues[K];
  },
> = T;
type _BenchmarkOptionsAgree = TypedLikeTheTable<
  Omit<BenchmarkOptions, "drivers">
>;

/**
 * Runs a benchmark suite and returns its results.  Starts and stops every
 * process and throwaway server it needs; never leaves one behind.
 * @throws {TypeError} When a driver name is unknown, or a driver of your own
 *   has no `module`.
 */
export async function runBenchmark(
  options: BenchmarkOptions,
): Promise<ResultsDocument> {
  const drivers = options.drivers.map((d) => {
    if (typeof d !== "string") return d;
    const driver = findDriver(builtinDrivers, d);
    if (driver == null) throw new TypeError(`unknown driver: ${d}`);
    return driver;
  });
  const modules: string[] = [];
  for (const driver of drivers) {
    if (builtinDrivers.includes(driver)) continue;
    if (driver.module == null) {
      throw new TypeError(
        `driver "${driver.name}" needs \`module: import.meta.url\` (its ` +
          `module must default-export it) so worker processes can load it`,
      );
    }
    if (!modules.includes(driver.module)) modules.push(driver.module);
  }
  const params: SuiteParams = {
    ...paramsOf({
      ...DEFAULTS,
      total: options.total ?? DEFAULTS.total,
      recipients: options.recipients ?? DEFAULTS.recipients,
      timeoutSeconds: options.timeoutSeconds ?? DEFAULTS.timeoutSeconds,
      stallTimeoutSeconds: options.stallTimeoutSeconds ??
        DEFAULTS.stallTimeoutSeconds,
      budgetSeconds: options.budgetSeconds ?? DEFAULTS.budgetSeconds,
      untilDone: options.untilDone ?? DEFAULTS.untilDone,
      runs: options.runs ?? DEFAULTS.runs,
      workers: options.workers ?? DEFAULTS.workers,
    }),
    ...options.params,
  };
  const outDir = options.outDir;
  return await runSuite({
    params,
    drivers,
    parallel: options.parallel ?? DEFAULTS.parallel,
    baseline: options.baseline ?? false,
    calibrate: options.calibrate ?? true,
    driverModules: modules,
    ...(outDir == null ? {} : {
      save: (document: ResultsDocument) => writeResults(outDir, document),
      logDir: join(outDir, "logs"),
    }),
    signal: options.signal,
    onProgress: options.onProgress,
  });
}
