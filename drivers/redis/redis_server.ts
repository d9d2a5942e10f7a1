/**
 * Redis: probing a user-given server and starting throwaway ones.
 *
 * @module
 */
import { Redis } from "ioredis";
import type {
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "../../lib/services/service_types.ts";
import {
  launchServer,
  restartableServer,
  type ServerProcess,
} from "../../lib/services/server.ts";
import { writeAll } from "../../lib/system/logged_process.ts";
import { withTimeout } from "../../lib/system/sleep.ts";
import {
  UnreachableError,
  unreachableError,
} from "../../lib/services/unreachable.ts";
import { redisFetcher } from "./redis_fetch.ts";
import { type ServerTools, serverTools } from "../../lib/services/fetched.ts";

/** How long a throwaway Redis may take to answer PING. */
const START_TIMEOUT_MS = 10_000;
/** How long a restarted Redis may take to load its RDB or AOF file. */
const RESTART_TIMEOUT_MS = 60_000;
/** How long a throwaway Redis may take to exit after SIGTERM. */
const STOP_GRACE_MS = 10_000;

/** The executables a throwaway Redis needs. */
const REDIS_BINARIES: readonly string[] = ["redis-server"];

/** How a Redis server keeps its data across a crash. */
export type RedisPersistence = "none" | "rdb" | "aof";

/**
 * The `redis-server` settings of each {@link RedisPersistence} mode, as
 * `CONFIG` parameter and value:
 *
 * - `none`: no snapshots, no append-only file; a restart starts empty.
 * - `rdb`: a background snapshot one second after 1,000 writes, or ten
 *   seconds after any write (`save "1 1000 10 1"`); a crash loses the writes
 *   since the last snapshot.
 * - `aof`: every write appended to the append-only file and fsynced before
 *   the reply (`appendonly yes`, `appendfsync always`), no snapshots.
 */
export const REDIS_PERSISTENCE: Readonly<
  Record<RedisPersistence, Readonly<Record<string, string>>>
> = {
  none: { save: "", appendonly: "no" },
  rdb: { save: "1 1000 10 1", appendonly: "no" },
  aof: { save: "", appendonly: "yes", appendfsync: "always" },
};

/**
 * The `redis-server` arguments that set a persistence mode.
 *
 * @param mode The mode.
 * @returns For example `["--save", "", "--appendonly", "no"]`.
 */
export function redisPersistenceArgs(mode: RedisPersistence): string[] {
  return Object.entries(REDIS_PERSISTENCE[mode])
    .flatMap(([name, value]) => [`--${name}`, value]);
}

/** Options for {@link startRedis}. */
export interface StartRedisOptions extends StartOptions {
  /**
   * Extra `redis-server` arguments, appended after the defaults so they win;
   * for example `["--save", "1 1000"]` or
   * `["--appendonly", "yes", "--appendfsync", "always"]`.
   */
  readonly extraArgs?: readonly string[];
}

/**
 * Sends `PING` over a raw connection and tells whether `+PONG` came back.
 * Never throws.
 */
async function ping(port: number, timeoutMs: number): Promise<boolean> {
  let conn: Deno.TcpConn | undefined;
  const close = () => {
    try {
      conn?.close();
    } catch {
      // Already closed.
    }
    conn = undefined;
  };
  const timer = setTimeout(close, timeoutMs);
  try {
    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await writeAll(conn, new TextEncoder().encode("PING\r\n"));
    const buffer = new Uint8Array(64);
    const read = await conn.read(buffer);
    return read != null &&
      new TextDecoder().decode(buffer.subarray(0, read)).startsWith("+PONG");
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    close();
  }
}

/**
 * Starts a throwaway `redis-server` as a child process (not daemonized)
 * listening on `127.0.0.1:port`, without persistence unless `extraArgs` ask
 * for it.  Its output goes to `redis.log` in `dir`.  Resolves once it answers
 * `PING`.  The server can be killed and restarted with the same arguments,
 * reloading its RDB or AOF file if it has one.
 *
 * @param options The folder, port, and extra arguments.
 * @returns The running server.
 * @throws {Error} When it does not answer within 10 seconds (the error holds
 *   the log's last lines), or when `options.signal` aborts.
 */
export async function startRedis(
  options: StartRedisOptions,
): Promise<StartedServer> {
  const { dir, port, signal } = options;
  signal?.throwIfAborted();
  const tools = options.tools ??
    await serverTools(REDIS_BINARIES, redisFetcher, { signal });
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "no",
    "--dir",
    dir,
    ...(options.extraArgs ?? []),
  ];
  const launch = (timeoutMs: number) =>
    launchRedis(args, { ...options, tools }, `${dir}/redis.log`, timeoutMs);
  return restartableServer(
    `redis://127.0.0.1:${port}`,
    await launch(START_TIMEOUT_MS),
    () => launch(RESTART_TIMEOUT_MS),
  );
}

/**
 * Spawns `redis-server` with `args` and waits until it answers `PING`
 * (`-LOADING` while it reads its data file does not count); on failure,
 * stops it and throws with the log's last lines.
 */
function launchRedis(
  args: readonly string[],
  { dir, port, signal, tools }: StartOptions & {
    readonly tools: ServerTools;
  },
  logPath: string,
  timeoutMs: number,
): Promise<ServerProcess> {
  return launchServer({
    name: "redis-server",
    command: tools.path("redis-server"),
    args,
    spawn: { logPath, cwd: dir, env: { ...tools.env } },
    awaited: `no answer to PING on port ${port}`,
    timeoutMs,
    intervalMs: 25,
    signal,
    stopGraceMs: STOP_GRACE_MS,
    async probe(server) {
      const exited = server.status.then(() => false);
      if (!await Promise.race([ping(port, 1000), exited])) {
        throw new Error("no PONG");
      }
    },
  });
}

/**
 * Connects to the Redis server at `url` and returns its version.  Never waits
 * longer than `timeoutMs`; always disconnects.
 *
 * @param url A `redis://` or `rediss://` URL.
 * @param timeoutMs The longest time to try.
 * @returns The server's `redis_version`.
 * @throws {Error} Naming the URL (without password) and the cause.
 */
export async function probeRedis(
  url: string,
  timeoutMs: number,
): Promise<{ version: string }> {
  let client: Redis | undefined;
  let lastError: unknown;
  const fail = (cause: unknown) => unreachableError("Redis", url, cause);
  try {
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
      enableReadyCheck: false,
    });
    // Without a listener ioredis prints "Unhandled error event".
    client.on("error", (error) => {
      lastError = error;
    });
    const redis = client;
    const info = await withTimeout(
      redis.connect().then(() => redis.info("server")),
      timeoutMs,
      () => fail(lastError ?? `no answer within ${timeoutMs} ms`),
    );
    const version = /^redis_version:(.+)$/m.exec(info)?.[1]?.trim();
    if (!version) throw new Error("INFO server has no redis_version");
    return { version };
  } catch (error) {
    if (error instanceof UnreachableError) throw error;
    // The error event carries the real cause (ECONNREFUSED, …); the rejected
    // command only says "Connection is closed".
    throw fail(lastError ?? error);
  } finally {
    client?.disconnect();
  }
}

/** A Redis service whose throwaway servers run in the given mode. */
function redisServiceFor(
  name: string,
  mode: RedisPersistence,
): ServiceDefinition {
  const extraArgs = redisPersistenceArgs(mode);
  return {
    name,
    title: "Redis",
    urlEnv: "REDIS_URL",
    ports: { redis: 6379, rediss: 6379 },
    binaries: REDIS_BINARIES,
    installHint: "apt-get install redis-server",
    fetcher: redisFetcher,
    start: (options: StartOptions): Promise<StartedServer> =>
      startRedis({ ...options, extraArgs }),
    probe: probeRedis,
  };
}

/**
 * Redis, from `REDIS_URL` or a throwaway `redis-server` without persistence
 * (mode `none` of {@link REDIS_PERSISTENCE}).
 */
export const redisService: ServiceDefinition = redisServiceFor(
  "redis",
  "none",
);

/**
 * Redis, from `REDIS_URL` or a throwaway `redis-server` that takes RDB
 * snapshots (mode `rdb` of {@link REDIS_PERSISTENCE}).
 */
export const redisRdbService: ServiceDefinition = redisServiceFor(
  "redis-rdb",
  "rdb",
);

/**
 * Redis, from `REDIS_URL` or a throwaway `redis-server` that fsyncs every
 * write to its append-only file (mode `aof` of {@link REDIS_PERSISTENCE}).
 */
export const redisAofService: ServiceDefinition = redisServiceFor(
  "redis-aof",
  "aof",
);
