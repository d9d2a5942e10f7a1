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
  isStillRunning,
  liveDescendants,
  type ProcEntry,
} from "../../lib/system/procstat.ts";
import { sleep, withTimeout } from "../../lib/system/sleep.ts";
import {
  freePort,
  launchServer,
  restartableServer,
  type ServerProcess,
  startError,
} from "../../lib/services/server.ts";
import type {
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "../../lib/services/service_types.ts";
import { findBinary } from "../../lib/services/binaries.ts";
import { redactUrl } from "../../lib/services/url_password.ts";
import {
  UnreachableError,
  unreachableError,
} from "../../lib/services/unreachable.ts";

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

/**
 * Waits up to `graceMs` for the processes to exit, then kills the rest and
 * waits for them to go.
 */
async function reap(ids: readonly ProcEntry[], graceMs: number) {
  const deadline = Date.now() + graceMs;
  let alive = ids.filter(isStillRunning);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter(isStillRunning);
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
    alive = alive.filter(isStillRunning);
  }
}

/**
 * Starts a throwaway RabbitMQ node as a child process (not detached) that
 * listens for AMQP on `127.0.0.1:port`.  Everything it writes stays in `dir`:
 * data (`mnesia`), logs (`log`, and the console output in `rabbitmq.log`),
 * config files (one plugin, the consistent-hash exchange that
 * `@fedify/amqp`'s ordering option needs; no management UI) and the Erlang cookie
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
  // The consistent-hash exchange, which `@fedify/amqp`'s `ordering` option
  // needs (its only plugin dependency); nothing else, so no management UI.
  await Deno.writeTextFile(
    `${dir}/enabled_plugins`,
    "[rabbitmq_consistent_hash_exchange].\n",
  );
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
  const url = `amqp://127.0.0.1:${port}`;
  const logPath = `${dir}/rabbitmq.log`;
  let tree: ProcEntry[] = [];
  const life = await launchServer({
    name: "rabbitmq-server",
    // Without RABBITMQ_ALLOW_INPUT the script stays in the foreground as the
    // VM's parent and turns SIGTERM into a graceful shutdown of the node.
    command: serverScript(),
    args: [],
    spawn: {
      logPath,
      cwd: dir, // where a failed boot writes erl_crash.dump
      env,
    },
    awaited: `no AMQP connection on port ${port}`,
    timeoutMs,
    intervalMs: 100,
    signal,
    stopGraceMs: STOP_GRACE_MS,
    probe: () => serverProperties(url, 2000),
    exitHint: (log) => /eaddrinuse/.test(log) ? `; port ${port} is taken` : "",
    async accept(properties) {
      if (properties.cluster_name !== clusterName) {
        throw await startError(
          "rabbitmq-server",
          `another broker answers on port ${port}`,
          logPath,
        );
      }
    },
    // The node's helper processes (epmd aside) must not outlive it.
    async stop(script) {
      tree = [...tree, ...liveDescendants(script.pid)];
      await script.stop("SIGTERM", STOP_GRACE_MS);
      await reap(tree, HELPER_GRACE_MS);
    },
  });
  tree = liveDescendants(life.process.pid);
  const vm = tree.find((id) => id.stat.command === "beam.smp");
  return { ...life, pid: vm?.pid ?? life.pid };
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
  const fail = (cause: unknown) => unreachableError("RabbitMQ", url, cause);
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
  title: "RabbitMQ",
  urlEnv: "AMQP_URL",
  ports: { amqp: 5672, amqps: 5671 },
  binaries: ["rabbitmq-server"],
  installHint: "apt-get install rabbitmq-server",
  start: startRabbitmq,
  probe: probeRabbitmq,
};
