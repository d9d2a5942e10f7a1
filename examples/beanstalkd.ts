/**
 * An example driver: [beanstalkd] through {@link BeanstalkdMessageQueue},
 * written only against the bench's public API (`../mod.ts`), as a template
 * for a driver of your own.  See `README.md` in this folder.
 *
 * A driver module has three parts:
 *
 * 1. A {@link ServiceDefinition} ({@link beanstalkdService}): how to reach a
 *    user's server (`BEANSTALKD_URL`) and how to start a throwaway one.  The
 *    bench, not the driver, decides which, and starts and stops servers.
 * 2. The {@link Driver} ({@link beanstalkdDriver}): `prepare()` runs once per
 *    run in the runner process and makes an empty, private namespace (here a
 *    tube named after the run id); `open()` runs in the sender and worker
 *    processes and returns the Fedify `MessageQueue`.
 * 3. A default export of the driver, and `module: import.meta.url`, so that
 *    the bench's child processes can import this module and find it.
 *
 * Run it with
 * `deno task bench --driver-module ./examples/beanstalkd.ts --drivers beanstalkd`.
 *
 * [beanstalkd]: https://beanstalkd.github.io/
 *
 * @module
 */
import {
  type Driver,
  type Json,
  launchServer,
  restartableServer,
  type ServerProcess,
  type ServiceDefinition,
  type StartedServer,
  type StartOptions,
  unreachableError,
} from "../mod.ts";
import {
  BeanstalkConnection,
  BeanstalkdMessageQueue,
  parseBeanstalkUrl,
} from "./beanstalkd_queue.ts";

/** How long a new server may take to accept connections. */
const START_TIMEOUT_MS = 10_000;
/** How long a restarted server may take (it replays its binlog first). */
const RESTART_TIMEOUT_MS = 60_000;
/** How long a server may take to exit after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 5_000;
/**
 * The job size limit of throwaway servers (`-z`).  beanstalkd's default is
 * 64 KiB; Fedify's messages carry the activity and the sender's keys, and a
 * fanout message also lists every inbox.
 */
const MAX_JOB_BYTES = 1024 * 1024;

// ---------------------------------------------------------------------------
// The service: probing a server, and starting throwaway ones.
// ---------------------------------------------------------------------------

/**
 * Connects to the beanstalkd at `url` and returns its version, from the
 * `stats` command.  Never waits longer than about `timeoutMs`; always
 * disconnects.  (beanstalkd has no passwords, so there is none to redact;
 * the message shows only the host and port.)
 *
 * @param url A `beanstalk://host:port` URL.
 * @param timeoutMs The longest time to try.
 * @returns The server's version, for example `1.12`.
 * @throws {Error} Naming the server and the cause.
 */
export async function probeBeanstalkd(
  url: string,
  timeoutMs: number,
): Promise<{ version: string }> {
  let where = url;
  let conn: BeanstalkConnection | undefined;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const { hostname, port } = parseBeanstalkUrl(url);
    where = `beanstalk://${hostname}:${port}`;
    const started = Date.now();
    conn = await BeanstalkConnection.connect(url, timeoutMs);
    // Closing the connection makes a read that waits for an answer fail.
    const opened = conn;
    timer = setTimeout(() => {
      timedOut = true;
      opened.close();
    }, Math.max(0, timeoutMs - (Date.now() - started)));
    const reply = await conn.send("stats");
    const version = reply.status === "OK"
      ? /^version:\s*"?([^"\s]+)"?\s*$/m.exec(
        new TextDecoder().decode(reply.body),
      )?.[1]
      : undefined;
    if (version == null) throw new Error(`stats answered ${reply.status}`);
    return { version };
  } catch (error) {
    throw unreachableError(
      "beanstalkd",
      where,
      timedOut ? `no answer within ${timeoutMs} ms` : error,
    );
  } finally {
    clearTimeout(timer);
    conn?.close();
  }
}

/**
 * Spawns `beanstalkd` in the foreground (not daemonized, so we hold its pid
 * and see it exit), its output appended to a log file, and waits until it
 * answers `stats`; on failure or abort, stops it and throws.
 */
function launch(
  args: readonly string[],
  url: string,
  logPath: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ServerProcess> {
  return launchServer({
    name: "beanstalkd",
    command: "beanstalkd",
    args,
    spawn: { logPath },
    awaited: `no answer at ${url}`,
    timeoutMs,
    intervalMs: 25,
    signal,
    stopGraceMs: STOP_GRACE_MS,
    probe: () => probeBeanstalkd(url, 1000),
  });
}

/**
 * Starts a throwaway `beanstalkd` on `127.0.0.1:port`, keeping its binlog
 * (write-ahead log, fsynced at most every 50 ms, beanstalkd's default) in
 * `dir`, so that {@link StartedServer.restart} recovers its jobs.  Its
 * messages go to `beanstalkd.log` in `dir`.  Resolves once it accepts
 * connections.
 *
 * @param options The folder, the port, and a signal that aborts the start.
 * @returns The running server.
 * @throws {Error} When it does not answer within 10 seconds (the message
 *   holds the log's last lines), or when `options.signal` aborts.
 */
export async function startBeanstalkd(
  options: StartOptions,
): Promise<StartedServer> {
  const { dir, port, signal } = options;
  const url = `beanstalk://127.0.0.1:${port}`;
  const binlog = `${dir}/binlog`;
  const logPath = `${dir}/beanstalkd.log`;
  await Deno.mkdir(binlog, { recursive: true });
  const args = [
    ...["-l", "127.0.0.1", "-p", String(port)],
    ...["-b", binlog, "-z", String(MAX_JOB_BYTES)],
  ];
  // Killed, it restarts on the same binlog, as `--crash-server-at` needs.
  return restartableServer(
    url,
    await launch(args, url, logPath, START_TIMEOUT_MS, signal),
    () => launch(args, url, logPath, RESTART_TIMEOUT_MS),
  );
}

/** beanstalkd, from `BEANSTALKD_URL` or a throwaway `beanstalkd`. */
export const beanstalkdService: ServiceDefinition = {
  name: "beanstalkd",
  urlEnv: "BEANSTALKD_URL",
  binaries: ["beanstalkd"],
  installHint: "apt-get install beanstalkd",
  start: startBeanstalkd,
  probe: probeBeanstalkd,
};

// ---------------------------------------------------------------------------
// The driver.
// ---------------------------------------------------------------------------

/** What `prepare()` hands to `open()` in every process of a run. */
interface BeanstalkdConfig {
  readonly url: string;
  readonly tube: string;
  readonly [key: string]: Json;
}

/** Drains a tube, with a queue opened for just that. */
async function drainTube(config: BeanstalkdConfig): Promise<void> {
  await using queue = new BeanstalkdMessageQueue(config);
  await queue.drain();
}

/** beanstalkd, one tube per run, through {@link BeanstalkdMessageQueue}. */
export const beanstalkdDriver: Driver = {
  name: "beanstalkd",
  description:
    "beanstalkd via the example BeanstalkdMessageQueue (text protocol, binlog)",
  crossProcess: true,
  // The job is deleted once the handler's promise resolves.
  removes: "after-handler",
  service: beanstalkdService,
  module: import.meta.url,
  async prepare({ runId, serviceUrl }) {
    if (serviceUrl == null) throw new Error("beanstalkd: no server URL");
    const config: BeanstalkdConfig = { url: serviceUrl, tube: `fqb.${runId}` };
    // A new tube is empty; drain it anyway, in case a run with this id left
    // jobs behind.
    await drainTube(config);
    return { config, cleanup: () => drainTube(config) };
  },
  open(config) {
    const queue = new BeanstalkdMessageQueue(config as BeanstalkdConfig);
    return Promise.resolve({ queue, close: () => queue.close() });
  },
};

export default beanstalkdDriver;
