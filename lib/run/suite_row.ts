/**
 * The parts of a suite that concern one row (one configuration): why it
 * cannot run here, what a skipped run records, the app runtime's sign rate
 * before it, and its result from its runs so far.  `suite.ts` runs the
 * rows in their rounds.
 *
 * @module
 */
import type { FedifyLogFile } from "./fedify_log_file.ts";
import {
  combineCalibrations,
  measureAppSignRate,
  ROW_CALIBRATION,
} from "./calibrate.ts";
import type {
  AppSignRate,
  ConfigurationResult,
  LogSummary,
  RunResult,
  SuiteParams,
} from "../results/mod.ts";
import {
  type Configuration,
  configurationName,
  configurationUnfit,
  driverAvailability,
  type SuiteEntry,
} from "./configurations.ts";
import { errorMessage } from "../results/error_message.ts";
import {
  type AppLauncher,
  type NamespaceProbe,
  namespacesUnavailable,
  type ServiceManager,
} from "../services/mod.ts";
import { aggregateRuns, median, spreadOf } from "../measure/stats.ts";

/** The result of a run that did not start, and why. */
export function skippedRun(params: SuiteParams, reason: string): RunResult {
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
export interface EntryState {
  readonly entry: SuiteEntry;
  readonly runs: RunResult[];
  log?: FedifyLogFile;
  logSummary?: LogSummary;
  result?: ConfigurationResult;
  /** Whether it runs no more: all its runs made, skipped, kept or stopped. */
  done: boolean;
}

/**
 * Why a configuration cannot run here (its driver or server unavailable, or
 * a crash test that does not apply), or `null` when it can.
 */
export async function unavailability(
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
export function configurationFields(
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
export async function appSignRate(
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
export function resultOf(
  state: EntryState,
  params: SuiteParams,
): ConfigurationResult {
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
