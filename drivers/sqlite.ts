/**
 * `SqliteMessageQueue` from `@fedify/sqlite` 2.0.0-dev.279 on `node:sqlite`'s
 * `DatabaseSync`.  Each run gets its own database file in the run's temporary
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
import { SqliteMessageQueue } from "@fedify/sqlite";
import { DatabaseSync } from "node:sqlite";
import type { Availability, Driver, Json, OpenedQueue } from "./driver.ts";

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

/** The files SQLite keeps for a database in WAL mode. */
function databaseFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/** Fedify's SQLite queue (one table, polled; WAL for several processes). */
export const sqliteDriver: Driver = {
  name: "sqlite",
  description:
    "@fedify/sqlite SqliteMessageQueue (node:sqlite, one file shared by processes)",
  crossProcess: true,
  quietPeriodSeconds: POLL_INTERVAL_SECONDS,
  ordering: {
    supported: true,
    note: "SqliteMessageQueue (@fedify/sqlite 2.0.0-dev) skips keys listed " +
      "in its lock table while one of their messages is handled",
  },
  queueSpecifier: "@fedify/sqlite",
  packages: ["@fedify/sqlite"],
  availability(): Promise<Availability> {
    return Promise.resolve(
      typeof DatabaseSync === "function" ? { available: true } : {
        available: false,
        reason: "node:sqlite has no DatabaseSync here; use Deno 2.2 or later",
      },
    );
  },
  prepare({ runId, tempDir }) {
    const path = `${tempDir}/queue-${runId}.sqlite`;
    const table = `fqb_${runId}`;
    const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
    // `initialize()` switches the file to WAL (a lasting property of the
    // file) and creates the tables, so the children need not race to do it.
    // Disposing the queue closes the database.
    const queue = new SqliteMessageQueue(db, { tableName: table });
    try {
      queue.initialize();
    } finally {
      queue[Symbol.dispose]();
    }
    const config: SqliteConfig = { path, table };
    return Promise.resolve({
      config,
      async cleanup() {
        for (const file of databaseFiles(path)) {
          await Deno.remove(file).catch((error) => {
            if (!(error instanceof Deno.errors.NotFound)) throw error;
          });
        }
      },
    });
  },
  open(config) {
    return Promise.resolve(openSqlite(config));
  },
};

/**
 * Opens the queue a `prepare` made, with the package's default poll
 * interval unless `pollSeconds` is given (for the `sqlite-poll1s`
 * ablation), on a `DatabaseSync` or the subclass given as `Database` (for
 * the `sqlite-lock-in-dequeue` ablation).
 */
export function openSqlite(
  config: Json,
  pollSeconds?: number,
  Database: typeof DatabaseSync = DatabaseSync,
): OpenedQueue {
  const { path, table } = config as SqliteConfig;
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  const queue = new SqliteMessageQueue(db, {
    tableName: table,
    initialized: true,
    ...(pollSeconds == null ? {} : { pollInterval: { seconds: pollSeconds } }),
  });
  return {
    queue,
    close: () => Promise.resolve(queue[Symbol.dispose]()),
  };
}
