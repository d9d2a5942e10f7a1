/**
 * A run's deployment: the app on fewer cores (`--cpus`) and its queue
 * server a network hop away (`--queue-rtt`), as one adapter the runner
 * asks at each step.  With `--cpus N` the app's processes start on the
 * first N of the bench's CPUs (a `taskset` launcher); the inbox, the
 * bench's own process (the runner and the delay proxies) and a queue
 * server the bench started are pinned to the rest, when there is a rest,
 * and the bench's own CPUs come back after the run.  With `--queue-rtt`
 * the app reaches its server through two delay proxies
 * (`role_proxies.ts`).  With `--worker-hosts N` the workers start inside
 * N network namespaces, round-robin, and reach the queue server and the
 * inbox through forwarders the bench runs on an address of its side of
 * their links (the workers' delay proxy listens there with `--queue-rtt`).
 * The row records all three ({@link deploymentRecord}).
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";
import type {
  DeploymentRecord,
  PinningRecord,
  ProcessRecord,
  ProxyRecord,
  RoundTripsRecord,
  SuiteParams,
} from "../results/mod.ts";
import {
  type AcquiredService,
  allowedCpus,
  CpuQuotaGroups,
  type CpuSplit,
  DelayProxy,
  type Endpoint,
  formatCpuList,
  NamespaceHosts,
  pinnedLauncher,
  pinProcess,
  pinProcessTree,
  redactUrl,
  rerouteUrls,
  splitCpus,
  tasksetPath,
  urlEndpoint,
} from "../services/mod.ts";
import { DENO_LAUNCHER, type Launcher } from "../system/process.ts";
import {
  type Configuration,
  hasQueueServer,
  hasSeparateWorkers,
} from "./configurations.ts";
import { RoleProxies, roundTripsPerDelivery } from "./role_proxies.ts";
import { AgentPlacement } from "./agent_placement.ts";
import { parseAgentsSpec } from "../params/mod.ts";

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
 * Why `--worker-hosts` does not apply to a configuration (it has no worker
 * processes apart from the sender), or `null` when it does or was not
 * asked.
 */
export function workerHostsNotApplied(
  configuration: Configuration,
  params: SuiteParams,
): string | null {
  if ((params.workerHosts ?? []).length === 0) return null;
  if (hasSeparateWorkers(configuration)) return null;
  if (configuration.direct) {
    return "the baseline has no queue, so there are no workers to move";
  }
  if (configuration.generator) {
    return "the load generator's queue drops every message: there are no " +
      "workers to move";
  }
  return `${configuration.driver.name}'s queue is not shared across ` +
    "processes (the sender consumes it itself), so there are no worker " +
    "processes to put on hosts of their own";
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
  const notApplied = {
    ...optional("queueRttMs", queueRttNotApplied(configuration, params)),
    ...optional("workerHosts", workerHostsNotApplied(configuration, params)),
  };
  return {
    cpus: configuration.cpus ?? null,
    queueRttMs: configuration.queueRttMs ?? null,
    workerHosts: configuration.workerHosts ?? null,
    ...(configuration.workers == null ? {} : { scale: configuration.workers }),
    ...(configuration.placement == null
      ? {}
      : { placement: configuration.placement }),
    ...(Object.keys(notApplied).length === 0 ? {} : { notApplied }),
  };
}

function optional(
  key: string,
  value: string | null,
): Record<string, string> {
  return value == null ? {} : { [key]: value };
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
  #hosts: NamespaceHosts | undefined;
  /** The row's agents (`--agents`, `--sender-agent`). */
  #agents: AgentPlacement | undefined;
  /** The local workers' CPU limit (`--worker-cpu-limit`). */
  #quota: CpuQuotaGroups | undefined;
  /** Forwarders from the hosts' side to the bench's servers and inbox. */
  readonly #forwarders: DelayProxy[] = [];
  /** The queue server's forwarder, from its endpoint to the forwarder's. */
  #serverRoute: { from: Endpoint; to: Endpoint } | undefined;

  /** Plans a run's deployment; nothing is pinned or started yet. */
  constructor(configuration: Configuration, params: SuiteParams) {
    this.#configuration = configuration;
    this.#params = params;
    this.#cores = navigator.hardwareConcurrency;
  }

  /**
   * The CPU limit each consuming process was held to, cores, as the stage
   * model takes it: the local workers' (`--worker-cpu-limit`), or the
   * smallest of the worker agents' when every one has a limit.
   */
  consumerCpuLimit(): { consumerCpuLimit?: number } {
    const limit = this.#quota?.record().cpus ?? this.#agents?.workerCpuLimit();
    return limit == null ? {} : { consumerCpuLimit: limit };
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
   * With `--worker-hosts`, makes the namespace hosts (no more than
   * `workers`, the worker processes).  With `--cpus`, splits the bench's CPUs and pins the bench's own process
   * (every thread: the runner, the delay proxies) to those the app does not
   * get, when there are any.
   * @throws {RangeError} When the configuration's cores are more than the
   *   bench's CPUs.
   * @throws {Error} When `taskset` is missing or fails, or namespaces
   *   cannot be made.
   */
  async start(workers: number, signal?: AbortSignal): Promise<void> {
    const hosts = this.#configuration.workerHosts;
    if (hosts != null && workers > 0) {
      // No more hosts than workers: a host without one would be idle.
      this.#hosts = await NamespaceHosts.create(Math.min(hosts, workers));
    }
    await this.#placeAgents(workers, signal);
    const limit = this.#params.workerCpuLimit;
    if (limit != null && workers > 0 && !this.#agents?.hasWorkers) {
      this.#quota = await CpuQuotaGroups.create(workers, limit);
    }
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
    const gateway = this.#gateway();
    if (rtt != null) {
      this.#proxies = RoleProxies.start(url, rtt, gateway);
      return this.#proxies.prepareUrl;
    }
    if (gateway == null) return url;
    const from = urlEndpoint(url);
    if (from == null) {
      throw new Error(
        `--worker-hosts: the queue server's URL ${redactUrl(url)} names no ` +
          "single TCP host and port to forward the workers' connections " +
          "to; give its URL as scheme://host:port, or drop --worker-hosts",
      );
    }
    this.#serverRoute = { from, to: this.#forward(from) };
    return url;
  }

  /**
   * The prepared configuration for the sender and for the workers: with
   * `--queue-rtt`, each through its own proxy; with `--worker-hosts`, the
   * workers' through the forwarder their hosts reach.
   * @throws {Error} When the workers' connections cannot be routed.
   */
  configs<T>(config: T): { readonly sender: T; readonly worker: T } {
    if (this.#proxies != null) return this.#proxies.route(config);
    const route = this.#serverRoute;
    if (route == null) return { sender: config, worker: config };
    const { value, replaced } = rerouteUrls(config, route.from, route.to);
    if (replaced === 0) {
      throw new Error(
        "--worker-hosts: the driver's prepared configuration holds no URL " +
          "of the server it was given, so the workers on their hosts " +
          "cannot reach it; keep the serviceUrl prepare() gets as a URL " +
          "string in the configuration, or drop --worker-hosts",
      );
    }
    const workersElsewhere = this.#hosts != null ||
      this.#agents?.hasWorkers === true;
    return {
      sender: this.#agents?.hasSender ? value : config,
      worker: workersElsewhere ? value : config,
    };
  }

  /**
   * The origin under which the workers reach an inbox of the bench (its
   * URL is in the messages the sender enqueues): with `--worker-hosts`, a
   * forwarder on the bench's side of the hosts' links, which the sender
   * reaches too; `origin` itself otherwise.
   */
  inboxOrigin(origin: string): string {
    if (this.#gateway() == null) return origin;
    const from = urlEndpoint(origin);
    if (from == null) {
      throw new Error(`an inbox origin without a port: ${origin}`);
    }
    const to = this.#forward(from);
    return `http://${to.hostname}:${to.port}`;
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

  /**
   * How worker `index` starts: as the app's processes do, inside host
   * `index` modulo the hosts with `--worker-hosts`.
   */
  workerLauncher<L extends Launcher>(
    launcher: L | undefined,
    index: number,
  ): L | undefined {
    if (this.#agents?.hasWorkers) {
      return this.#agents.workerLauncher(index) as L;
    }
    const hosts = this.#hosts;
    const placed = hosts == null
      ? this.appLauncher(launcher)
      : this.appLauncher(hosts.launcher(launcher ?? DENO_LAUNCHER as L, index));
    return this.#quota == null
      ? placed
      : this.#quota.launcher(placed ?? DENO_LAUNCHER as L, index) as L;
  }

  /** How the sender starts: on its agent, or as the app's processes do. */
  senderLauncher<L extends Launcher>(launcher: L | undefined): L | undefined {
    return (this.#agents?.senderLauncher() as L | undefined) ??
      this.appLauncher(launcher);
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

  /**
   * The measured window ends: the proxies' figures are taken, the agents'
   * clocks read again.
   */
  async endWindow(): Promise<void> {
    this.#proxies?.endWindow();
    await this.#agents?.finish();
  }

  /**
   * What the row records: the deployment, and with proxies what they
   * carried and the round trips per delivery.
   */
  fields(
    delivered: number,
    workers: number,
    processes: readonly ProcessRecord[],
    latencyMedianMs: number | null,
  ): DeploymentFields {
    const split = this.#split;
    const deployment: DeploymentRecord = {
      ...deploymentRecord(this.#configuration, this.#params),
      ...(this.#agents == null
        ? {}
        : { agents: this.#agents.record(processes, latencyMedianMs) }),
      ...(this.#quota == null ? {} : { workerCpuLimit: this.#quota.record() }),
      ...(this.#hosts == null ? {} : {
        hostAddresses: this.#hosts.hosts.map((host) => host.address),
      }),
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
   * Closes the proxies and forwarders, removes the namespace hosts and
   * gives the bench its CPUs back; after the app's processes have stopped
   * and the queue was cleaned up.
   */
  async close(): Promise<void> {
    try {
      await this.#proxies?.close();
      await Promise.all(this.#forwarders.map((f) => f.close()));
    } finally {
      await this.#hosts?.close();
      await this.#quota?.close();
    }
    if (this.#benchPinned && this.#benchCpus != null) {
      this.#benchPinned = false;
      await pinProcess(Deno.pid, this.#benchCpus, this.#taskset);
    }
  }

  /**
   * With `--agents` or `--sender-agent` (the placement's), reaches the
   * row's agents and checks them before anything starts.
   */
  async #placeAgents(workers: number, signal?: AbortSignal): Promise<void> {
    const params = this.#params;
    const onAgents = this.#configuration.placement === "agents" &&
      params.agents != null && workers > 0;
    if (!onAgents && params.senderAgent == null) return;
    this.#agents = await AgentPlacement.open({
      ...(onAgents ? { workers: parseAgentsSpec(params.agents!)! } : {}),
      workerCount: workers,
      oneEach: this.#configuration.workers != null,
      ...(params.senderAgent == null ? {} : { sender: params.senderAgent }),
      signal,
    });
  }

  /**
   * The address other hosts reach the bench at: the namespace hosts'
   * gateway, or where the agents see the bench.
   */
  #gateway(): string | undefined {
    return this.#hosts?.gateway ?? this.#agents?.gateway;
  }

  /**
   * Starts a forwarder (a delay proxy that adds nothing) on the hosts'
   * gateway to `target`; returns where it listens.
   */
  #forward(target: Endpoint): Endpoint {
    const hostname = this.#gateway()!;
    const forwarder = DelayProxy.start({ target, oneWayMs: 0, hostname });
    this.#forwarders.push(forwarder);
    return { hostname, port: forwarder.port };
  }
}
