/**
 * The configurations of a suite and the entries it runs: the baseline and
 * each driver expanded over parallelism, the swept axes, the app's runtimes
 * and its deployments (`--cpus`, `--queue-rtt`), their ids, which
 * crash tests apply, and, under steady load, the generator's run and each
 * configuration's idle, rate and max-rate entries.
 *
 * @module
 */
import { noneDriver } from "../../drivers/none/mod.ts";
import type { Driver } from "../../drivers/driver.ts";
import type { Availability } from "../services/service_types.ts";
import {
  BASELINE_DRIVER,
  configurationId,
  type FanoutMode,
  GENERATOR_DRIVER,
  type OrderingKey,
  type ParallelImpl,
  type RuntimeName,
  type SuiteParams,
} from "../results/mod.ts";
import type { ServiceManager } from "../services/mod.ts";
import type { RunLoad } from "../workload/plan.ts";
import { GENERATOR_RUN, loadUnits, needsGenerator } from "./steady.ts";

/** One configuration: a driver at a parallelism. */
export interface Configuration {
  /** The driver. */
  readonly driver: Driver;
  /** `ParallelMessageQueue` workers; 1 means no wrapper. */
  readonly parallelism: number;
  /**
   * The baseline: no queue and no `sendActivity`; the sender signs and POSTs
   * every delivery itself, `parallelism` at a time.
   */
  readonly direct?: boolean;
  /** Fedify's fanout option; the suite's when absent. */
  readonly fanout?: FanoutMode;
  /** RSA modulus length of the sender's key; the suite's when absent. */
  readonly rsaBits?: number;
  /** The parallel wrapper above parallelism 1; Fedify's when absent. */
  readonly parallelImpl?: ParallelImpl;
  /** `sendActivity`'s ordering key; the suite's when absent. */
  readonly orderingKey?: OrderingKey;
  /** The runtime the app's processes run on; Deno when absent. */
  readonly runtime?: RuntimeName;
  /** The cores the app's processes are pinned to; every core when absent. */
  readonly cpus?: number;
  /**
   * The round trip, ms, a delay proxy adds between the app and its queue
   * server; no proxy when absent (always for a queue without a server).
   */
  readonly queueRttMs?: number;
  /**
   * Hosts of their own (network namespaces) the workers are spread over;
   * the bench's host when absent (always for a queue not shared across
   * processes).
   */
  readonly workerHosts?: number;
  /**
   * The worker processes of the row in place of the suite's `workers`
   * (`--scale`), each on an agent of its own when {@link placement} is
   * `agents`; the suite's count when absent.
   */
  readonly workers?: number;
  /**
   * With `--agents`, where the workers run: on the agents, or on the
   * bench's host to compare (`--placement`); absent without agents.
   */
  readonly placement?: "agents" | "local";
  /**
   * The load generator's own limit: the sender's schedule against a queue
   * that drops every message (nothing is delivered).
   */
  readonly generator?: boolean;
}

/** The name a configuration goes by: its driver's, or `baseline`. */
export function configurationName(configuration: Configuration): string {
  if (configuration.generator) return GENERATOR_DRIVER;
  return configuration.direct ? BASELINE_DRIVER : configuration.driver.name;
}

/** The values swept within a suite, besides parallelism. */
export interface Axes {
  /** Fedify fanout options. */
  readonly fanout: readonly FanoutMode[];
  /** RSA key sizes. */
  readonly rsaBits: readonly number[];
  /** Ordering keys; `["none"]` when absent. */
  readonly orderingKey?: readonly OrderingKey[];
}

/** The deployments a suite sweeps (`--cpus`, `--queue-rtt`). */
export interface Deployments {
  /** Cores for the app; none: every core. */
  readonly cpus?: readonly number[];
  /** Round trips to the queue server, ms; none: no proxy. */
  readonly queueRttMs?: readonly number[];
  /** Hosts for the workers; none: the bench's host. */
  readonly workerHosts?: readonly number[];
  /** Worker processes per row, swept (`--scale`). */
  readonly scale?: readonly number[];
  /** Where the workers run, swept, when there are agents (`--placement`). */
  readonly placement?: readonly ("agents" | "local")[];
}

/**
 * The configurations of a suite: the baseline at each parallelism level
 * (when asked), then each driver; a queue-less driver runs once per axis
 * value.  Axes with more than one value multiply every configuration, and
 * each runtime of `runtimes` repeats them all (runtime by runtime).  Within
 * a runtime each core count of `deployments.cpus` repeats them, and each
 * round trip of `deployments.queueRttMs` repeats those whose driver has a
 * queue server (the others, which the proxy does not apply to, run once),
 * and each host count of `deployments.workerHosts` those that have separate
 * workers ({@link hasSeparateWorkers}).
 */
export function expandConfigurations(
  drivers: readonly Driver[],
  parallel: readonly number[],
  baseline = false,
  axes?: Axes,
  parallelImpls: readonly ParallelImpl[] = ["fedify"],
  runtimes: readonly RuntimeName[] = ["deno"],
  deployments: Deployments = {},
): Configuration[] {
  const swept = expandAxes(drivers, parallel, baseline, axes, parallelImpls);
  const cpus = deployments.cpus ?? [];
  const rtts = deployments.queueRttMs ?? [];
  const hosts = deployments.workerHosts ?? [];
  return sweepWorkers(
    runtimes.flatMap((runtime) =>
      (cpus.length === 0 ? [undefined] : cpus).flatMap((cores) =>
        swept.flatMap((c) =>
          (rtts.length === 0 || !hasQueueServer(c) ? [undefined] : rtts)
            .flatMap(
              (queueRttMs) =>
                (hosts.length === 0 || !hasSeparateWorkers(c)
                  ? [undefined]
                  : hosts)
                  .map((workerHosts): Configuration => ({
                    ...c,
                    ...(runtime === "deno" ? {} : { runtime }),
                    ...(cores == null ? {} : { cpus: cores }),
                    ...(queueRttMs == null ? {} : { queueRttMs }),
                    ...(workerHosts == null ? {} : { workerHosts }),
                  })),
            )
        )
      )
    ),
    deployments,
  );
}

/**
 * Each configuration with separate workers once per worker count of
 * `deployments.scale` and per place of `deployments.placement`; the others
 * once.
 */
function sweepWorkers(
  configurations: readonly Configuration[],
  deployments: Deployments,
): Configuration[] {
  const scale = deployments.scale ?? [];
  const places = deployments.placement ?? [];
  return configurations.flatMap((c) => {
    if (!hasSeparateWorkers(c)) return [c];
    return (scale.length === 0 ? [undefined] : scale).flatMap((workers) =>
      (places.length === 0 ? [undefined] : places).map((placement) => ({
        ...c,
        ...(workers == null ? {} : { workers }),
        ...(placement == null ? {} : { placement }),
      }))
    );
  });
}

/**
 * Whether the app of a configuration has worker processes apart from the
 * sender (that `--worker-hosts` can move): a queue shared across processes
 * (`Driver.crossProcess`), not the baseline's direct POSTs nor the load
 * generator's discarding queue.
 */
export function hasSeparateWorkers(configuration: Configuration): boolean {
  return configuration.driver.crossProcess &&
    configuration.driver.open != null && !configuration.direct &&
    !configuration.generator;
}

/**
 * Whether the app of a configuration reaches a queue server across a
 * connection (one `--queue-rtt` can delay): a driver with a `service`, not
 * the baseline's direct POSTs nor the load generator's discarding queue.
 */
export function hasQueueServer(configuration: Configuration): boolean {
  return configuration.driver.service != null && !configuration.direct &&
    !configuration.generator;
}

function expandAxes(
  drivers: readonly Driver[],
  parallel: readonly number[],
  baseline: boolean,
  axes: Axes | undefined,
  parallelImpls: readonly ParallelImpl[],
): Configuration[] {
  const floor: Configuration[] = baseline
    ? parallel.map((parallelism) => ({
      driver: noneDriver,
      parallelism,
      direct: true,
    }))
    : [];
  const plain: Configuration[] = [
    ...floor,
    ...drivers.flatMap((driver) =>
      driver.open == null
        ? [{ driver, parallelism: 1 }]
        : parallel.flatMap((parallelism) =>
          parallelism > 1
            ? parallelImpls.map((parallelImpl) => ({
              driver,
              parallelism,
              parallelImpl,
            }))
            : [{ driver, parallelism }]
        )
    ),
  ];
  if (axes == null) return plain;
  const keys = axes.orderingKey ?? ["none"];
  return plain.flatMap((c) =>
    axes.rsaBits.flatMap((rsaBits) =>
      // The baseline does not use sendActivity, so fanout and ordering keys
      // do not apply.
      (c.direct ? [axes.fanout[0]] : axes.fanout).flatMap((fanout) =>
        (c.direct ? [keys[0]] : keys).map((orderingKey) => ({
          ...c,
          fanout,
          rsaBits,
          ...(keys.length > 1 ? { orderingKey } : {}),
        }))
      )
    )
  );
}

/**
 * Why a configuration cannot run as asked, or `null` if it can: its driver
 * does not run on the configuration's runtime (`Driver.runtimes`), or a
 * crash test does not apply (without a queue there is nothing to lose, and
 * without a server the bench started there is no server to kill).
 */
export function configurationUnfit(
  configuration: Configuration,
  crash: SuiteParams["crash"],
): string | null {
  const runtime = configuration.runtime ?? "deno";
  const runtimes = configuration.driver.runtimes;
  if (runtimes != null && !runtimes.includes(runtime)) {
    return `runs on ${runtimes.join(", ")} only, not ${runtime}` +
      (configuration.driver.runtimesNote == null
        ? ""
        : `: ${configuration.driver.runtimesNote}`);
  }
  if (crash == null) return null;
  const flag = crash.serverAt != null
    ? "--crash-server-at"
    : "--crash-worker-at";
  if (configuration.direct || configuration.driver.open == null) {
    return `${flag}: this configuration has no queue, so a crash has ` +
      "nothing to lose";
  }
  if (crash.serverAt != null && configuration.driver.service == null) {
    return "--crash-server-at: this configuration has no queue server to " +
      "crash";
  }
  return null;
}

/** The id of a configuration, with the swept axes' values when any. */
export function idOf(configuration: Configuration, axes?: Axes): string {
  let id = configurationId(
    configurationName(configuration),
    configuration.parallelism,
  );
  if (axes != null && axes.fanout.length > 1 && !configuration.direct) {
    id += `-fanout-${configuration.fanout}`;
  }
  if (axes != null && axes.rsaBits.length > 1) {
    id += `-rsa${configuration.rsaBits}`;
  }
  if (
    (axes?.orderingKey?.length ?? 0) > 1 && !configuration.direct &&
    configuration.orderingKey != null
  ) {
    id += `-key-${configuration.orderingKey}`;
  }
  if ((configuration.parallelImpl ?? "fedify") !== "fedify") {
    id += `-${configuration.parallelImpl}`;
  }
  if ((configuration.runtime ?? "deno") !== "deno") {
    id += `-${configuration.runtime}`;
  }
  if (configuration.cpus != null) id += `-cpu${configuration.cpus}`;
  if (configuration.queueRttMs != null) id += `-rtt${configuration.queueRttMs}`;
  if (configuration.workerHosts != null) {
    id += `-hosts${configuration.workerHosts}`;
  }
  if (configuration.workers != null) id += `-w${configuration.workers}`;
  if (configuration.placement === "agents") id += "-agents";
  return id;
}

/**
 * Whether a driver can run here (its server available, its own checks).
 *
 * @param driver The driver.
 * @param services Where its server comes from.
 * @param fetch Fetch its server's programs now where they must be fetched
 *   (a failed fetch then makes it unavailable); leave it out to only say
 *   that they would be (`--list`).
 */
export async function driverAvailability(
  driver: Driver,
  services: ServiceManager,
  fetch?: { readonly signal?: AbortSignal },
): Promise<Availability> {
  if (driver.service != null) {
    const service = fetch == null
      ? services.availability(driver.service)
      : await services.provision(driver.service, fetch.signal);
    if (!service.available) return service;
  }
  return await driver.availability?.() ?? { available: true };
}

/** One entry of a suite: a configuration, and what its run(s) send. */
export interface SuiteEntry {
  /** The configuration. */
  readonly configuration: Configuration;
  /** Its result's id. */
  readonly id: string;
  /** What each run sends; a burst of TOTAL when absent. */
  readonly load?: RunLoad;
  /** Whether the entry is a max-rate search. */
  readonly maxRate?: boolean;
}

/**
 * The entries of a suite in run order: each configuration once for a burst
 * suite; under steady load the load generator's own run first (one per
 * runtime and core count), then each configuration's idle, rate, senders
 * and max-rate entries.
 */
export function suiteEntries(
  configurations: readonly Configuration[],
  params: SuiteParams,
  axes: Axes | undefined = params.axes,
): SuiteEntry[] {
  const load = params.load;
  if (load == null) {
    return configurations.map((configuration) => ({
      configuration,
      id: idOf(configuration, axes),
    }));
  }
  // One generator row per runtime (and core count): each runtime's sender
  // has its own limit, and each runtime's searches are held below their own.
  const apps = new Map<string, Pick<Configuration, "runtime" | "cpus">>();
  for (const c of configurations) {
    apps.set(generatorKey(c), {
      ...(c.runtime == null || c.runtime === "deno"
        ? {}
        : { runtime: c.runtime }),
      ...(c.cpus == null ? {} : { cpus: c.cpus }),
    });
  }
  const generator: SuiteEntry[] = needsGenerator(load)
    ? [...apps.values()].map((app) => {
      const configuration: Configuration = {
        driver: noneDriver,
        parallelism: 1,
        generator: true,
        ...app,
      };
      return {
        configuration,
        id: idOf(configuration),
        load: { kind: "senders", ...GENERATOR_RUN },
      };
    })
    : [];
  return [
    ...generator,
    ...configurations.flatMap((configuration) =>
      loadUnits(load).map((unit) => ({
        configuration,
        id: idOf(configuration, axes) + unit.suffix,
        load: unit.load,
        maxRate: unit.maxRate,
      }))
    ),
  ];
}

/**
 * Which load generator row holds a configuration's searches below its
 * limit: the one of its runtime and core count.
 */
export function generatorKey(configuration: Configuration): string {
  const runtime = configuration.runtime ?? "deno";
  return configuration.cpus == null
    ? runtime
    : `${runtime}/${configuration.cpus}`;
}
