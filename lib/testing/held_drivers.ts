/**
 * Redis and PostgreSQL drivers whose worker does not start consuming until
 * the server has been restarted, for crash tests that need a backlog in the
 * server when it crashes: with the worker held, every message the sender
 * enqueued is still in the server when `--crash-server-at 0` strikes (once
 * sending is over), however busy the machine is, and no worker holds one
 * it took.  What the restarted server kept is then exactly what its
 * persistence kept.  Loaded as a user driver module, so the worker process
 * finds them by name.
 *
 * @module
 */
import type { MessageQueue } from "@fedify/fedify";
import type { Driver, Json } from "../../drivers/driver.ts";
import {
  connect as connectPostgres,
  postgresDriver,
} from "../../drivers/postgres/postgres.ts";
import {
  connect,
  redisAofDriver,
  redisDriver,
} from "../../drivers/redis/redis.ts";
import { sleep } from "../system/sleep.ts";

/** What a held driver's configuration holds besides the inner one's. */
interface HeldConfig {
  readonly inner: Json;
  /** The server's URL. */
  readonly url: string;
  /** Which start of the server the run began with. */
  readonly runId: string;
  readonly [key: string]: Json;
}

/** How often a held worker asks the server whether it was restarted. */
const POLL_MS = 100;

/** The `run_id` of the Redis server at `url` (new at each start). */
async function serverRunId(url: string): Promise<string> {
  const redis = connect(url);
  try {
    const info = await redis.info("server");
    const match = /^run_id:(\w+)/m.exec(info);
    if (match == null) throw new Error(`no run_id in INFO server of ${url}`);
    return match[1];
  } finally {
    redis.disconnect();
  }
}

/** When the PostgreSQL server at `url` started (new at each start). */
async function postmasterStart(url: string): Promise<string> {
  const sql = connectPostgres(url);
  try {
    const [row] = await sql`SELECT pg_postmaster_start_time()::text AS t`;
    return row.t as string;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Which start of its server a test is at: changes when it restarts. */
type StartId = (url: string) => Promise<string>;

/**
 * Resolves with `true` once the server at `url` is at a start other than
 * `runId`, or with `false` when `signal` aborts first.
 */
async function restarted(
  startId: StartId,
  url: string,
  runId: string,
  signal?: AbortSignal,
): Promise<boolean> {
  while (!signal?.aborted) {
    try {
      if (await startId(url) !== runId) return true;
    } catch {
      // Down while it restarts.
    }
    await sleep(POLL_MS);
  }
  return false;
}

/**
 * `inner`, but its `listen()` waits (until its signal aborts) for the
 * server to have been restarted before it consumes anything.
 */
function heldUntilRestart(inner: Driver, startId: StartId): Driver {
  return {
    ...inner,
    name: `${inner.name}-held`,
    description: `test: ${inner.name}, consumed only after a server restart`,
    suite: "named",
    module: import.meta.url,
    async prepare(context) {
      const prepared = await inner.prepare!(context);
      const url = context.serviceUrl!;
      const config: HeldConfig = {
        inner: prepared.config,
        url,
        runId: await startId(url),
      };
      return { config, cleanup: prepared.cleanup };
    },
    async open(config) {
      const { inner: innerConfig, url, runId } = config as HeldConfig;
      const opened = await inner.open!(innerConfig);
      const q = opened.queue;
      const queue: MessageQueue = {
        get nativeRetrial() {
          return q.nativeRetrial;
        },
        enqueue: (message, options) => q.enqueue(message, options),
        enqueueMany: q.enqueueMany == null
          ? undefined
          : (messages, options) => q.enqueueMany!(messages, options),
        async listen(handler, options) {
          if (await restarted(startId, url, runId, options?.signal)) {
            await q.listen(handler, options);
          }
        },
      };
      return { ...opened, queue };
    },
  };
}

/** `redis` (no persistence), its worker held until the server restarts. */
export const heldRedisDriver: Driver = heldUntilRestart(
  redisDriver,
  serverRunId,
);

/** `redis-aof`, its worker held until the server restarts. */
export const heldRedisAofDriver: Driver = heldUntilRestart(
  redisAofDriver,
  serverRunId,
);

/** `postgres`, its worker held until the server restarts. */
export const heldPostgresDriver: Driver = heldUntilRestart(
  postgresDriver,
  postmasterStart,
);

export default [heldRedisDriver, heldRedisAofDriver, heldPostgresDriver];
