/**
 * Hosts of their own for the app's workers (`--worker-hosts N`): N Linux
 * network namespaces, each with a veth pair to the bench's namespace, an
 * address of its own from a /30 of 10.231.0.0/16, its loopback up and a
 * default route through the bench's side.  A launcher wrapper starts a
 * process inside one (`ip netns exec`, which runs it in its own place: the
 * process id is the runtime's).  A namespace host shares the machine's
 * kernel and CPUs; only its network stack is its own.
 *
 * Names carry the bench's process id (and, for namespaces, its start time)
 * so that a bench that was killed leaves nothing another cannot find:
 * {@link sweepStaleNamespaces} removes them.  Every namespace is also
 * recorded with `leftovers`, whose forced exit removes it.
 *
 * @module
 */
import type { Launcher } from "../system/process.ts";
import {
  isRunning,
  leftovers,
  ownerOf,
  selfIdentity,
} from "../system/leftovers.ts";
import { findBinary } from "./binaries.ts";

/** The /16 the hosts' /30 subnets come from: rarely used by anything else. */
const NETWORK_PREFIX = "10.231";

/** Most namespace hosts at once: one /30 per third octet. */
export const MAX_NAMESPACE_HOSTS = 256;

/** A root-side veth end (`fqv`) or its peer (`fqp`): `fqvPIDxSEQ`. */
const LINK = /^fq[vp](\d+)x\d+$/;

/** Sequence numbers of the veth pairs this process made. */
let linkSeq = 0;

/** What {@link namespacesUnavailable} asks the system. */
export interface NamespaceProbe {
  /** The bench's user id. */
  uid(): number | null;
  /** The `ip` executable, or `undefined` when not on `PATH`. */
  ip(): string | undefined;
}

/** The system itself. */
export const SYSTEM_PROBE: NamespaceProbe = {
  uid: () => Deno.uid(),
  ip: () => findBinary("ip"),
};

/**
 * Why network namespaces cannot be made here, or `null` when they can:
 * they need root and iproute2's `ip`.
 */
export function namespacesUnavailable(
  probe: NamespaceProbe = SYSTEM_PROBE,
): string | null {
  const uid = probe.uid();
  if (uid !== 0) {
    return `network namespaces need root: the bench runs as uid ${
      uid ?? "unknown"
    }; run it as root (sudo) or drop --worker-hosts`;
  }
  if (probe.ip() == null) {
    return "network namespaces need the ip command, which is not on PATH; " +
      "install iproute2 (apt-get install iproute2) or drop --worker-hosts";
  }
  return null;
}

/** One namespace host. */
export interface NamespaceHost {
  /** The namespace's name (`ip netns list`). */
  readonly namespace: string;
  /** The veth end in the bench's namespace. */
  readonly link: string;
  /** The address of the bench's side of the link. */
  readonly rootAddress: string;
  /** The host's own address, inside its namespace. */
  readonly address: string;
}

/**
 * A launcher that starts what `launcher` starts inside network namespace
 * `namespace` (`ip netns exec`); every other part of it is kept, so it
 * composes with the runtimes' launchers and `pinnedLauncher`.
 */
export function namespacedLauncher<L extends Launcher>(
  launcher: L,
  namespace: string,
  ip: string,
): L {
  const command = launcher.command;
  return {
    ...launcher,
    command: ip,
    args: (script: string, spec: string) => [
      "netns",
      "exec",
      namespace,
      command,
      ...launcher.args(script, spec),
    ],
  };
}

/** The namespace hosts of one run, made by {@link NamespaceHosts.create}. */
export class NamespaceHosts {
  readonly #ip: string;
  readonly #hosts: NamespaceHost[] = [];
  #untrack: () => void = () => {};
  #closed = false;

  private constructor(ip: string) {
    this.#ip = ip;
  }

  /**
   * Makes `count` namespace hosts, each on a /30 no interface of the bench's
   * namespace uses yet.  On failure, removes what it made.
   * @throws {Error} When namespaces cannot be made here (the reason names
   *   the fix) or an `ip` command fails.
   */
  static async create(
    count: number,
    probe: NamespaceProbe = SYSTEM_PROBE,
  ): Promise<NamespaceHosts> {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`--worker-hosts ${count}: give 1 or more`);
    }
    const unavailable = namespacesUnavailable(probe);
    if (unavailable != null) throw new Error(unavailable);
    const hosts = new NamespaceHosts(probe.ip()!);
    hosts.#untrack = leftovers.trackCleanup(() => hosts.removeSync());
    try {
      const subnets = await hosts.#freeSubnets(count);
      const { pid, startTime } = selfIdentity();
      const tag = crypto.randomUUID().slice(0, 6);
      for (const [k, octet] of subnets.entries()) {
        const seq = linkSeq++;
        const host: NamespaceHost = {
          namespace: `fqb-ns-${pid}-${startTime}-${tag}h${k}`,
          link: `fqv${pid}x${seq}`,
          rootAddress: `${NETWORK_PREFIX}.${octet}.1`,
          address: `${NETWORK_PREFIX}.${octet}.2`,
        };
        hosts.#hosts.push(host);
        await hosts.#make(host, `fqp${pid}x${seq}`);
      }
      return hosts;
    } catch (error) {
      await hosts.close();
      throw error;
    }
  }

  /** The hosts, in order. */
  get hosts(): readonly NamespaceHost[] {
    return this.#hosts;
  }

  /**
   * An address of the bench's namespace every host reaches over its own
   * link (the first link's root side): where forwarders to the bench's
   * servers listen.
   */
  get gateway(): string {
    return this.#hosts[0].rootAddress;
  }

  /** `launcher` inside host `index` modulo the hosts: round-robin. */
  launcher<L extends Launcher>(launcher: L, index: number): L {
    const host = this.#hosts[index % this.#hosts.length];
    return namespacedLauncher(launcher, host.namespace, this.#ip);
  }

  /** Removes every namespace and link; never throws. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const host of this.#hosts) {
      await this.#run(["netns", "delete", host.namespace]).catch(() => {});
      await this.#run(["link", "delete", host.link]).catch(() => {});
    }
    this.#untrack();
  }

  /** {@link close}, synchronous: for a forced exit.  Never throws. */
  removeSync(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const host of this.#hosts) {
      for (
        const args of [
          ["netns", "delete", host.namespace],
          ["link", "delete", host.link],
        ]
      ) {
        try {
          new Deno.Command(this.#ip, {
            args,
            stdout: "null",
            stderr: "null",
            detached: true,
          }).outputSync();
        } catch { /* best effort */ }
      }
    }
  }

  async #make(host: NamespaceHost, peer: string): Promise<void> {
    const ns = host.namespace;
    await this.#run(["netns", "add", ns]);
    await this.#run([
      "link",
      "add",
      host.link,
      "type",
      "veth",
      "peer",
      "name",
      peer,
    ]);
    await this.#run(["link", "set", peer, "netns", ns]);
    await this.#run([
      "addr",
      "add",
      `${host.rootAddress}/30`,
      "dev",
      host.link,
    ]);
    await this.#run(["link", "set", host.link, "up"]);
    await this.#run([
      "-n",
      ns,
      "addr",
      "add",
      `${host.address}/30`,
      "dev",
      peer,
    ]);
    await this.#run(["-n", ns, "link", "set", peer, "up"]);
    await this.#run(["-n", ns, "link", "set", "lo", "up"]);
    await this.#run([
      "-n",
      ns,
      "route",
      "add",
      "default",
      "via",
      host.rootAddress,
    ]);
  }

  /** Third octets of 10.231.X.0/30 no address of the bench's namespace has. */
  async #freeSubnets(count: number): Promise<number[]> {
    const used = new Set<number>();
    const text = await this.#run(["-4", "-o", "addr", "show"]);
    const pattern = new RegExp(
      `\\binet ${NETWORK_PREFIX.replace(".", "\\.")}\\.(\\d+)\\.`,
      "g",
    );
    for (const match of text.matchAll(pattern)) used.add(Number(match[1]));
    const free: number[] = [];
    for (let octet = 0; octet < 256 && free.length < count; octet++) {
      if (!used.has(octet)) free.push(octet);
    }
    if (free.length < count) {
      throw new Error(
        `--worker-hosts ${count}: only ${free.length} subnets of ` +
          `${NETWORK_PREFIX}.0.0/16 are free; give fewer hosts or remove ` +
          "the addresses that use it",
      );
    }
    return free;
  }

  #run(args: string[]): Promise<string> {
    return runIp(this.#ip, args);
  }
}

/**
 * Runs `ip ARGS`, returning its output.
 * @throws {Error} When it fails, with its message.
 */
async function runIp(ip: string, args: string[]): Promise<string> {
  // In a process group of its own: a Ctrl-C the terminal sends the bench's
  // group while the bench removes its hosts must not kill the removal.
  const output = await new Deno.Command(ip, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).output();
  if (!output.success) {
    const message = new TextDecoder().decode(output.stderr).trim();
    throw new Error(
      `ip ${args.join(" ")} failed` + (message === "" ? "" : `: ${message}`),
    );
  }
  return new TextDecoder().decode(output.stdout);
}

/**
 * The bench's namespaces and root-side links that exist now, by name
 * (`ip netns list`, `ip link`); those of benches still running included.
 */
export async function benchNamespaces(
  ip: string | undefined = findBinary("ip"),
): Promise<{ namespaces: string[]; links: string[] }> {
  if (ip == null) return { namespaces: [], links: [] };
  const list = await runIp(ip, ["netns", "list"]).catch(() => "");
  const namespaces = list.split("\n")
    .map((line) => line.trim().split(/\s+/)[0])
    .filter((name) => name?.startsWith("fqb-ns-"));
  const links = (await runIp(ip, ["-o", "link", "show"]).catch(() => ""))
    .split("\n")
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
    .filter((name): name is string => name != null && LINK.test(name));
  return { namespaces, links };
}

/**
 * The namespaces and links of benches that no longer run: what a bench
 * that exited left behind.  Those of benches still running (other tests',
 * other users') are not in it.
 */
export async function staleNamespaces(
  ip: string | undefined = findBinary("ip"),
): Promise<{ namespaces: string[]; links: string[] }> {
  const { namespaces, links } = await benchNamespaces(ip);
  return {
    namespaces: namespaces.filter((namespace) => {
      const owner = ownerOf(namespace);
      return owner != null && !isRunning(owner);
    }),
    links: links.filter((link) =>
      !isRunning({ pid: Number(LINK.exec(link)![1]), startTime: "0" })
    ),
  };
}

/**
 * Removes the namespaces and links of benches that no longer run (killed
 * outright); those of running benches stay.  Does nothing without `ip` or
 * when not root.
 *
 * @returns The names removed.
 */
export async function sweepStaleNamespaces(
  probe: NamespaceProbe = SYSTEM_PROBE,
): Promise<string[]> {
  if (namespacesUnavailable(probe) != null) return [];
  const ip = probe.ip()!;
  const { namespaces, links } = await benchNamespaces(ip);
  const removed: string[] = [];
  for (const namespace of namespaces) {
    const owner = ownerOf(namespace);
    if (owner == null || isRunning(owner)) continue;
    await runIp(ip, ["netns", "delete", namespace]).then(
      () => removed.push(namespace),
      () => {},
    );
  }
  for (const link of links) {
    const pid = Number(LINK.exec(link)![1]);
    if (isRunning({ pid, startTime: "0" })) continue;
    await runIp(ip, ["link", "delete", link]).then(
      () => removed.push(link),
      () => {},
    );
  }
  return removed;
}
