/**
 * RabbitMQ: probing a user-given broker and starting throwaway nodes.
 *
 * A throwaway node is a second, private RabbitMQ node beside any system one:
 * its own node name, AMQP and distribution ports, data, log and config files
 * and Erlang cookie, all inside the run's temporary folder.  It shares only
 * `epmd` (the Erlang port mapper) with other nodes on the machine.
 *
 * @module
 */
import { connect, type ServerProperties } from "amqplib";
import {
  freePort,
  restartableServer,
  type ServerProcess,
  waitUntilServing,
} from "./server.ts";
import type {
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "./types.ts";
import {
  errorMessage,
  findBinary,
  redactUrl,
  sleep,
  spawnLogged,
  startError,
  stripPassword,
  UnreachableError,
  withTimeout,
} from "./util.ts";

/**
 * How long a throwaway node may take to accept AMQP connections.  It takes
 * about 4 seconds on an idle 2-core machine.
 */
const START_TIMEOUT_MS = 60_000;
/** How long a restarted node may take to recover its queues after a crash. */
const RESTART_TIMEOUT_MS = 120_000;
/** How long a throwaway node may take to shut down after SIGTERM. */
const STOP_GRACE_MS = 20_000;
/** How long the node's helper processes may outlive the node. */
const HELPER_GRACE_MS = 5_000;

/**
 * Debian and Ubuntu put a wrapper named `rabbitmq-server` on `PATH` that
 * switches to the `rabbitmq` user and logs to `/var/log/rabbitmq`; the real
 * start script lives here.
 */
const DEBIAN_SCRIPT = "/usr/lib/rabbitmq/bin/rabbitmq-server";

/** The script that starts a RabbitMQ node in the foreground. */
function serverScript(): string {
  try {
    if (Deno.statSync(DEBIAN_SCRIPT).isFile) return DEBIAN_SCRIPT;
  } catch {
    // Not a Debian layout.
  }
  return findBinary("rabbitmq-server") ?? "rabbitmq-server";
}

/** A process, identified by its id and start time (against pid reuse). */
interface ProcessId {
  readonly pid: number;
  readonly startTime: string;
  readonly command: string;
}

/** Reads a process's parent, start time and command name from `/proc`. */
function readStat(
  pid: number,
): { ppid: number; startTime: string; command: string } | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const close = stat.lastIndexOf(")");
    const command = stat.slice(stat.indexOf("(") + 1, close);
    // Fields after the command: state, ppid, …; starttime is field 22.
    const fields = stat.slice(close + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return { ppid: Number(fields[1]), startTime: fields[19], command };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`, found through `/proc`. */
function descendants(root: number): ProcessId[] {
  const children = new Map<number, ProcessId[]>();
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    const stat = readStat(pid);
    if (stat == null) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid, startTime: stat.startTime, command: stat.command });
    children.set(stat.ppid, list);
  }
  const found: ProcessId[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Whether the very process `id` names is still alive. */
function isRunning(id: ProcessId): boolean {
  return readStat(id.pid)?.startTime === id.startTime;
}

/**
 * Waits up to `graceMs` for the processes to exit, then kills the rest and
 * waits for them to go.
 */
async function reap(ids: readonly ProcessId[], graceMs: number) {
  const deadline = Date.now() + graceMs;
  let alive = ids.filter(isRunning);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter(isRunning);
  }
  for (const id of alive) {
    try {
      Deno.kill(id.pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  while (alive.length > 0) {
    await sleep(20);
    alive = alive.filter(isRunning);
  }
}

/**
 * Starts a throwaway RabbitMQ node as a child process (not detached) that
 * listens for AMQP on `127.0.0.1:port`.  Everything it writes stays in `dir`:
 * data (`mnesia`), logs (`log`, and the console output in `rabbitmq.log`),
 * config files (no plugins, so no management UI) and the Erlang cookie
 * (`HOME` is `dir/home`).  Its node name is `fqb-PORT@localhost` and its
 * distribution port another free port, so it never meets a system node.
 * Resolves once an AMQP connection succeeds.
 *
 * @param options The folder and port.
 * @returns The running node.  Its URL is `amqp://127.0.0.1:PORT` (the default
 *   `guest` user, which RabbitMQ admits from localhost only); its `pid` is the
 *   Erlang VM's (`beam.smp`).  `stop()` shuts the node down gracefully and
 *   leaves none of its processes behind (`epmd`, shared with other nodes, may
 *   stay).  It can be killed and restarted on the same node name, ports and
 *   data; `pid` then names the new VM.
 * @throws {Error} When the node exits or does not accept connections within
 *   60 seconds (the error holds the log's last lines), or when
 *   `options.signal` aborts.
 */
export async function startRabbitmq(
  options: StartOptions,
): Promise<StartedServer> {
  const { dir, port, signal } = options;
  signal?.throwIfAborted();
  const deadline = Date.now() + START_TIMEOUT_MS;
  let distPort = freePort();
  while (distPort === port) distPort = freePort();
  const nodeName = `fqb-${port}@localhost`;
  const home = `${dir}/home`;
  for (const sub of [home, `${dir}/mnesia`, `${dir}/log`]) {
    await Deno.mkdir(sub, { recursive: true, mode: 0o700 });
  }
  // A name of its own tells our node from anything else on the port.
  const clusterName = `fqb-${port}-${crypto.randomUUID()}`;
  await Deno.writeTextFile(
    `${dir}/rabbitmq.conf`,
    `listeners.tcp.1 = 127.0.0.1:${port}\ncluster_name = ${clusterName}\n`,
  );
  await Deno.writeTextFile(`${dir}/enabled_plugins`, "[].\n");
  // Keep the system's rabbitmq-env.conf (which may set NODENAME) out.
  await Deno.writeTextFile(`${dir}/rabbitmq-env.conf`, "");
  const env: Record<string, string> = {
    HOME: home,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: "127.0.0.1",
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: `${dir}/mnesia`,
    RABBITMQ_LOG_BASE: `${dir}/log`,
    RABBITMQ_LOGS: "-",
    RABBITMQ_CONFIG_FILE: `${dir}/rabbitmq.conf`,
    RABBITMQ_ADVANCED_CONFIG_FILE: `${dir}/advanced.config`,
    RABBITMQ_ENABLED_PLUGINS_FILE: `${dir}/enabled_plugins`,
    RABBITMQ_CONF_ENV_FILE: `${dir}/rabbitmq-env.conf`,
    RABBITMQ_PID_FILE: `${dir}/rabbitmq.pid`,
  };
  signal?.throwIfAborted();
  const launch = (timeoutMs: number) =>
    launchRabbitmq({ ...options, env, clusterName, timeoutMs });
  return restartableServer(
    `amqp://127.0.0.1:${port}`,
    await launch(deadline - Date.now()),
    () => launch(RESTART_TIMEOUT_MS),
  );
}

/** Options for {@link launchRabbitmq}. */
interface LaunchOptions extends StartOptions {
  /** The start script's environment: node name, ports, folders. */
  readonly env: Record<string, string>;
  /** The cluster name that tells our node from another broker. */
  readonly clusterName: string;
  /** How long it may take to accept AMQP connections. */
  readonly timeoutMs: number;
}

/**
 * Spawns the node's start script and waits until the node accepts AMQP
 * connections; on failure, stops it and throws with the log's last lines.
 */
async function launchRabbitmq(
  { dir, port, signal, env, clusterName, timeoutMs }: LaunchOptions,
): Promise<ServerProcess> {
  const logPath = `${dir}/rabbitmq.log`;
  // Without RABBITMQ_ALLOW_INPUT the script stays in the foreground as the
  // VM's parent and turns SIGTERM into a graceful shutdown of the node.
  const script = await spawnLogged(serverScript(), [], {
    logPath,
    cwd: dir, // where a failed boot writes erl_crash.dump
    env,
  });
  const url = `amqp://127.0.0.1:${port}`;
  let tree: ProcessId[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      tree = [...tree, ...descendants(script.pid)];
      await script.stop("SIGTERM", STOP_GRACE_MS);
      await reap(tree, HELPER_GRACE_MS);
    })();
    return stopping;
  };
  try {
    const properties = await waitUntilServing({
      name: "rabbitmq-server",
      process: script,
      logPath,
      awaited: `no AMQP connection on port ${port}`,
      timeoutMs,
      intervalMs: 100,
      signal,
      probe: () => serverProperties(url, 2000),
      exitHint: (log) =>
        /eaddrinuse/.test(log) ? `; port ${port} is taken` : "",
    });
    if (properties.cluster_name !== clusterName) {
      throw await startError(
        "rabbitmq-server",
        `another broker answers on port ${port}`,
        logPath,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  tree = descendants(script.pid);
  const vm = tree.find((id) => id.command === "beam.smp");
  return { process: script, pid: vm?.pid ?? script.pid, stop };
}

/**
 * Connects to the AMQP broker at `url` and returns its version, as the
 * broker announces it in its connection properties.  Never waits longer than
 * `timeoutMs`; always closes the connection.
 *
 * @param url An `amqp://` or `amqps://` URL.
 * @param timeoutMs The longest time to try.
 * @returns The broker's version, for example `"3.10.8"`.
 * @throws {Error} Naming the URL (without password) and the cause.
 */
export async function probeRabbitmq(
  url: string,
  timeoutMs: number,
): Promise<{ version: string }> {
  const { version } = await serverProperties(url, timeoutMs);
  if (typeof version !== "string" || version === "") {
    throw new UnreachableError(
      `RabbitMQ at ${redactUrl(url)} announced no version`,
    );
  }
  return { version };
}

/**
 * Connects to the AMQP broker at `url`, returns the properties it announces
 * (version, cluster name, …) and closes the connection; see
 * {@link probeRabbitmq}.
 */
async function serverProperties(
  url: string,
  timeoutMs: number,
): Promise<ServerProperties> {
  const fail = (cause: unknown): Error =>
    new UnreachableError(
      `cannot reach RabbitMQ at ${redactUrl(url)} (${
        stripPassword(errorMessage(cause), url)
      })`,
    );
  let timedOut = false;
  const connecting = connect(url, { timeout: timeoutMs });
  try {
    const connection = await withTimeout(connecting, timeoutMs, () => {
      timedOut = true;
      return fail(`no answer within ${timeoutMs} ms`);
    });
    // A broken connection emits "error"; without a listener that would throw.
    connection.on("error", () => {});
    try {
      return connection.connection.serverProperties;
    } finally {
      await connection.close().catch(() => {});
    }
  } catch (error) {
    throw error instanceof UnreachableError ? error : fail(error);
  } finally {
    // A connection that succeeds after we gave up must not linger.
    if (timedOut) {
      connecting.then((late) => late.close().catch(() => {}), () => {});
    }
  }
}

/** RabbitMQ, from `AMQP_URL` or a throwaway node. */
export const rabbitmqService: ServiceDefinition = {
  name: "rabbitmq",
  urlEnv: "AMQP_URL",
  binaries: ["rabbitmq-server"],
  installHint: "apt-get install rabbitmq-server",
  start: startRabbitmq,
  probe: probeRabbitmq,
};
