/**
 * Runs a suite of configurations one after another, skipping those that
 * cannot run here, and rewriting the results file after each one so that an
 * interrupted suite keeps what finished.
 *
 * @module
 */
import type { Availability, Driver } from "./driver.ts";
import { writeResults } from "./report.ts";
import {
  type ConfigurationResult,
  configurationId,
  type ResultsDocument,
  type SuiteParams,
} from "./results.ts";
import { type Configuration, type Progress, runConfiguration } from "./runner.ts";
import { ServiceManager } from "./services/mod.ts";

/** Options for {@link runSuite}. */
export interface SuiteOptions {
  /** Sizes and limits shared by every configuration. */
  readonly params: SuiteParams;
  /** Drivers to run, in order. */
  readonly drivers: readonly Driver[];
  /** Parallelism levels for drivers that have a queue. */
  readonly parallel: readonly number[];
  /** User driver modules that child processes must load. */
  readonly driverModules?: readonly string[];
  /** If set, results are written here after every configuration. */
  readonly outDir?: string;
  /** Stops the suite (Ctrl-C); the running configuration ends `incomplete`. */
  readonly signal?: AbortSignal;
  /** Live progress of the running configuration. */
  readonly onProgress?: (progress: Progress) => void;
  /** Called when a configuration ends. */
  readonly onResult?: (result: ConfigurationResult) => void;
}

/** The configurations of a suite: a queue-less driver runs once. */
export function expandConfigurations(
  drivers: readonly Driver[],
  parallel: readonly number[],
): Configuration[] {
  return drivers.flatMap((driver) =>
    driver.open == null
      ? [{ driver, parallelism: 1 }]
      : parallel.map((parallelism) => ({ driver, parallelism }))
  );
}

/** Whether a driver can run here (its server available, its own checks). */
export async function driverAvailability(
  driver: Driver,
  services: ServiceManager,
): Promise<Availability> {
  if (driver.service != null) {
    const service = services.availability(driver.service);
    if (!service.available) return service;
  }
  return await driver.availability?.() ?? { available: true };
}

function skipped(
  configuration: Configuration,
  params: SuiteParams,
  reason: string,
): ConfigurationResult {
  const { driver, parallelism } = configuration;
  const expected = params.total * params.recipients;
  return {
    id: configurationId(driver.name, parallelism),
    driver: driver.name,
    parallelism,
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
  };
}

/** Runs every configuration and returns the results document. */
export async function runSuite(options: SuiteOptions): Promise<ResultsDocument> {
  const { params } = options;
  const services = new ServiceManager();
  const startedAt = new Date().toISOString();
  const results: ConfigurationResult[] = [];
  const document = (finishedAt: string | null): ResultsDocument => ({
    schemaVersion: 1,
    startedAt,
    finishedAt,
    params,
    results: [...results],
  });
  try {
    for (
      const configuration of expandConfigurations(
        options.drivers,
        options.parallel,
      )
    ) {
      if (options.signal?.aborted) break;
      const availability = await driverAvailability(
        configuration.driver,
        services,
      );
      const result = availability.available
        ? await runConfiguration(configuration, {
          params,
          services,
          driverModules: options.driverModules ?? [],
          signal: options.signal,
          onProgress: options.onProgress,
        })
        : skipped(configuration, params, availability.reason);
      results.push(result);
      options.onResult?.(result);
      if (options.outDir != null) {
        await writeResults(options.outDir, document(null));
      }
    }
  } finally {
    await services.stopAll();
  }
  const final = document(new Date().toISOString());
  if (options.outDir != null) await writeResults(options.outDir, final);
  return final;
}
