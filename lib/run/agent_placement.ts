/**
 * A row's roles on agents (`--agents`, `--sender-agent`): the agents it
 * uses, reached and checked (protocol, token) before anything starts, the
 * launchers that start its workers (round-robin) and its sender there, the
 * address the agents reach the bench at (where its forwarders listen), and
 * each agent's clock before and after the row, which the row records with
 * the agent's host, image, limits, roles, CPU and memory.
 *
 * @module
 */
import {
  AgentClient,
  type AgentHello,
  clockMarks,
  measureOffset,
  ownStackService,
  resolveSwarmAgents,
  rowUncertainty,
  tokenFromEnv,
} from "../agent/mod.ts";
import type {
  AgentRecord,
  AgentsRecord,
  ClockEstimate,
  ProcessRecord,
} from "../results/mod.ts";
import type { AgentsSpec } from "../params/mod.ts";
import type { Launcher } from "../system/process.ts";
import { roundTo, sumOrNull } from "../measure/stats.ts";

/** One agent of a row. */
interface PlacedAgent {
  readonly client: AgentClient;
  readonly hello: AgentHello;
  readonly before: ClockEstimate;
  after: ClockEstimate | null;
}

/** What {@link AgentPlacement.open} places. */
export interface PlacementOptions {
  /** The agents the workers go to; none: the workers stay here. */
  readonly workers?: AgentsSpec;
  /** How many workers the row has. */
  readonly workerCount: number;
  /** One agent per worker (`--scale`): fewer agents is an error. */
  readonly oneEach: boolean;
  /** The sender's agent, `HOST:PORT`. */
  readonly sender?: string;
  /** Cuts the waits short. */
  readonly signal?: AbortSignal;
}

/** The agents of one row. */
export class AgentPlacement {
  readonly #workers: PlacedAgent[];
  readonly #sender: PlacedAgent | undefined;

  private constructor(workers: PlacedAgent[], sender: PlacedAgent | undefined) {
    this.#workers = workers;
    this.#sender = sender;
  }

  /**
   * Reaches the row's agents, checks each, and estimates their clocks.
   * @throws {Error} When an agent does not answer, refuses the token,
   *   speaks another protocol, or there are fewer agents than the row needs.
   */
  static async open(options: PlacementOptions): Promise<AgentPlacement> {
    const token = tokenFromEnv("bench");
    const addresses = options.workers == null
      ? []
      : await agentAddresses(options.workers, options.signal);
    if (options.oneEach && addresses.length < options.workerCount) {
      throw new Error(
        `--scale ${options.workerCount} puts each worker on an agent of its ` +
          `own, and --agents gives ${addresses.length}: start more agents ` +
          "(or scale the swarm service), or lower --scale",
      );
    }
    const used = addresses.slice(0, options.workerCount);
    const workers = await Promise.all(used.map((a) => place(a, token)));
    const sender = options.sender == null
      ? undefined
      : await place(options.sender, token);
    return new AgentPlacement(workers, sender);
  }

  /** Whether the workers run on agents. */
  get hasWorkers(): boolean {
    return this.#workers.length > 0;
  }

  /** Whether the sender runs on an agent. */
  get hasSender(): boolean {
    return this.#sender != null;
  }

  /**
   * The bench's address as the agents see it: their requests came from
   * there, so they reach the bench's forwarders there.
   */
  get gateway(): string {
    const first = this.#workers[0] ?? this.#sender;
    if (first == null) throw new Error("a placement without agents");
    return first.hello.peer;
  }

  /** How worker `index` starts: on agent `index` modulo the agents. */
  workerLauncher(index: number): Launcher {
    const agent = this.#workers[index % this.#workers.length];
    return agent.client.launcher();
  }

  /**
   * The smallest CPU limit of the worker agents, cores, when every one
   * has a limit (a swarm replica's `cpus:`); `undefined` otherwise.
   */
  workerCpuLimit(): number | undefined {
    const limits = this.#workers.map((a) => a.hello.agent.cpuLimit);
    if (limits.length === 0 || limits.includes(null)) return undefined;
    return Math.min(...limits as number[]);
  }

  /** How the sender starts, when it runs on an agent. */
  senderLauncher(): Launcher | undefined {
    return this.#sender?.client.launcher();
  }

  /** Estimates each agent's clock again, after the row. */
  async finish(): Promise<void> {
    await Promise.all(
      this.#all().map(async (agent) => {
        try {
          agent.after = await measureOffset(() => agent.client.clockSample());
        } catch {
          agent.after = null;
        }
      }),
    );
  }

  /**
   * What the row records: each agent with the processes it ran (from the
   * row's process records, which name their agent), its clock, and whether
   * the row's median latency is marked by the clocks' uncertainty.
   */
  record(
    processes: readonly ProcessRecord[],
    latencyMedianMs: number | null,
  ): AgentsRecord {
    const agents = this.#all().map((agent) => agentRecord(agent, processes));
    const clockUncertaintyMs = Math.max(
      0,
      ...agents.map((a) => a.clock.uncertaintyMs),
    );
    return {
      agents,
      gateway: this.gateway,
      clockUncertaintyMs,
      latencyClockMarked: latencyMedianMs != null &&
        clockMarks(clockUncertaintyMs, latencyMedianMs),
    };
  }

  #all(): PlacedAgent[] {
    const all = [...this.#workers];
    if (this.#sender != null && !all.includes(this.#sender)) {
      all.push(this.#sender);
    }
    return all;
  }
}

/** The agents' addresses: as given, or a swarm service's replicas. */
async function agentAddresses(
  spec: AgentsSpec,
  signal?: AbortSignal,
): Promise<string[]> {
  if ("addresses" in spec) return [...spec.addresses];
  const service = "swarmService" in spec
    ? spec.swarmService
    : await ownStackService();
  if (service == null) {
    throw new Error(
      "--agents swarm: this bench has deployed no agents' stack; the " +
        "command line deploys one (deno task bench --agents swarm), a " +
        "library caller deploys it with SwarmAgents and passes " +
        "swarm:SERVICE",
    );
  }
  const replicas = await resolveSwarmAgents(service, { signal });
  return replicas.agents.map((agent) => new URL(agent.url).host);
}

/** Reaches one agent, checks it, and estimates its clock. */
async function place(address: string, token: string): Promise<PlacedAgent> {
  const client = new AgentClient(address, token);
  const hello = await client.hello();
  const before = await measureOffset(() => client.clockSample());
  client.setClockOffset(before.offsetMs);
  return { client, hello, before, after: null };
}

function agentRecord(
  agent: PlacedAgent,
  processes: readonly ProcessRecord[],
): AgentRecord {
  const own = processes.filter((p) => p.agent === agent.client.address);
  const cpu = sumOrNull(own.map((p) => p.cpuSeconds));
  const rss = own.map((p) => p.peakRssBytes ?? null);
  const identity = agent.hello.agent;
  return {
    address: agent.client.address,
    host: identity.host,
    image: identity.image,
    runtime: identity.runtime,
    cpus: identity.cpus,
    cpuLimit: identity.cpuLimit,
    memoryLimit: identity.memoryLimit,
    roles: own.map((p) => p.role),
    cpuSeconds: cpu == null ? null : roundTo(cpu, 2),
    peakRssBytes: rss.length === 0 || rss.includes(null)
      ? null
      : Math.max(...rss as number[]),
    clock: {
      before: agent.before,
      after: agent.after,
      uncertaintyMs: rowUncertainty(agent.before, agent.after),
    },
  };
}
