/**
 * Where the agents of a Docker Swarm service are (`--agents swarm:SERVICE`):
 * {@link resolveSwarmAgents} lists every running replica as the URL of its
 * agent and the address the replica reaches the bench at, and waits until
 * the wanted number run and answer HTTP.
 *
 * Two ways to find them.  A bench where `docker` reaches no swarm manager
 * (a container attached to the service's overlay network) asks Docker's
 * DNS for `tasks.SERVICE`, which answers only inside containers on that
 * network; replicas reach it at its own address on the overlay.  A bench
 * on a swarm manager's host asks the engine (`docker service ps`, `docker inspect`): the
 * host reaches a local replica at its address on `docker_gwbridge` (not at
 * its overlay address), and the replica reaches the host at that bridge's
 * gateway; a replica on another node is given by its overlay address, and
 * reaches the bench at the manager's advertised address.
 *
 * @module
 */
import { docker, dockerQuiet } from "../system/docker.ts";
import { sleep } from "../system/sleep.ts";
import { DEFAULT_AGENT_PORT } from "../params/mod.ts";

/** One running replica of a service. */
export interface SwarmAgent {
  /** Its agent's URL, `http://ADDRESS:PORT`. */
  readonly url: string;
  /** The address the replica reaches the bench's host at. */
  readonly benchAddress: string;
  /** The swarm task's id; `null` when found through DNS. */
  readonly task: string | null;
  /** The node's host name; `null` when found through DNS. */
  readonly node: string | null;
  /** The container's id; `null` when found through DNS. */
  readonly container: string | null;
}

/** What {@link resolveSwarmAgents} found. */
export interface ResolvedSwarm {
  /** The service. */
  readonly service: string;
  /** Every running replica that answers, ordered by URL. */
  readonly agents: readonly SwarmAgent[];
  /** How they were found. */
  readonly via: "dns" | "engine";
}

/** Options for {@link resolveSwarmAgents}. */
export interface ResolveOptions {
  /**
   * How many replicas must run and answer; the service's own count when
   * asked through the engine, at least one through DNS.
   */
  readonly replicas?: number;
  /** The agents' port, `DEFAULT_AGENT_PORT` by default. */
  readonly port?: number;
  /** How long to wait for them, ms (120 s by default). */
  readonly timeoutMs?: number;
  /** Stops the wait. */
  readonly signal?: AbortSignal;
  /**
   * `dns`, `engine`, or `auto` (the default): the engine when `docker`
   * talks to a swarm manager, else DNS.
   */
  readonly via?: "auto" | "dns" | "engine";
}

/** One look: the replicas found, and why some are missing. */
interface Look {
  readonly agents: SwarmAgent[];
  readonly wanted: number | null;
  readonly detail: string;
}

/** The host part of `10.0.1.2/24`. */
function hostOf(cidr: string): string {
  return cidr.split("/")[0];
}

/** An IPv4 address as a number. */
function ipv4(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/**
 * The address of this machine's interface on the same IPv4 network as
 * `peer`, or `null` when none is.
 */
export function localAddressToward(
  peer: string,
  interfaces: readonly Deno.NetworkInterfaceInfo[] = Deno.networkInterfaces(),
): string | null {
  for (const nic of interfaces) {
    if (nic.family !== "IPv4") continue;
    const mask = ipv4(nic.netmask);
    if (((ipv4(nic.address) ^ ipv4(peer)) & mask) >>> 0 === 0) {
      return nic.address;
    }
  }
  return null;
}

/**
 * The name Docker's DNS answers with every replica: `tasks.SERVICE`, or
 * for a stack's service (`STACK_agent`) `tasks.agent`, its name inside the
 * stack's network (Deno's resolver refuses `_` in a name).
 */
export function tasksName(service: string): string {
  return `tasks.${service.slice(service.indexOf("_") + 1)}`;
}

/** Whether the engine `docker` talks to is a swarm manager. */
async function engineIsManager(): Promise<boolean> {
  return await dockerQuiet([
    "info",
    "--format",
    "{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}",
  ], 10_000) === "active true";
}

/** The replicas through Docker's DNS ({@link tasksName}). */
async function lookDns(service: string, port: number): Promise<Look> {
  let addresses: string[];
  const name = tasksName(service);
  try {
    addresses = await Deno.resolveDns(name, "A");
  } catch (error) {
    return {
      agents: [],
      wanted: null,
      detail:
        `tasks.${service} does not resolve (${
          error instanceof Error ? error.message : String(error)
        }): is this container attached to the service's overlay network ` +
        "(attachable; `docker run --network STACK_NETWORK`), and is the " +
        "service's endpoint_mode dnsrr?",
    };
  }
  const agents = addresses.map((address) => ({
    url: `http://${address}:${port}`,
    benchAddress: localAddressToward(address) ?? address,
    task: null,
    node: null,
    container: null,
  }));
  return { agents, wanted: null, detail: `${name}: ${addresses}` };
}

/** The parts of `docker inspect` of a task read here. */
interface TaskInspect {
  readonly ID: string;
  readonly NodeID: string;
  readonly Status: {
    readonly State: string;
    readonly Err?: string;
    readonly ContainerStatus?: { readonly ContainerID?: string };
  };
  readonly NetworksAttachments?: readonly {
    readonly Network: { readonly Spec: { readonly Name: string } };
    readonly Addresses: readonly string[];
  }[];
}

/** The parts of `docker network inspect docker_gwbridge` read here. */
interface BridgeInspect {
  readonly IPAM: { readonly Config: readonly { readonly Gateway?: string }[] };
  readonly Containers?: Record<string, { readonly IPv4Address: string }>;
}

/** The service's wanted replicas, or `null` for a global service. */
async function serviceReplicas(service: string): Promise<number | null> {
  const mode = JSON.parse(
    await docker([
      "service",
      "inspect",
      "--format",
      "{{json .Spec.Mode}}",
      service,
    ], {
      what: `there is no swarm service ${service}`,
      fix: "list them with `docker service ls` (a stack's services are " +
        "named STACK_SERVICE), on a manager node of the swarm",
    }),
  ) as { Replicated?: { Replicas: number } };
  return mode.Replicated?.Replicas ?? null;
}

/** The running replicas through the engine (`docker service ps`). */
async function lookEngine(
  service: string,
  port: number,
  wanted: number | null,
): Promise<Look> {
  wanted ??= await serviceReplicas(service);
  const ids = (await docker([
    "service",
    "ps",
    "--no-trunc",
    "--filter",
    "desired-state=running",
    "--format",
    "{{.ID}}",
    service,
  ])).split("\n").filter((id) => id !== "");
  if (ids.length === 0) return { agents: [], wanted, detail: "no tasks yet" };
  const tasks = JSON.parse(
    await docker(["inspect", "--type", "task", ...ids]),
  ) as TaskInspect[];
  // docker_gwbridge comes with the node's first task: none yet, no address.
  const bridged = await dockerQuiet(["network", "inspect", "docker_gwbridge"]);
  const bridge = bridged == null
    ? undefined
    : (JSON.parse(bridged) as BridgeInspect[])[0];
  const managerAddress = await docker([
    "info",
    "--format",
    "{{.Swarm.NodeAddr}}",
  ]);
  const nodes = new Map(
    (await docker(["node", "ls", "--format", "{{.ID}} {{.Hostname}}"]))
      .split("\n").map((line) => line.split(" ") as [string, string]),
  );
  const agents: SwarmAgent[] = [];
  for (const task of tasks) {
    const container = task.Status.ContainerStatus?.ContainerID ?? null;
    if (task.Status.State !== "running" || container == null) continue;
    const local = bridge?.Containers?.[container];
    const overlay = task.NetworksAttachments?.find((n) =>
      n.Network.Spec.Name !== "ingress"
    )?.Addresses[0];
    const address = local != null
      ? hostOf(local.IPv4Address)
      : overlay != null
      ? hostOf(overlay)
      : null;
    if (address == null) continue;
    agents.push({
      url: `http://${address}:${port}`,
      benchAddress: local != null
        ? bridge?.IPAM.Config[0]?.Gateway ?? managerAddress
        : managerAddress,
      task: task.ID,
      node: nodes.get(task.NodeID) ?? task.NodeID,
      container,
    });
  }
  const states = tasks.map((t) =>
    `${t.ID.slice(0, 12)} ${t.Status.State}${
      t.Status.Err ? ` (${t.Status.Err})` : ""
    }`
  );
  return { agents, wanted, detail: states.join(", ") };
}

/** Whether an agent answers HTTP at all (401 counts: it listens). */
async function answers(url: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(`${url}/v1/hello`, {
      signal: signal == null
        ? AbortSignal.timeout(2_000)
        : AbortSignal.any([signal, AbortSignal.timeout(2_000)]),
    });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/**
 * Every running replica of a swarm service, once the wanted number run and
 * each answers `GET /v1/hello` with any HTTP response.
 *
 * @param service The service's name (`STACK_agent` for a stack's).
 * @param options How many, the port, the time limit and the way to ask.
 * @throws {Error} When the engine does not know the service (a
 *   `DockerError`).
 * @throws {Error} When they are not there in time, saying how many are and
 *   what their tasks say, and where to look.
 */
export async function resolveSwarmAgents(
  service: string,
  options: ResolveOptions = {},
): Promise<ResolvedSwarm> {
  const port = options.port ?? DEFAULT_AGENT_PORT;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const via = options.via == null || options.via === "auto"
    ? (await engineIsManager() ? "engine" : "dns")
    : options.via;
  const deadline = performance.now() + timeoutMs;
  let last: Look = { agents: [], wanted: null, detail: "not asked yet" };
  let answering: SwarmAgent[] = [];
  while (true) {
    options.signal?.throwIfAborted();
    last = via === "dns"
      ? await lookDns(service, port)
      : await lookEngine(service, port, options.replicas ?? null);
    const wanted = options.replicas ?? last.wanted ?? 1;
    const ok = await Promise.all(
      last.agents.map((agent) => answers(agent.url, options.signal)),
    );
    answering = last.agents.filter((_, i) => ok[i]);
    const enough = via === "dns" && options.replicas == null
      ? answering.length >= wanted
      : answering.length === wanted && last.agents.length === wanted;
    if (enough) {
      const agents = answering.toSorted((a, b) => a.url.localeCompare(b.url));
      return { service, agents, via };
    }
    if (performance.now() >= deadline) break;
    await sleep(500, options.signal);
  }
  throw new Error(
    `the swarm service ${service} has ${last.agents.length} running ` +
      `replicas, ${answering.length} answering HTTP on port ${port}, after ` +
      `${Math.round(timeoutMs / 1000)} s; ${
        options.replicas ?? last.wanted ?? 1
      } wanted (${last.detail}): see \`docker service ps --no-trunc ` +
      `${service}\` and \`docker service logs ${service}\``,
  );
}
