/**
 * `PostgresMessageQueue` from `@fedify/postgres` on the `postgres` client:
 * the Fedify source tree's (2.3.5) when one is given, the registry's 1.8.7
 * otherwise, and always 1.8.7 as `postgres-1.8.7`.  Each run uses its own
 * table and notification channel, dropped afterwards.
 *
 * @module
 */
import postgres from "postgres";
import type { Driver, Json, OrderingSupport, SuiteTier } from "../driver.ts";
import { postgresService } from "./postgres_server.ts";
import { adaptLegacyQueue } from "../legacy.ts";
import {
  backlogCause,
  dequeueMsPerQueued,
} from "../../lib/measure/backlog_cost.ts";
import { StopGuard } from "../../lib/system/stop_guard.ts";
import {
  followsSource,
  loadQueuePackage,
  type PackageChoice,
  packageLabel,
  recordedPackages,
} from "../packages.ts";

/** The configuration `prepare()` hands to `open()`. */
export interface PostgresConfig {
  readonly url: string;
  readonly table: string;
  readonly [key: string]: Json;
}

/**
 * Connects a postgres.js client the way the PostgreSQL drivers do (four
 * connections at most, server notices ignored).
 *
 * @param url The server.
 */
export function connect(url: string): postgres.Sql {
  return postgres(url, { max: 4, onnotice: () => {} });
}

/** Loads the `PostgresMessageQueue` class of the code `choice` names. */
async function queueClass(choice: PackageChoice) {
  const { module } = await loadQueuePackage(
    "postgres",
    () => import("@fedify/postgres"),
    choice,
  );
  return module.PostgresMessageQueue;
}

/** What the PostgreSQL queue of the code a driver runs does with keys. */
function postgresOrdering(choice: PackageChoice): OrderingSupport {
  return followsSource(choice)
    ? {
      supported: true,
      note: "PostgresMessageQueue (2.x) takes an advisory lock per key " +
        "(pg_try_advisory_lock) and skips a message whose key is locked",
    }
    : {
      supported: false,
      note: "not supported by the installed version: @fedify/postgres " +
        "1.8.7 predates orderingKey (Fedify 2.0) and ignores it",
    };
}

/**
 * A driver made by {@link postgresDriverFor}: its name, and how it varies
 * the `postgres` driver (each optional part defaults to that driver's).
 */
export interface PostgresDriverOptions {
  /** The driver's name. */
  readonly name: string;
  /** Its row in the docs' table of drivers; see {@link Driver.docs}. */
  readonly docs?: Driver["docs"];
  /** What sets it apart, the end of its description; none by default. */
  readonly detail?: string;
  /** Which code it runs (see `packages.ts`); follows the source by default. */
  readonly choice?: PackageChoice;
  /** See {@link Driver.suite}. */
  readonly suite?: SuiteTier;
  /**
   * Whether the ablation gives each dequeue an index, so it no longer reads
   * the whole table; see {@link Driver.dequeueMsPerQueued}.
   */
  readonly indexed?: boolean;
  /** Runs after the package has made the table (an ablation's change). */
  readonly afterPrepare?: (sql: postgres.Sql, table: string) => Promise<void>;
}

/**
 * The `postgres` driver, or a variant: the same table, channel and clean-up.
 *
 * @param options Its name and how it differs from the `postgres` driver.
 */
export function postgresDriverFor(options: PostgresDriverOptions): Driver {
  const { name, detail } = options;
  const choice = options.choice ?? "follow-source";
  return {
    name,
    get description() {
      return `${
        packageLabel("postgres", choice)
      } PostgresMessageQueue (postgres.js)` +
        (detail == null ? "" : `, ${detail}`);
    },
    crossProcess: true,
    removes: "before-handler",
    ...(options.suite == null ? {} : { suite: options.suite }),
    ...(options.docs == null ? {} : { docs: options.docs }),
    get ordering() {
      return postgresOrdering(choice);
    },
    get depth() {
      return followsSource(choice) ? "ready-and-delayed" as const : undefined;
    },
    // 1.8.7 dequeues with ORDER BY created on a table with no index on it.
    get dequeueMsPerQueued() {
      return followsSource(choice) || options.indexed === true
        ? undefined
        : dequeueMsPerQueued("postgres", "1.8.7") ?? undefined;
    },
    get backlogCause() {
      return followsSource(choice) || options.indexed === true
        ? undefined
        : backlogCause("postgres", "1.8.7") ?? undefined;
    },
    service: postgresService,
    queueSpecifier: "@fedify/postgres",
    get packages() {
      return recordedPackages("postgres", choice, ["postgres"]);
    },
    async prepare({ runId, serviceUrl }) {
      if (serviceUrl == null) throw new Error(`${name}: no server URL`);
      const table = `fqb_${runId}`;
      const PostgresMessageQueue = await queueClass(choice);
      const sql = connect(serviceUrl);
      const drop = async () => {
        const again = connect(serviceUrl);
        try {
          await again`DROP TABLE IF EXISTS ${again(table)}`;
        } finally {
          await again.end();
        }
      };
      try {
        // Create the table up front so the sender and the worker do not race.
        await new PostgresMessageQueue(sql, {
          tableName: table,
          channelName: table,
        }).initialize();
        await options.afterPrepare?.(sql, table);
      } catch (error) {
        await sql.end();
        await drop().catch(() => {});
        throw error;
      }
      await sql.end();
      const config: PostgresConfig = { url: serviceUrl, table };
      return { config, cleanup: drop };
    },
    async open(config) {
      const { url, table } = config as PostgresConfig;
      const PostgresMessageQueue = await queueClass(choice);
      const sql = connect(url);
      // See holdListenCallbacks: what the queue drops, the guard holds.
      const guard = new StopGuard(name);
      holdListenCallbacks(sql, guard);
      const queue = adaptLegacyQueue(
        new PostgresMessageQueue(sql, { tableName: table, channelName: table }),
      );
      return {
        queue: {
          ...queue,
          listen(handler, options) {
            guard.watch(options?.signal);
            // 1.8.7's main loop awaits its poll, whose query the abort
            // cancels: listen() then rejects with 57014, as the stop.
            return queue.listen(handler, options).catch((error) => {
              if (!guard.accept(error, "the listener's own poll")) throw error;
            });
          },
        },
        async close() {
          guard.enter("closing the queue");
          await guard.settled();
          await sql.end({ timeout: 5 });
          guard.enter("closed");
        },
      };
    },
  };
}

/**
 * Makes `sql.listen()` hand what its callbacks return, and each
 * `unlisten()`'s promise, to `guard`, which holds them until they settle
 * and handles their rejection; postgres.js ignores what the callbacks
 * return, and the queue drops them.  `PostgresMessageQueue` 1.8.7 leaves
 * three kinds of promise with nobody waiting:
 *
 * - the polls it starts from each notification and on subscribing (these
 *   callbacks): an abort cancels their query (57014, postgres.js's
 *   `Query.cancel`), and a close cuts it off (`CONNECTION_ENDED`);
 * - its `unlisten()` on abort, which a close right after the abort cuts
 *   off (`CONNECTION_DESTROYED`);
 * - the polls it starts with `setTimeout` for a delayed notification, which
 *   no code here can reach: a process that runs the queue catches those
 *   with `StopGuard.catchStrays()`.
 *
 * The first two are held here, and the driver's `close()` waits for them
 * before ending the client.  2.x's queue catches its polls' errors and
 * awaits its `unlisten()`, so for it holding changes nothing but the wait.
 * The queue itself is the package's, unchanged.
 */
function holdListenCallbacks(sql: postgres.Sql, guard: StopGuard): void {
  const listen = sql.listen;
  sql.listen = (channel, onnotify, onlisten) =>
    listen(
      channel,
      (payload) => {
        guard.hold(onnotify(payload), "a poll started by a notification");
      },
      onlisten == null ? undefined : () => {
        guard.hold(onlisten(), "the poll started on subscribing");
      },
    ).then((meta) => ({
      ...meta,
      unlisten: () => guard.hold(meta.unlisten(), "unlistening on abort"),
    })) as ReturnType<typeof listen>;
}

/** Fedify's PostgreSQL queue (a table + LISTEN/NOTIFY). */
export const postgresDriver: Driver = postgresDriverFor({
  name: "postgres",
  docs: {
    queue: "`@fedify/postgres` `PostgresMessageQueue` on postgres.js: the " +
      "source tree's, else 1.8.7",
    notes: "`POSTGRES_URL` or a throwaway PostgreSQL cluster",
  },
  suite: "default",
});

/**
 * `@fedify/postgres` 1.8.7 from the registry whatever the source, for the
 * findings that rest on it and beside the source tree's `postgres`.
 */
export const postgres187Driver: Driver = postgresDriverFor({
  name: "postgres-1.8.7",
  docs: {
    queue: "`@fedify/postgres` 1.8.7 from the registry whatever the source",
    notes: "run only when named: for the findings that rest on 1.8.7, and " +
      "for users still on 1.8",
  },
  choice: "mapped",
  suite: "named",
});
