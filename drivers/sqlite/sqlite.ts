/**
 * `SqliteMessageQueue` from `@fedify/sqlite` on `node:sqlite`'s
 * `DatabaseSync` (on Bun, `bun:sqlite`'s `Database`, which the package's
 * Bun adapter takes): the Fedify source tree's (2.3.5) when one is given, the
 * registry's 2.0.0-dev.279 otherwise.  Each run gets its own database file in the run's temporary
 * folder; the sender and the worker processes open that same file (WAL
 * journal), so the queue is shared across processes.
 *
 * The queue announces new messages only to listeners in the same process;
 * another process finds them at its next poll, every 5 seconds by default,
 * and then drains everything that is ready.
 *
 * (`@fedify/sqlite` 1.8.7 has no message queue, hence the 2.0 pre-release.)
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { Driver, Json, OpenedQueue, SuiteTier } from "../driver.ts";
import type { Availability } from "../../lib/services/service_types.ts";
import {
  followsSource,
  loadQueuePackage,
  packageLabel,
  recordedPackages,
} from "../packages.ts";
import { appRuntime } from "../../lib/runtime/mod.ts";

/** What the sender and worker processes need to open the queue. */
interface SqliteConfig {
  readonly path: string;
  readonly table: string;
  readonly [key: string]: Json;
}

/** The package's default poll interval, in seconds (left as it is). */
const POLL_INTERVAL_SECONDS = 5;

/**
 * How long a connection waits for another process's write lock before
 * `SQLITE_BUSY`.  The package retries busy errors itself, but only five
 * times (about 3 s in all) and then fails the send or ends the listener; a
 * busy timeout makes SQLite wait instead.  The transactions here last
 * milliseconds, so the wait is short in practice.
 */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Why an ablation with its own database class does not run the app on Bun:
 * the class is a subclass of `node:sqlite`'s `DatabaseSync`, which Bun does
 * not implement (the plain driver opens `bun:sqlite` there instead).
 */
export const SQLITE_RUNTIMES_NOTE = "its database class is a subclass of " +
  "node:sqlite's DatabaseSync, which Bun lacks";

/** `node:sqlite`'s `DatabaseSync`, loaded when first needed. */
export async function nodeSqlite(): Promise<typeof DatabaseSync> {
  return (await import("node:sqlite")).DatabaseSync;
}

/** The files SQLite keeps for a database in WAL mode. */
function databaseFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/**
 * A driver made by {@link sqliteDriverFor}: its name, and how it varies the
 * `sqlite` driver for an ablation (each optional part defaults to that
 * driver's).
 */
export interface SqliteDriverOptions {
  /** The driver's name. */
  readonly name: string;
  /** Its row in the docs' table of drivers; see {@link Driver.docs}. */
  readonly docs?: Driver["docs"];
  /** What sets it apart, the end of its description; none by default. */
  readonly detail?: string;
  /** The poll interval in seconds; the package's default (5) when absent. */
  readonly pollSeconds?: number;
  /**
   * The database class the queue gets: `DatabaseSync` or a subclass, made
   * when first needed (so that loading the drivers needs no `node:sqlite`).
   */
  readonly Database?: () => Promise<typeof DatabaseSync>;
  /** See {@link Driver.runtimes}. */
  readonly runtimes?: Driver["runtimes"];
  /** See {@link Driver.suite}. */
  readonly suite?: SuiteTier;
}

/**
 * The `sqlite` driver, or an ablation of it: the same file, table and
 * clean-up, with `options` applied to the queue.
 *
 * @param options Its name and how it differs from the `sqlite` driver.
 */
export function sqliteDriverFor(options: SqliteDriverOptions): Driver {
  const { name, detail } = options;
  return {
    name,
    get description() {
      return `${
        packageLabel("sqlite")
      } SqliteMessageQueue (node:sqlite, one file shared by processes)` +
        (detail == null ? "" : `, ${detail}`);
    },
    crossProcess: true,
    removes: "before-handler",
    ...(options.suite == null ? {} : { suite: options.suite }),
    ...(options.docs == null ? {} : { docs: options.docs }),
    ...(options.Database == null && options.runtimes == null ? {} : {
      runtimes: options.runtimes ?? ["deno", "node"],
      runtimesNote: SQLITE_RUNTIMES_NOTE,
    }),
    quietPeriodSeconds: options.pollSeconds ?? POLL_INTERVAL_SECONDS,
    get ordering() {
      return {
        supported: true,
        note: `SqliteMessageQueue (${packageLabel("sqlite")}) skips keys ` +
          "listed in its lock table while one of their messages is handled",
      };
    },
    queueSpecifier: "@fedify/sqlite",
    get packages() {
      return recordedPackages("sqlite", "follow-source", []);
    },
    get depth() {
      // 2.0.0-dev.279 has no getDepth(); 2.3's counts ready and delayed.
      return followsSource("follow-source")
        ? "ready-and-delayed" as const
        : undefined;
    },
    async availability(): Promise<Availability> {
      const DatabaseSync = await nodeSqlite().catch(() => undefined);
      return typeof DatabaseSync === "function" ? { available: true } : {
        available: false,
        reason: "node:sqlite has no DatabaseSync here; use Deno 2.2 or later",
      };
    },
    async prepare({ runId, tempDir }) {
      const path = `${tempDir}/queue-${runId}.sqlite`;
      const table = `fqb_${runId}`;
      const { module } = await loadQueuePackage(
        "sqlite",
        () => import("@fedify/sqlite"),
      );
      const DatabaseSync = await nodeSqlite();
      const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
      // `initialize()` switches the file to WAL (a lasting property of the
      // file) and creates the tables, so the children need not race to do
      // it.  Disposing the queue closes the database.
      const queue = new module.SqliteMessageQueue(db, { tableName: table });
      try {
        await queue.initialize();
      } finally {
        queue[Symbol.dispose]();
      }
      const config: SqliteConfig = { path, table };
      return {
        config,
        async cleanup() {
          for (const file of databaseFiles(path)) {
            await Deno.remove(file).catch((error) => {
              if (!(error instanceof Deno.errors.NotFound)) throw error;
            });
          }
        },
      };
    },
    open(config) {
      return openSqlite(config, options.pollSeconds, options.Database);
    },
  };
}

/**
 * The database the package's adapter for the app's runtime takes, with the
 * busy timeout: `node:sqlite`'s `DatabaseSync` (or the subclass
 * `makeDatabase` gives) on Deno and Node.js; on Bun, `bun:sqlite`'s
 * `Database`, as a Bun app passes it, its busy timeout set by the same
 * `PRAGMA` that `DatabaseSync`'s `timeout` option sets.
 */
async function openDatabase(
  path: string,
  makeDatabase: () => Promise<typeof DatabaseSync>,
): Promise<DatabaseSync> {
  if (appRuntime.name !== "bun") {
    const Database = await makeDatabase();
    return new Database(path, { timeout: BUSY_TIMEOUT_MS });
  }
  // A variable, so that Deno's type check does not look for the module.
  const specifier = "bun:sqlite";
  const { Database } = await import(specifier);
  const db = new Database(path);
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // The package's Bun adapter takes it where the node:sqlite one takes a
  // DatabaseSync; the types follow the tree Deno checks.
  return db as DatabaseSync;
}

/** Fedify's SQLite queue (one table, polled; WAL for several processes). */
export const sqliteDriver: Driver = sqliteDriverFor({
  name: "sqlite",
  docs: {
    queue: "`@fedify/sqlite` `SqliteMessageQueue` on `node:sqlite`: the " +
      "source tree's, else 2.0.0-dev.279",
    notes: "a WAL file shared by sender and worker (1.8.7 has no queue)",
  },
});

/**
 * Opens the queue a `prepare` made, with the package's default poll
 * interval unless `pollSeconds` is given (for the `sqlite-poll1s`
 * ablation), on a `DatabaseSync` or the subclass given as `Database` (for
 * the `sqlite-lock-in-dequeue` ablation).
 */
export async function openSqlite(
  config: Json,
  pollSeconds?: number,
  makeDatabase: () => Promise<typeof DatabaseSync> = nodeSqlite,
): Promise<OpenedQueue> {
  const { path, table } = config as SqliteConfig;
  const db = await openDatabase(path, makeDatabase);
  const { module } = await loadQueuePackage(
    "sqlite",
    () => import("@fedify/sqlite"),
  );
  const queue = new module.SqliteMessageQueue(db, {
    tableName: table,
    initialized: true,
    ...(pollSeconds == null ? {} : { pollInterval: { seconds: pollSeconds } }),
  });
  return {
    queue,
    close: () => Promise.resolve(queue[Symbol.dispose]()),
  };
}
