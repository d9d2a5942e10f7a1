/**
 * Runs a suite: the baseline rows, then every configuration, each `runs`
 * times from an empty queue, skipping those that cannot run here, and
 * handing the results to its caller's `save` after each configuration so
 * that an interrupted suite keeps what finished.  Writing them (JSON,
 * Markdown, charts) is the caller's: this stage imports no report code.
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";
import {
  type CalibrationOptions,
  combineCalibrations,
  measureAppSignRate,
  measureCalibration,
  ROW_CALIBRATION,
} from "./calibrate.ts";
import { planRounds, randomSeed } from "./order.ts";
import { readCommitReading } from "../measure/provenance.ts";
import { collectEnvironment } from "../measure/environment.ts";
import { DEFAULT_LOG_LEVEL } from "../params/mod.ts";
import { BENCH, sameMeasurement as sameRecord } from "../params/mod.ts";
import { FedifyLogFile } from "./fedify_log_file.ts";
import { limitsNote } from "./budget.ts";
import {
  type AppSignRate,
  type Calibration,
  type ConfigurationResult,
  type Environment,
  type LogSummary,
  type ResultsDocument,
  type RunResult,
  type RuntimeName,
  SCHEMA_VERSION,
  type SuiteParams,
} from "../results/types.ts";
import { runOnce } from "./runner.ts";
import type { Progress } from "./watch.ts";
import { deploymentRecord } from "./deployment.ts";
import {
  type Configuration,
  configurationName,
  configurationUnfit,
  driverAvailability,
  expandConfigurations,
  generatorKey,
  suiteEntries,
  type SuiteEntry,
} from "./configurations.ts";
import { errorMessage } from "../results/error_message.ts";
import {
  type AppLauncher,
  type NamespaceProbe,
  namespacesUnavailable,
  prepareAppRuntime,
  ServiceManager,
  tasksetPath,
} from "../services/mod.ts";
import { aggregateRuns, median, spreadOf } from "../measure/stats.ts";
import type { RunLoad } from "../workload/plan.ts";
import { searchMaxRate } from "./steady.ts";

/** Options for {@link runSuite}. */
export interface SuiteOptions {
  /** Sizes and limits shared by every configuration. */
  readonly params: SuiteParams;
  /** Drivers to run, in order. */
  readonly drivers: readonly Driver[];
  /** Parallelism levels for drivers that have a queue. */
  readonly parallel: readonly number[];
  /** Also run the baseline (direct delivery) at each parallelism level. */
  readonly baseline?: boolean;
  /** User driver modules that child processes must load. */
  readonly driverModules?: readonly string[];
  /**
   * Folder for Fedify's log of each configuration (`<id>.log`); without
   * it the logs are counted and removed.
   */
  readonly logDir?: string;
  /**
   * Saves the results (e.g. `writeResults` of `lib/report/markdown.ts`):
   * called after every configuration, and once at the end with `final`
   * set.  What it throws ends the suite; to go on after a failed write,
   * catch it inside.
   */
  readonly save?: (document: ResultsDocument, final: boolean) => Promise<void>;
  /**
   * A previous results document: its `ok` configurations with the same
   * parameters are kept instead of run again.
   */
  readonly resumeFrom?: ResultsDocument;
  /**
   * Servers to use; the suite's own (stopped at its end) when absent.  A
   * caller that passes one stops it.
   */
  readonly services?: ServiceManager;
  /** Stops the suite (Ctrl-C); the running configuration ends `incomplete`. */
  readonly signal?: AbortSignal;
  /** Live progress of the running configuration. */
  readonly onProgress?: (progress: Progress) => void;
  /** Called when a configuration ends (or is taken from `resumeFrom`). */
  readonly onResult?: (result: ConfigurationResult, resumed: boolean) => void;
  /**
   * Called once before the first row with what holds each row to its time:
   * the time limit (`--timeout`) or a budget (`--budget`), in words.
   */
  readonly onLimits?: (note: string) => void;
  /**
   * Measure the machine's speed at the start and the end (a few seconds
   * each) into `environment.calibration`, and briefly (about 3 s) before
   * every run into its result's `calibration`; default `false` (the
   * bench's command line and `runBenchmark()` turn it on).
   */
  readonly calibrate?: boolean;
  /**
   * How long each calibration measures: by default the suite's start and
   * end take 3 slices of 0.5 s per rate and each row's 3 of 0.25 s; a test
   * that checks only the shape of the figures shortens both.
   */
  readonly calibrationSlices?: CalibrationOptions;
  /**
   * What is asked of the system before a `--worker-hosts` row (root, `ip`);
   * the system itself by default, a fake in a test of the rows skipped
   * without namespaces.
   */
  readonly namespaceProbe?: NamespaceProbe;
  /**
   * The command line as run, recorded as `environment.command`; `null`
   * (the default) for a suite started through the library.
   */
  readonly command?: readonly string[] | null;
}

/** The parameters that must match for a result to be reused by `--resume`. */
export function sameMeasurement(a: SuiteParams, b: SuiteParams): boolean {
  return sameRecord(BENCH, a, b);
}

function skippedRun(params: SuiteParams, reason: string): RunResult {
  const expected = params.total * params.recipients;
  return {
    status: "skipped",
    reason,
    expected,
    delivered: 0,
    duplicates: 0,
    missing: expected,
    unexpected: 0,
    sendSeconds: null,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: null,
    elapsedSeconds: null,
    sendErrors: 0,
    workers: 0,
    stallTimeoutSeconds: params.stallTimeoutSeconds,
    timeoutSeconds: params.timeoutSeconds,
    server: null,
    processes: [],
    latencyMs: null,
    sendCallMs: null,
    cpuMsPerDelivery: null,
    serverCpuMsPerDelivery: null,
    implementation: null,
    timeline: null,
  };
}

/** One entry of a running suite: its runs so far and its result. */
interface EntryState {
  readonly entry: SuiteEntry;
  readonly runs: RunResult[];
  log?: FedifyLogFile;
  logSummary?: LogSummary;
  result?: ConfigurationResult;
  /** Whether it runs no more: all its runs made, skipped, kept or stopped. */
  done: boolean;
}

/**
 * Runs every configuration and returns the results document.
 *
 * With `runs` above 1 the suite runs in rounds: every configuration's first
 * run before any second run.  Each round runs its configurations in an
 * order shuffled by `params.orderSeed` (a random seed when absent, recorded
 * in the document's `params`), the load generator's row first; the document's
 * `rounds` records the order run.  A configuration whose run did not finish
 * leaves the later rounds.  With `calibrate`, a short calibration just before
 * each run is recorded in its result.  The document's `results` keep the
 * order of the configurations whatever the order they ran in.
 */
export async function runSuite(
  options: SuiteOptions,
): Promise<ResultsDocument> {
  const seed = options.params.orderSeed ?? randomSeed();
  const params: SuiteParams = { ...options.params, orderSeed: seed };
  const runs = Math.max(1, params.runs ?? 1);
  const services = options.services ?? new ServiceManager();
  const began = performance.now();
  const startedAt = new Date().toISOString();
  // Read before anything is written: the results may dirty the tree.
  const { commit, noCommitReason } = await readCommitReading();
  const { logDir, save } = options;
  const calibrate = options.calibrate ?? false;
  const previous = options.resumeFrom != null &&
      sameMeasurement(options.resumeFrom.params, params)
    ? options.resumeFrom.results
    : [];
  let environment: Environment | undefined;
  let calibration: Calibration | undefined;
  const states: EntryState[] = [];
  const rounds: string[][] = [];
  const results = () =>
    states.flatMap((s) => s.result == null ? [] : [s.result]);
  const document = (finishedAt: string | null): ResultsDocument => ({
    schemaVersion: SCHEMA_VERSION,
    startedAt,
    finishedAt,
    params,
    environment,
    suiteSeconds: (performance.now() - began) / 1000,
    rounds: rounds.filter((r) => r.length > 0).map((r) => [...r]),
    results: results(),
  });
  const refreshEnvironment = async () => {
    const servers: Record<string, string> = {};
    for (const r of results()) {
      if (r.server == null) continue;
      const { name, version, origin } = r.server;
      servers[name] = origin == null ? version : `${version} (${origin})`;
    }
    environment = await collectEnvironment({
      params,
      packages: [
        ...new Set(options.drivers.flatMap((d) => d.packages ?? [])),
      ],
      servers,
      commit,
      noCommitReason,
      command: options.command ?? null,
    });
    if (calibration != null) environment = { ...environment, calibration };
  };
  const saveSoFar = async () => {
    if (save == null) return;
    await refreshEnvironment();
    await save(document(null), false);
  };
  // --cpus pins with taskset: without it, fail before anything is measured.
  if ((params.cpus ?? []).length > 0) tasksetPath();
  // Node.js and Bun with the app's packages, installed on first use: a
  // failed install fails the suite before anything is measured.
  const launchers = new Map<RuntimeName, AppLauncher>();
  for (const name of params.runtime ?? ["deno"]) {
    launchers.set(name, await prepareAppRuntime(name, options.signal));
  }
  try {
    if (calibrate) {
      const start = await measureCalibration(options.calibrationSlices)
        .catch((error) => {
          throw new Error(
            `cannot measure the machine's speed (${
              errorMessage(error)
            }); run ` +
              "with --no-calibrate (calibrate: false) to skip it",
            { cause: error },
          );
        });
      calibration = { start, end: null };
    }
    await refreshEnvironment();
    const configurations = expandConfigurations(
      options.drivers,
      options.parallel,
      // Under steady load the generator's row takes the baseline's place.
      (options.baseline ?? false) && params.load == null,
      params.axes,
      params.parallelImpl,
      params.runtime,
      {
        cpus: params.cpus,
        queueRttMs: params.queueRttMs,
        workerHosts: params.workerHosts,
      },
    );
    for (const entry of suiteEntries(configurations, params)) {
      states.push({ entry, runs: [], done: false });
    }
    // Burst rows are held to their time limit or budget (budget.ts).
    if (params.load == null && params.crash == null) {
      options.onLimits?.(limitsNote(params));
    }
    const plan = planRounds(states, runs, seed, {
      pinned: (s) => s.entry.configuration.generator === true,
      once: (s) => s.entry.maxRate === true,
    });
    // The load generator's limit, per runtime (and core count) of the app.
    const ceilings = new Map<string, number>();
    rounds: for (const [index, round] of plan.entries()) {
      const order: string[] = [];
      rounds.push(order);
      for (const state of round) {
        if (options.signal?.aborted) break rounds;
        if (state.done) continue;
        const { entry } = state;
        const { configuration, id } = entry;
        if (state.log == null) {
          const kept = previous.find((r) => r.id === id && r.status === "ok");
          const reason = kept == null
            ? await unavailability(
              configuration,
              services,
              params,
              options.namespaceProbe,
              options.signal,
            )
            : null;
          if (kept != null || reason != null) {
            state.result = kept ?? {
              ...aggregateRuns(
                id,
                configurationName(configuration),
                configuration.parallelism,
                [{
                  ...skippedRun(params, reason!),
                  deployment: deploymentRecord(configuration, params),
                }],
              ),
              ...configurationFields(configuration, params),
            };
            state.done = true;
            options.onResult?.(state.result, kept != null);
            await saveSoFar();
            continue;
          }
          state.log = await FedifyLogFile.open(logDir, id);
        }
        const log = state.log;
        const before = calibrate
          ? await measureCalibration(
            options.calibrationSlices ?? ROW_CALIBRATION,
          ).catch((error) => {
            // A row measured without its calibration beats no row at all.
            console.error(
              `${id}: calibration before the run failed ` +
                `(${errorMessage(error)}); the run has none`,
            );
            return undefined;
          })
          : undefined;
        const launcher = launchers.get(configuration.runtime ?? "deno")!;
        const appSign = calibrate && params.runtime != null
          ? await appSignRate(launcher, id)
          : undefined;
        // Ctrl-C during the calibration: the run has not started.
        if (options.signal?.aborted) break rounds;
        order.push(id);
        const once = async (load: RunLoad | undefined, run: number) => {
          const outcome = await runOnce(configuration, {
            id,
            params,
            services,
            driverModules: options.driverModules ?? [],
            launcher,
            signal: options.signal,
            run: { index: run, of: entry.maxRate ? 1 : runs },
            onProgress: options.onProgress,
            log: {
              path: log.path,
              level: params.logLevel ?? DEFAULT_LOG_LEVEL,
            },
            load,
          });
          return { ...outcome, log: await log.runSummary() };
        };
        let outcome: RunResult | undefined;
        if (entry.maxRate && params.load != null) {
          try {
            outcome = await searchMaxRate({
              load: params.load,
              recipients: params.recipients,
              ceiling: ceilings.get(generatorKey(configuration)) ?? Infinity,
              probe: (load) => once(load, 1),
              signal: options.signal,
            });
          } catch (error) {
            if (!options.signal?.aborted) throw error;
          }
        } else {
          outcome = await once(entry.load, index + 1);
        }
        if (outcome == null) break rounds;
        state.runs.push({
          ...outcome,
          ...(before == null ? {} : { calibration: before }),
          ...(appSign == null ? {} : { appSignRate: appSign }),
        });
        // A configuration that did not finish once would only burn its time
        // limit again: its result says how far the one run got.
        if (
          outcome.status !== "ok" || entry.maxRate ||
          index === plan.length - 1
        ) {
          state.done = true;
          state.logSummary = await log.close();
        }
        state.result = resultOf(state, params);
        if (configuration.generator && state.result.callsPerSecond != null) {
          ceilings.set(
            generatorKey(configuration),
            state.result.callsPerSecond,
          );
        }
        if (state.done) options.onResult?.(state.result, false);
        await saveSoFar();
      }
    }
    // Stopped early: close the logs of the configurations cut short.
    for (const state of states) {
      if (state.done || state.log == null || state.runs.length === 0) continue;
      state.done = true;
      state.logSummary = await state.log.close();
      state.result = resultOf(state, params);
      options.onResult?.(state.result, false);
    }
  } finally {
    for (const state of states) {
      if (!state.done && state.log != null) {
        await state.log.close().catch(() => undefined);
      }
    }
    if (options.services == null) await services.stopAll();
  }
  if (calibration != null && !options.signal?.aborted) {
    try {
      calibration = {
        ...calibration,
        end: await measureCalibration(options.calibrationSlices),
      };
    } catch (error) {
      // Every configuration is measured by now: keep the results.
      console.error(
        `calibration at the end failed (${errorMessage(error)}); the results ` +
          "are kept with end: null (--no-calibrate skips calibration)",
      );
    }
  }
  await refreshEnvironment();
  const final = document(new Date().toISOString());
  await save?.(final, true);
  return final;
}

/**
 * Why a configuration cannot run here (its driver or server unavailable, or
 * a crash test that does not apply), or `null` when it can.
 */
async function unavailability(
  configuration: Configuration,
  services: ServiceManager,
  params: SuiteParams,
  namespaceProbe?: NamespaceProbe,
  signal?: AbortSignal,
): Promise<string | null> {
  // --worker-hosts makes network namespaces: without root, no row can run.
  if (configuration.workerHosts != null) {
    const reason = namespacesUnavailable(namespaceProbe);
    if (reason != null) return reason;
  }
  const availability = await driverAvailability(
    configuration.driver,
    services,
    { signal },
  );
  if (!availability.available) return availability.reason;
  return configurationUnfit(configuration, params.crash);
}

/** The fields of a result that say which configuration it is. */
function configurationFields(
  configuration: Configuration,
  params: SuiteParams,
): Partial<ConfigurationResult> {
  return {
    ...(params.axes == null ? {} : {
      fanout: configuration.fanout,
      rsaBits: configuration.rsaBits,
    }),
    ...(configuration.parallelImpl == null
      ? {}
      : { parallelImpl: configuration.parallelImpl }),
    ...(configuration.orderingKey == null
      ? {}
      : { orderingKey: configuration.orderingKey }),
  };
}

/**
 * The app runtime's sign rate just before a row, as the row calibration
 * slices it; `undefined` (said on stderr) when it cannot be measured: a row
 * measured without it beats no row at all.
 */
async function appSignRate(
  launcher: AppLauncher,
  id: string,
): Promise<AppSignRate | undefined> {
  const slices = ROW_CALIBRATION.slices ?? 3;
  try {
    const { runtime, perSecond } = await measureAppSignRate(
      launcher,
      slices,
      ROW_CALIBRATION.sliceSeconds ?? 0.25,
    );
    return {
      runtime,
      rsaSignsPerSecond: Math.round(median(perSecond) * 10) / 10,
      spread: spreadOf(perSecond),
      slices,
    };
  } catch (error) {
    console.error(
      `${id}: the app runtime's sign rate before the run could not be ` +
        `measured (${errorMessage(error)}); the run has none`,
    );
    return undefined;
  }
}

/**
 * An entry's result from its runs so far: their aggregate, with the log's
 * summary once closed and, over several runs, the median calibration.
 */
function resultOf(state: EntryState, params: SuiteParams): ConfigurationResult {
  const { configuration, id } = state.entry;
  const calibrations = state.runs.flatMap((r) =>
    r.calibration == null ? [] : [r.calibration]
  );
  return {
    ...aggregateRuns(
      id,
      configurationName(configuration),
      configuration.parallelism,
      state.runs,
    ),
    ...configurationFields(configuration, params),
    ...(state.logSummary == null ? {} : { log: state.logSummary }),
    ...(state.runs.length > 1 && calibrations.length > 0
      ? { calibration: combineCalibrations(calibrations) }
      : {}),
  };
}
