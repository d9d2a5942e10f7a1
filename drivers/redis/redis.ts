/**
 * `RedisMessageQueue` from `@fedify/redis` on `ioredis`: the Fedify source
 * tree's (2.3.5) when one is given, the registry's 1.8.7 otherwise, and
 * always 1.8.7 as `redis-1.8.7`.  In three
 * persistence modes: none (`redis`), RDB snapshots (`redis-rdb`) and an
 * append-only file fsynced on every write (`redis-aof`).  Each run uses its
 * own key prefix, deleted afterwards.
 *
 * A throwaway server is started in the driver's mode.  On a user's server
 * (`REDIS_URL`), `redis` uses the server as it is configured, while
 * `redis-rdb` and `redis-aof` switch it to their mode with `CONFIG SET` and
 * `cleanup()` puts the previous settings back; while such a run lasts, the
 * whole server (other users' data too) runs in that mode.
 *
 * @module
 */
import { Redis } from "ioredis";
import type { Driver, Json, OrderingSupport, SuiteTier } from "../driver.ts";
import { errorMessage } from "../../lib/results/error_message.ts";
import {
  backlogCause,
  dequeueMsPerQueued,
} from "../../lib/measure/backlog_cost.ts";
import { redactUrl, type ServiceDefinition } from "../../lib/services/mod.ts";
import {
  REDIS_PERSISTENCE,
  redisAofService,
  type RedisPersistence,
  redisRdbService,
  redisService,
} from "./redis_server.ts";
import { adaptLegacyQueue } from "../legacy.ts";
import {
  followsSource,
  loadQueuePackage,
  type PackageChoice,
  packageLabel,
  recordedPackages,
} from "../packages.ts";

interface RedisConfig {
  readonly url: string;
  readonly prefix: string;
  readonly [key: string]: Json;
}

/**
 * The settings a mode may change, in the order they are set (`appendonly`
 * last, so that an append-only file starts with the right fsync policy);
 * they are restored in the reverse order.
 */
const PERSISTENCE_SETTINGS = ["appendfsync", "save", "appendonly"] as const;

/**
 * Connects an ioredis client the way every Redis driver does, errors
 * surfacing through the failing command rather than as events.
 *
 * @param url The server.
 * @param Client The ioredis class to instantiate: `Redis` or a subclass.
 */
export function connect(url: string, Client: typeof Redis = Redis): Redis {
  const redis = new Client(url, {
    lazyConnect: false,
    maxRetriesPerRequest: 3,
  });
  // Surfaced by the failing command; kept for its message, which says only
  // "max retries per request" when the connection was the problem.
  redis.on("error", (error: unknown) => connectionErrors.set(redis, error));
  return redis;
}

/** The last connection error of each client made by {@link connect}. */
const connectionErrors = new WeakMap<Redis, unknown>();

/**
 * `error`, a failed command's, with the client's last connection error
 * beside it when there was one: ioredis reports a lost connection as
 * "Reached the max retries per request limit" alone.
 */
function withConnectionError(redis: Redis, error: unknown): unknown {
  const cause = connectionErrors.get(redis);
  if (cause == null) return error;
  return new Error(
    `${errorMessage(error)} (last connection error: ${errorMessage(cause)})`,
    { cause: error },
  );
}

/** Deletes every key that starts with `prefix`. */
async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(
      cursor,
      "MATCH",
      `${prefix}*`,
      "COUNT",
      1000,
    );
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}

/** Sets settings with `CONFIG SET`, one at a time, in the given order. */
async function configSet(
  redis: Redis,
  settings: readonly (readonly [name: string, value: string])[],
): Promise<void> {
  for (const [name, value] of settings) {
    await redis.call("CONFIG", "SET", name, value);
  }
}

/** Reads one setting with `CONFIG GET`. */
async function configGet(redis: Redis, name: string): Promise<string> {
  const reply = await redis.call("CONFIG", "GET", name) as string[];
  if (reply.length < 2) throw new Error(`CONFIG GET ${name} returned nothing`);
  return reply[1];
}

/**
 * Switches the server at `url` to a persistence mode's settings with
 * `CONFIG SET`, changing only those that differ, and returns a function that
 * sets the changed ones back to exactly their previous values.
 *
 * @param driver The driver's name, for error messages.
 * @param url The server.
 * @param mode The persistence mode.
 * @throws {Error} When `CONFIG` fails, saying so when the server refuses it
 *   (renamed or disabled command, or an ACL without it); nothing is left
 *   changed then.
 */
async function applyPersistence(
  driver: string,
  url: string,
  mode: RedisPersistence,
): Promise<() => Promise<void>> {
  const wanted: Readonly<Record<string, string>> = REDIS_PERSISTENCE[mode];
  const redis = connect(url);
  const changed: [name: string, previous: string][] = [];
  try {
    const current = new Map<string, string>();
    try {
      for (const name of PERSISTENCE_SETTINGS) {
        current.set(name, await configGet(redis, name));
      }
    } catch (error) {
      const cause = errorMessage(error);
      const refused = /NOPERM|unknown command/i.test(cause)
        ? "; the server does not allow CONFIG (renamed or disabled command, " +
          "or an ACL without it), so the bench cannot set its persistence " +
          "mode; allow CONFIG GET and CONFIG SET for this user, or unset " +
          "REDIS_URL to let the bench start its own server"
        : "";
      throw new Error(
        `${driver}: cannot read the persistence settings of Redis at ` +
          `${redactUrl(url)}: CONFIG GET failed (${cause})${refused}`,
        { cause: error },
      );
    }
    for (const name of PERSISTENCE_SETTINGS) {
      const value = wanted[name];
      if (value == null || value === current.get(name)) continue;
      try {
        await redis.call("CONFIG", "SET", name, value);
      } catch (error) {
        await configSet(redis, changed.toReversed()).catch(() => {});
        throw new Error(
          `${driver}: cannot set ${name} to "${value}" on Redis at ` +
            `${redactUrl(url)}: CONFIG SET failed (${errorMessage(error)}); ` +
            "allow CONFIG SET for this user, or unset REDIS_URL to let the " +
            "bench start its own server",
          { cause: error },
        );
      }
      changed.push([name, current.get(name)!]);
    }
  } finally {
    redis.disconnect();
  }
  if (changed.length === 0) return () => Promise.resolve();
  return async () => {
    const again = connect(url);
    try {
      await configSet(again, changed.toReversed());
    } catch (error) {
      throw withConnectionError(again, error);
    } finally {
      again.disconnect();
    }
  };
}

/** `save "1 1000 10 1", appendonly no`, for a driver's description. */
function describeSettings(mode: RedisPersistence): string {
  return Object.entries(REDIS_PERSISTENCE[mode])
    .map(([name, value]) =>
      `${name} ${/^\w+$/.test(value) ? value : `"${value}"`}`
    )
    .join(", ");
}

/**
 * A driver made by {@link redisDriverFor}: its name, and what sets it apart
 * from the `redis` driver (each optional part defaults to that driver's).
 */
export interface RedisDriverOptions {
  /** The driver's name. */
  readonly name: string;
  /** Its row in the docs' table of drivers; see {@link Driver.docs}. */
  readonly docs?: Driver["docs"];
  /** The persistence mode of its server; `"none"` by default. */
  readonly mode?: RedisPersistence;
  /**
   * Starts throwaway servers in that mode; the mode's service by default
   * (`redisService`, `redisRdbService`, `redisAofService`).
   */
  readonly service?: ServiceDefinition;
  /**
   * The mode in a few words, for the description; the mode's by default
   * (`"RDB snapshots"`, …).
   */
  readonly summary?: string;
  /**
   * Whether `prepare()` switches a user's server (`REDIS_URL`) to the mode;
   * by default only when the mode is not `"none"` (the drivers whose point
   * is the mode).
   */
  readonly enforceOnUserServer?: boolean;
  /** Connects the queue's clients; a plain {@link connect} by default. */
  readonly client?: (url: string) => Redis;
  /** See {@link Driver.suite}. */
  readonly suite?: SuiteTier;
  /** Which code it runs (see `packages.ts`); follows the source by default. */
  readonly choice?: PackageChoice;
  /**
   * Whether each dequeue reads the whole ready set, as every version of the
   * package does (the default); `false` for an ablation that does not.  See
   * {@link Driver.dequeueMsPerQueued}.
   */
  readonly readsBacklog?: boolean;
}

/** What the Redis queue of the code a driver runs does with ordering keys. */
function redisOrdering(choice: PackageChoice): OrderingSupport {
  return followsSource(choice)
    ? {
      supported: true,
      note: "RedisMessageQueue (2.x) takes a lock per key (SET NX, 60 s) " +
        "and skips a ready message whose key is locked",
    }
    : {
      supported: false,
      note: "not supported by the installed version: @fedify/redis 1.8.7 " +
        "predates orderingKey (Fedify 2.0) and ignores it",
    };
}

/** Each persistence mode's throwaway server and words for a description. */
const MODES: Readonly<
  Record<RedisPersistence, { service: ServiceDefinition; summary: string }>
> = {
  none: {
    service: redisService,
    summary:
      "no persistence on a throwaway server; a REDIS_URL server as configured",
  },
  rdb: { service: redisRdbService, summary: "RDB snapshots" },
  aof: { service: redisAofService, summary: "AOF fsynced on every write" },
};

/**
 * Makes a driver for Fedify's Redis queue in one persistence mode.
 *
 * @param options Its name and what sets it apart from the `redis` driver:
 *   the mode, the client that connects the queue (`prepare()` and
 *   `cleanup()` always use a plain {@link connect}), its suite, ….
 */
export function redisDriverFor(options: RedisDriverOptions): Driver {
  const { name, mode = "none" } = options;
  const service = options.service ?? MODES[mode].service;
  const summary = options.summary ?? MODES[mode].summary;
  const enforceOnUserServer = options.enforceOnUserServer ?? mode !== "none";
  const client = options.client ?? connect;
  const choice = options.choice ?? "follow-source";
  return {
    name,
    suite: options.suite,
    ...(options.docs == null ? {} : { docs: options.docs }),
    get description() {
      return `${packageLabel("redis", choice)} RedisMessageQueue (ioredis), ` +
        `${summary} (${describeSettings(mode)})`;
    },
    crossProcess: true,
    removes: "before-handler",
    get dequeueMsPerQueued() {
      return options.readsBacklog === false ? undefined : dequeueMsPerQueued(
        "redis",
        followsSource(choice) ? "2.3.5" : "1.8.7",
      ) ?? undefined;
    },
    get backlogCause() {
      return options.readsBacklog === false ? undefined : backlogCause(
        "redis",
        followsSource(choice) ? "2.3.5" : "1.8.7",
      ) ?? undefined;
    },
    get ordering() {
      return redisOrdering(choice);
    },
    get depth() {
      return followsSource(choice) ? "ready-and-delayed" as const : undefined;
    },
    service,
    queueSpecifier: "@fedify/redis",
    get packages() {
      return recordedPackages("redis", choice, ["ioredis"]);
    },
    async prepare({ runId, serviceUrl }) {
      if (serviceUrl == null) throw new Error(`${name}: no server URL`);
      const config: RedisConfig = { url: serviceUrl, prefix: `fqb:${runId}:` };
      // The throwaway server already runs in the mode; a user's server is
      // switched only by the drivers whose point is the mode.
      const restore = enforceOnUserServer
        ? await applyPersistence(name, serviceUrl, mode)
        : () => Promise.resolve();
      return {
        config,
        async cleanup() {
          const redis = connect(serviceUrl);
          try {
            await deleteKeys(redis, config.prefix);
          } catch (error) {
            throw withConnectionError(redis, error);
          } finally {
            redis.disconnect();
            await restore();
          }
        },
      };
    },
    async open(config) {
      const { url, prefix } = config as RedisConfig;
      const { module } = await loadQueuePackage(
        "redis",
        () => import("@fedify/redis"),
        choice,
      );
      const clients: Redis[] = [];
      const queue = new module.RedisMessageQueue(() => {
        const redis = client(url);
        clients.push(redis);
        return redis;
      }, {
        queueKey: `${prefix}queue`,
        lockKey: `${prefix}lock`,
        channelKey: `${prefix}channel`,
      });
      return {
        queue: adaptLegacyQueue(queue),
        async close() {
          // The queue publishes after each enqueue without awaiting it
          // (1.8.7 and 2.x alike), and disposing disconnects at once: a
          // publish still waiting for its reply would reject with nobody
          // to hear it.  Redis answers in order, so once a PING on each
          // client is answered, so is everything sent before it.
          await Promise.all(
            clients.map((redis) => redis.ping().catch(() => {})),
          );
          queue[Symbol.dispose]();
        },
      };
    },
  };
}

/**
 * Fedify's Redis queue (sorted set + pub/sub + lock key): no persistence on
 * a throwaway server; a user's server (`REDIS_URL`) is left as configured.
 */
export const redisDriver: Driver = redisDriverFor({
  name: "redis",
  docs: {
    queue: "`@fedify/redis` `RedisMessageQueue` on ioredis: the source " +
      "tree's, else 1.8.7",
    notes: "no persistence; `REDIS_URL` or a throwaway `redis-server`. Its " +
      "dequeue reads the whole ready set (1.8.7 and 2.3.5 alike), so its " +
      "cost per message grows with the backlog",
  },
  suite: "default",
});

/**
 * `@fedify/redis` 1.8.7 from the registry whatever the source, for the
 * findings that rest on it and beside the source tree's `redis`.
 */
export const redis187Driver: Driver = redisDriverFor({
  name: "redis-1.8.7",
  docs: {
    queue: "`@fedify/redis` 1.8.7 from the registry whatever the source",
    notes: "run only when named: for the findings that rest on 1.8.7, and " +
      "for users still on 1.8",
  },
  suite: "named",
  choice: "mapped",
});

/** The one row of `redis-rdb` and `redis-aof` in the docs. */
const PERSISTENCE_DOCS: Driver["docs"] = {
  queue: "the same as `redis`",
  notes: "RDB snapshots; AOF with `appendfsync always` (run only when named)",
};

/** Fedify's Redis queue on a server that takes RDB snapshots. */
export const redisRdbDriver: Driver = redisDriverFor({
  name: "redis-rdb",
  docs: PERSISTENCE_DOCS,
  mode: "rdb",
  suite: "named",
});

/** Fedify's Redis queue on a server that fsyncs every write to its AOF. */
export const redisAofDriver: Driver = redisDriverFor({
  name: "redis-aof",
  docs: PERSISTENCE_DOCS,
  mode: "aof",
  suite: "named",
});
