/**
 * Agents the bench deploys itself on Docker Swarm: {@link SwarmAgents}
 * deploys `deploy/swarm/stack.yml` (the one file users deploy by hand too)
 * as a stack named after this process ({@link agentStackName}), with the
 * image, replicas, CPU limit and token in the environment the file reads,
 * scales it, and removes it with its network and containers.  It makes a
 * one-node swarm when the engine is in none, and leaves it again on close.
 * A forced exit removes the stack through `leftovers`; a bench killed
 * outright leaves a stack whose name holds its process id, which
 * {@link sweepStaleStacks} removes.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import {
  docker,
  DockerError,
  dockerQuiet,
  dockerSync,
  dockerVersion,
} from "../system/docker.ts";
import {
  isRunning,
  leftovers,
  ownerOf,
  selfIdentity,
} from "../system/leftovers.ts";
import { sleep } from "../system/sleep.ts";
import {
  type ResolvedSwarm,
  type ResolveOptions,
  resolveSwarmAgents,
} from "./swarm.ts";

/** The stack file, `deploy/swarm/stack.yml`. */
export const STACK_FILE = fileURLToPath(
  new URL("../../deploy/swarm/stack.yml", import.meta.url),
);

/** The agent service's name in the stack file. */
export const STACK_SERVICE = "agent";

/** The label Docker puts on a stack's services, containers and networks. */
const NAMESPACE = "com.docker.stack.namespace";

let stacks = 0;

/** A new stack name owned by this process: `fqb-agents-PID-START-N`. */
export function agentStackName(): string {
  const { pid, startTime } = selfIdentity();
  return `fqb-agents-${pid}-${startTime}-${++stacks}`;
}

/**
 * The agent service of the stack this process deployed last (its name holds
 * this process's id and start), or `undefined` when none is deployed.
 */
export async function ownStackService(): Promise<string | undefined> {
  const { pid, startTime } = selfIdentity();
  const prefix = `fqb-agents-${pid}-${startTime}-`;
  const listed = await dockerQuiet(["stack", "ls", "--format", "{{.Name}}"]);
  const own = (listed ?? "").split("\n").filter((n) => n.startsWith(prefix))
    .sort((a, b) =>
      Number(a.slice(prefix.length)) - Number(b.slice(prefix.length))
    );
  const last = own.at(-1);
  return last == null ? undefined : `${last}_${STACK_SERVICE}`;
}

/** Options for {@link SwarmAgents.deploy}. */
export interface DeployOptions {
  /** The image (`deno task image` makes it; it must be on every node). */
  readonly image: string;
  /** How many replicas. */
  readonly replicas: number;
  /** Each replica's CPU limit, in cores (`0.25`). */
  readonly cpus: number;
  /** The token the agents require (`BENCH_AGENT_TOKEN`). */
  readonly token: string;
  /** The stack's name; {@link agentStackName} by default. */
  readonly stack?: string;
  /** How long to wait for the replicas, ms. */
  readonly timeoutMs?: number;
  /** Stops it; what was made is removed. */
  readonly signal?: AbortSignal;
  /** The address `docker swarm init` advertises when there is no swarm. */
  readonly advertiseAddr?: string;
}

/** The engine's swarm state: `inactive`, or `active` and manager or not. */
async function swarmState(): Promise<{ active: boolean; manager: boolean }> {
  const [state, control] = (await docker([
    "info",
    "--format",
    "{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}",
  ])).split(" ");
  if (state !== "active" && state !== "inactive") {
    throw new DockerError(
      `this node's swarm state is ${state}: wait for it, or leave the ` +
        "swarm (`docker swarm leave --force`) and run again",
    );
  }
  return { active: state === "active", manager: control === "true" };
}

/** Whether anything of a stack remains: services, containers, networks. */
async function stackRemains(stack: string): Promise<string[]> {
  const label = `label=${NAMESPACE}=${stack}`;
  const lists = await Promise.all([
    dockerQuiet(["service", "ls", "-q", "--filter", label]),
    dockerQuiet(["ps", "-aq", "--filter", label]),
    dockerQuiet(["network", "ls", "-q", "--filter", label]),
  ]);
  return lists.flatMap((list) => (list ?? "").split("\n"))
    .filter((id) => id !== "");
}

/**
 * Removes a stack and waits until its services, containers and network are
 * gone (30 s; then forces the containers and the network out).
 */
export async function removeStack(stack: string): Promise<void> {
  await dockerQuiet(["stack", "rm", stack]);
  const label = `label=${NAMESPACE}=${stack}`;
  const deadline = performance.now() + 30_000;
  while ((await stackRemains(stack)).length > 0) {
    if (performance.now() > deadline) {
      removeStackSync(stack);
      return;
    }
    if (performance.now() > deadline - 20_000) {
      const ids = await dockerQuiet(["ps", "-aq", "--filter", label]);
      if (ids) await dockerQuiet(["rm", "--force", ...ids.split("\n")]);
      const nets = await dockerQuiet([
        "network",
        "ls",
        "-q",
        "--filter",
        label,
      ]);
      if (nets) await dockerQuiet(["network", "rm", ...nets.split("\n")]);
    }
    await sleep(500);
  }
}

/** {@link removeStack} without the wait, for a forced exit. */
function removeStackSync(stack: string): void {
  const label = `label=${NAMESPACE}=${stack}`;
  dockerSync(["stack", "rm", stack]);
  const ids = dockerSync(["ps", "-aq", "--filter", label]);
  if (ids) dockerSync(["rm", "--force", ...ids.split("\n")]);
  // The overlay network goes once its containers' endpoints have: retry
  // for up to 10 s, blocking (a forced exit cannot wait otherwise).
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 50; i++) {
    const nets = dockerSync(["network", "ls", "-q", "--filter", label]);
    if (!nets) return;
    dockerSync(["network", "rm", ...nets.split("\n")]);
    Atomics.wait(pause, 0, 0, 200);
  }
}

/**
 * Makes this node a one-node swarm's manager when it is in no swarm;
 * refuses a worker node.
 *
 * @param advertiseAddr The address `docker swarm init` advertises.
 * @returns Whether it made the swarm (then {@link leaveSwarm} undoes it).
 * @throws {DockerError} On a worker node, or when init fails, naming the fix.
 */
export async function ensureSwarm(
  advertiseAddr = "127.0.0.1",
): Promise<boolean> {
  const state = await swarmState();
  if (state.active && !state.manager) {
    throw new DockerError(
      "this node is a swarm worker, not a manager: run the bench on a " +
        "manager node (`docker node ls` there), or promote this one " +
        "(`docker node promote NODE` on a manager)",
    );
  }
  if (state.active) return false;
  await docker(["swarm", "init", "--advertise-addr", advertiseAddr], {
    what: "this node is not in a swarm, and making one failed",
    fix: "make it a swarm manager yourself: `docker swarm init " +
      "--advertise-addr ADDRESS`",
  });
  return true;
}

/**
 * Leaves the swarm and removes its bridge (`docker_gwbridge`), undoing
 * {@link ensureSwarm}.  Never throws.
 */
export async function leaveSwarm(): Promise<void> {
  await dockerQuiet(["swarm", "leave", "--force"]);
  // The bridge keeps the routing mesh's endpoint for a moment.
  for (let i = 0; i < 40; i++) {
    if (await dockerQuiet(["network", "rm", "docker_gwbridge"]) != null) {
      return;
    }
    await sleep(500);
  }
}

/** Leaves the one-node swarm this process made, and its bridge. */
function leaveSwarmSync(): void {
  dockerSync(["swarm", "leave", "--force"]);
  dockerSync(["network", "rm", "docker_gwbridge"]);
}

/**
 * Removes the agent stacks of benches that no longer run (killed outright:
 * their stack's name holds their process id), and the networks of such
 * stacks that a forced exit could not remove.
 *
 * @returns The stacks removed.
 */
export async function sweepStaleStacks(): Promise<string[]> {
  const stacks = await dockerQuiet(["stack", "ls", "--format", "{{.Name}}"]);
  const networks = await dockerQuiet([
    "network",
    "ls",
    "--filter",
    `label=${NAMESPACE}`,
    "--format",
    `{{index .Labels "${NAMESPACE}"}}`,
  ]);
  const names = new Set(`${stacks ?? ""}\n${networks ?? ""}`.split("\n"));
  const stale = [...names].filter((name) => {
    const owner = name.startsWith("fqb-agents-") ? ownerOf(name) : undefined;
    return owner != null && !isRunning(owner);
  });
  for (const stack of stale) await removeStack(stack);
  return stale;
}

/** The bench's own agents on Docker Swarm: one stack at a time. */
export class SwarmAgents {
  readonly #stackFile: string;
  #stack: string | null = null;
  #initialised = false;
  #env: Record<string, string> = {};
  #forget: (() => void) | null = null;

  /** @param stackFile The stack file; {@link STACK_FILE} by default. */
  constructor(stackFile: string = STACK_FILE) {
    this.#stackFile = stackFile;
  }

  /** The stack's name while deployed. */
  get stack(): string | null {
    return this.#stack;
  }

  /** The agent service's name while deployed (`STACK_agent`). */
  get service(): string | null {
    return this.#stack == null ? null : `${this.#stack}_${STACK_SERVICE}`;
  }

  /** Whether {@link deploy} made the swarm (and {@link close} leaves it). */
  get initialisedSwarm(): boolean {
    return this.#initialised;
  }

  /**
   * Deploys the stack and waits for its replicas; on any failure or abort
   * removes what it made and throws.
   *
   * @returns The replicas, as {@link resolveSwarmAgents} finds them.
   * @throws {Error} Naming the fix (daemon down, not a manager, replicas
   *   not running in time).
   */
  async deploy(options: DeployOptions): Promise<ResolvedSwarm> {
    if (this.#stack != null) {
      throw new Error(
        `the stack ${this.#stack} is deployed: close() it before another`,
      );
    }
    await dockerVersion(options.signal);
    await sweepStaleStacks();
    this.#initialised = await ensureSwarm(options.advertiseAddr);
    const stack = options.stack ?? agentStackName();
    this.#stack = stack;
    this.#forget = leftovers.trackCleanup(() => {
      removeStackSync(stack);
      if (this.#initialised) leaveSwarmSync();
    });
    this.#env = {
      AGENT_IMAGE: options.image,
      AGENT_REPLICAS: String(options.replicas),
      AGENT_CPUS: String(options.cpus),
      BENCH_AGENT_TOKEN: options.token,
    };
    try {
      await docker(["stack", "deploy", "-c", this.#stackFile, stack], {
        env: this.#env,
        signal: options.signal,
        timeoutMs: 120_000,
        what: `deploying the agents' stack ${stack} failed`,
        fix: `check ${this.#stackFile} and that the image ${options.image} ` +
          "is on every node (`deno task image`; `docker image ls`)",
      });
      return await this.#resolve(options.replicas, options);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Scales the agent service to `replicas` and waits for exactly that many.
   *
   * @throws {Error} When nothing is deployed, or they do not come in time.
   */
  async scale(
    replicas: number,
    options: Pick<ResolveOptions, "timeoutMs" | "signal"> = {},
  ): Promise<ResolvedSwarm> {
    const service = this.service;
    if (service == null) throw new Error("no agents deployed: deploy() first");
    await docker(["service", "scale", "--detach", `${service}=${replicas}`], {
      signal: options.signal,
      timeoutMs: 60_000,
    });
    return await this.#resolve(replicas, options);
  }

  /**
   * Removes the stack, its network and its containers, and leaves the
   * swarm if {@link deploy} made it.  Never throws.
   */
  async close(): Promise<void> {
    if (this.#stack != null) await removeStack(this.#stack);
    if (this.#initialised) {
      await leaveSwarm();
      this.#initialised = false;
    }
    this.#stack = null;
    this.#forget?.();
    this.#forget = null;
  }

  /** Waits for the service's replicas through the engine. */
  async #resolve(
    replicas: number,
    options: Pick<ResolveOptions, "timeoutMs" | "signal">,
  ): Promise<ResolvedSwarm> {
    return await resolveSwarmAgents(this.service!, {
      replicas,
      via: "engine",
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  }
}
