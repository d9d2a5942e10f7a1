/**
 * An ablation of the `sqlite` driver: `SqliteMessageQueue` from
 * `@fedify/sqlite` (2.3.5 from the Fedify source tree, or 2.0.0-dev from the
 * registry: both dequeue the same way), unchanged, on a `DatabaseSync` that takes an
 * ordering key's lock inside the dequeue's transaction.
 *
 * To dequeue, the package deletes the first ready message whose key is not
 * in its lock table (`DELETE … RETURNING id, message, ordering_key`, in a
 * `BEGIN IMMEDIATE` transaction), commits, `await`s, and only then inserts
 * the message's key into the lock table (`INSERT OR IGNORE`, a transaction of
 * its own).  Between the two, another poll loop (the package starts one per
 * enqueue in the process, besides its timer) or another process can delete
 * the next message of the same key, and both are handled at once.
 * {@link LockInDequeueDatabase} runs that same `INSERT OR IGNORE` right after
 * the `DELETE`, inside the dequeue's transaction; the package's own insert
 * that follows then changes nothing.  Every other statement is the
 * package's, as it is.
 *
 * Not in the default suite: run it beside `sqlite`, e.g.
 * `deno task bench --drivers sqlite,sqlite-lock-in-dequeue --workload cud
 * --ordering-key none,object`.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { Driver } from "../driver.ts";
import { nodeSqlite, sqliteDriverFor } from "./sqlite.ts";

/** The package's dequeue statement; group 1 is the queue's table. */
const DEQUEUE =
  /^DELETE FROM "([A-Za-z_][A-Za-z0-9_]*)"[\s\S]*RETURNING id, message, ordering_key$/;

/** What the package's statement adapter calls on a prepared statement. */
interface Statement {
  run(...params: never[]): unknown;
  get(...params: never[]): unknown;
  all(...params: never[]): unknown;
}

let made: Promise<typeof DatabaseSync> | undefined;

/**
 * A `DatabaseSync` whose dequeue statement (as `SqliteMessageQueue`
 * prepares it) also inserts the dequeued message's ordering key into the
 * queue's lock table, in the same transaction.  It overrides `prepare` and
 * nothing else, and changes no other statement.  Made when first needed,
 * so that loading the drivers needs no `node:sqlite`.
 */
export function lockInDequeueDatabase(): Promise<typeof DatabaseSync> {
  made ??= nodeSqlite().then((DatabaseSync) =>
    class LockInDequeueDatabase extends DatabaseSync {
      /**
       * The statement `sql` as `DatabaseSync` prepares it; for the package's
       * dequeue, one whose `get` also takes the returned key's lock.
       */
      override prepare(sql: string): ReturnType<DatabaseSync["prepare"]> {
        const statement = super.prepare(sql);
        const match = DEQUEUE.exec(sql.trim());
        if (match == null) return statement;
        const lock = super.prepare(
          `INSERT OR IGNORE INTO "${match[1]}_locks" (ordering_key) VALUES (?)`,
        );
        const dequeue: Statement = {
          run: (...params) => statement.run(...params),
          all: (...params) => statement.all(...params),
          get: (...params) => {
            const row = statement.get(...params) as
              | { ordering_key?: string | null }
              | undefined;
            if (row?.ordering_key != null) lock.run(row.ordering_key);
            return row;
          },
        };
        return dequeue as unknown as ReturnType<DatabaseSync["prepare"]>;
      }
    }
  );
  return made;
}

/**
 * Fedify's SQLite queue as the `sqlite` driver runs it, but taking an
 * ordering key's lock in the transaction that dequeues its message.
 */
export const sqliteLockInDequeueDriver: Driver = sqliteDriverFor({
  name: "sqlite-lock-in-dequeue",
  docs: {
    queue: "the same, taking a key's lock in the dequeue's transaction",
    notes: "an ablation (run only when named): the package is untouched, the " +
      "`DatabaseSync` it is given adds the lock to the dequeue statement " +
      "([Finding 10](findings.md#10-sqlite-ordering))",
  },
  detail: "taking a key's lock in the dequeue's transaction (an ablation: " +
    "otherwise as sqlite)",
  Database: lockInDequeueDatabase,
  suite: "named",
});
