/**
 * A run's deployment: the app on fewer cores (`--cpus`) and its queue
 * server a network hop away (`--queue-rtt`), as one adapter the runner
 * asks at each step.  With `--cpus N` the app's processes start on the
 * first N of the bench's CPUs (a `taskset` launcher); the inbox, the
 * bench's own process (the runner and the delay proxies) and a queue
 * server the bench started are pinned to the rest, when there is a rest,
 * and the bench's own CPUs come back after the run.  With `--queue-rtt`
 * the app reaches its server through two delay proxies
 * (`role_proxies.ts`).  The row records both ({@link deploymentRecord}).
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";
import type {
  DeploymentRecord,
  PinningRecord,
  ProxyRecord,
  RoundTripsRecord,
  SuiteParams,
} from "../results/types.ts";
import {
  type AcquiredService,
  allowedCpus,
  type CpuSplit,
  formatCpuList,
  pinnedLauncher,
  pinProcess,
  pinProcessTree,
  splitCpus,
  tasksetPath,
} from "../services/mod.ts";
import { DENO_LAUNCHER, type Launcher } from "../system/process.ts";
import { type Configuration, hasQueueServer } from "./configurations.ts";
import { RoleProxies, roundTripsPerDelivery } from "./role_proxies.ts";

/**
 * Why `--queue-rtt` does not apply to a configuration (it has no queue
 * server), or `null` when it does or was not asked.
 */
export function queueRttNotApplied(
  configuration: Configuration,
  params: SuiteParams,
): string | null {
  if ((params.queueRttMs ?? []).length === 0) return null;
  if (hasQueueServer(configuration)) return null;
  if (configuration.direct) {
    return "the baseline has no queue, so there is no queue server to delay";
  }
  if (configuration.generator) {
    return "the load generator's queue drops every message: there is no " +
      "queue server to delay";
  }
  return `${configuration.driver.name} has no queue server (its queue is ` +
    "in the app's process or a local file), so there is no network hop to " +
    "delay";
}

/**
 * The deployment a row records before anything ran (a skipped row, or the
 * start of a run's record): the configuration's cores and round trip, and
 * the flags that do not apply to it.
 */
export function deploymentRecord(
  configuration: Configuration,
  params: SuiteParams,
): DeploymentRecord {
  const notApplied = queueRttNotApplied(configuration, params);
  return {
    cpus: configuration.cpus ?? null,
    queueRttMs: configuration.queueRttMs ?? null,
    workerHosts: null,
    ...(notApplied == null ? {} : { notApplied: { queueRttMs: notApplied } }),
  };
}

/** What a run's deployment adds to its result. */
export interface DeploymentFields {
  /** See `RunResult.deployment`. */
  readonly deployment: DeploymentRecord;
  /** See `RunResult.proxy`. */
  readonly proxy?: ProxyRecord;
  /** See `RunResult.roundTripsPerDelivery`. */
  readonly roundTripsPerDelivery?: RoundTripsRecord;
}

/** The deployment of one run: its pinning and its proxies. */
export class RunDeployment {
  readonly #configuration: Configuration;
  readonly #params: SuiteParams;
  #split: CpuSplit | undefined;
  #taskset: string | undefined;
  /** The bench's own CPUs before the run, given back after it. */
  #benchCpus: readonly number[] | undefined;
  readonly #cores: number;
  #benchPinned = false;
  #server: Pick<PinningRecord, "server" | "serverNote"> = {
    server: null,
    serverNote: "the configuration has no queue server",
  };
  #proxies: RoleProxies | undefined;

  /** Plans a run's deployment; nothing is pinned or started yet. */
  constructor(configuration: Configuration, params: SuiteParams) {
    this.#configuration = configuration;
    this.#params = params;
    this.#cores = navigator.hardwareConcurrency;
  }

  /**
   * The cores the run's processes share, read before the bench pinned
   * itself: the stage model's `cores` (which, under `--cpus`, does not split
   * its CPU bound between the app's cores and the rest).
   */
  get cores(): number {
    return this.#cores;
  }

  /**
   * With `--cpus`, splits the bench's CPUs and pins the bench's own process
   * (every thread: the runner, the delay proxies) to those the app does not
   * get, when there are any.
   * @throws {RangeError} When the configuration's cores are more than the
   *   bench's CPUs.
   * @throws {Error} When `taskset` is missing or fails.
   */
  async start(): Promise<void> {
    const cpus = this.#configuration.cpus;
    if (cpus == null) return;
    // Read before anything is pinned: the bench's own CPUs.
    const allowed = allowedCpus();
    const split = splitCpus(allowed, cpus);
    this.#taskset = tasksetPath();
    this.#benchCpus = allowed;
    this.#split = split;
    if (split.rest.length === 0) return;
    await pinProcess(Deno.pid, split.rest, this.#taskset);
    this.#benchPinned = true;
  }

  /**
   * Pins the queue server's process tree to the CPUs the app does not get
   * (to every CPU when it gets them all, undoing an earlier row's
   * pinning); a server the user gave by URL is left where it runs.
   */
  async pinServer(
    service: NonNullable<Driver["service"]>,
    acquired: AcquiredService,
  ): Promise<void> {
    if (this.#split == null) return;
    if (!acquired.startedByBench || acquired.pid == null) {
      this.#server = {
        server: null,
        serverNote: `the user's own server ($${service.urlEnv}) is left ` +
          "where it runs",
      };
      return;
    }
    await this.repinServer(acquired.pid);
  }

  /**
   * Pins a server the bench started, by its main process id (again after a
   * crash test restarted it).
   */
  async repinServer(pid: number): Promise<void> {
    const split = this.#split;
    if (split == null) return;
    const cpus = split.rest.length > 0 ? split.rest : split.app;
    await pinProcessTree(pid, cpus, this.#taskset);
    this.#server = { server: formatCpuList(cpus) };
  }

  /**
   * The server's URL as `prepare()` is to get it: through the sender's
   * delay proxy with `--queue-rtt` (started here), as it is otherwise.
   */
  route(url: string): string {
    const rtt = this.#configuration.queueRttMs;
    if (rtt == null) return url;
    this.#proxies = RoleProxies.start(url, rtt);
    return this.#proxies.prepareUrl;
  }

  /**
   * The prepared configuration for the sender and for the workers: with
   * `--queue-rtt`, each through its own proxy.
   */
  configs<T>(config: T): { readonly sender: T; readonly worker: T } {
    return this.#proxies?.route(config) ?? { sender: config, worker: config };
  }

  /** How the app's processes start: on the app's CPUs with `--cpus`. */
  appLauncher<L extends Launcher>(launcher: L | undefined): L | undefined {
    if (this.#split == null) return launcher;
    return pinnedLauncher(
      launcher ?? DENO_LAUNCHER as L,
      this.#split.app,
      this.#taskset,
    );
  }

  /** How the inbox starts: on the others' CPUs, when there are any. */
  inboxLauncher(): Launcher | undefined {
    const rest = this.#split?.rest ?? [];
    return rest.length === 0
      ? undefined
      : pinnedLauncher(DENO_LAUNCHER, rest, this.#taskset);
  }

  /** The measured window starts: the proxies count afresh. */
  startWindow(): void {
    this.#proxies?.startWindow();
  }

  /** The measured window ends: the proxies' figures are taken. */
  endWindow(): void {
    this.#proxies?.endWindow();
  }

  /**
   * What the row records: the deployment, and with proxies what they
   * carried and the round trips per delivery.
   */
  fields(delivered: number, workers: number): DeploymentFields {
    const split = this.#split;
    const deployment: DeploymentRecord = {
      ...deploymentRecord(this.#configuration, this.#params),
      ...(split == null ? {} : {
        pinning: {
          app: formatCpuList(split.app),
          others: split.rest.length === 0 ? null : formatCpuList(split.rest),
          ...this.#server,
        },
      }),
    };
    if (this.#proxies == null) return { deployment };
    const proxy = this.#proxies.record(workers);
    return {
      deployment,
      proxy,
      roundTripsPerDelivery: roundTripsPerDelivery(proxy, delivered),
    };
  }

  /**
   * Closes the proxies and gives the bench its CPUs back; after the app's
   * processes have stopped and the queue was cleaned up.
   */
  async close(): Promise<void> {
    await this.#proxies?.close();
    if (this.#benchPinned && this.#benchCpus != null) {
      this.#benchPinned = false;
      await pinProcess(Deno.pid, this.#benchCpus, this.#taskset);
    }
  }
}
