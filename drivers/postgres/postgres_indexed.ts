/**
 * An ablation of the `postgres-1.8.7` driver: `PostgresMessageQueue` from
 * `@fedify/postgres` 1.8.7, unchanged, on a queue table that also has the
 * index on `created` which Fedify 2.x's `PostgresMessageQueue` creates when
 * it initializes its table.
 *
 * The 1.8.7 queue dequeues with `… ORDER BY created LIMIT 1` on a table with
 * no index on `created`, so every dequeue scans the whole table.  This
 * driver prepares the table exactly as `postgres` does (the package's own
 * `initialize()`), then adds the index, named and defined as 2.x names and
 * defines it.  Nothing else differs.
 *
 * Not in the default suite: run it beside `postgres-1.8.7` and `postgres`
 * with `deno task bench --drivers postgres-1.8.7,postgres-indexed,postgres`.
 *
 * @module
 */
import type { Driver } from "../driver.ts";
import { errorMessage } from "../../lib/results/error_message.ts";
import { postgresDriverFor } from "./postgres.ts";

/**
 * The name Fedify 2.x gives the index on a queue table's `created` column:
 * `idx_fedify_mq_created_` and eight hex digits of a 32-bit polynomial hash
 * (base 31) of the table's name, short enough for PostgreSQL's 63-byte
 * identifiers whatever the table's name.
 *
 * @param table The queue table's name.
 */
export function createdIndexName(table: string): string {
  let hash = 0;
  for (let i = 0; i < table.length; i++) {
    hash = (Math.imul(hash, 31) + table.charCodeAt(i)) >>> 0;
  }
  return `idx_fedify_mq_created_${hash.toString(16).padStart(8, "0")}`;
}

/**
 * `@fedify/postgres` 1.8.7 from the registry (whatever the source), plus
 * Fedify 2.x's index on the queue table's `created` column: beside
 * `postgres-1.8.7` it isolates the index; beside `postgres` run on a Fedify
 * source tree, it compares the hand-made index with the real 2.x package.
 */
export const postgresIndexedDriver: Driver = postgresDriverFor({
  name: "postgres-indexed",
  docs: {
    queue: "`@fedify/postgres` 1.8.7 plus the index on `created` that Fedify " +
      "2.x creates",
    notes: "an ablation (run only when named): beside `postgres-1.8.7` it " +
      "isolates the index; beside `postgres` on a source tree, it compares " +
      "the hand-made index with the real 2.x package",
  },
  detail: "plus Fedify 2.x's index on the queue table's created column (an " +
    "ablation: otherwise as postgres-1.8.7)",
  choice: "mapped",
  suite: "named",
  indexed: true,
  async afterPrepare(sql, table) {
    try {
      await sql`
        CREATE INDEX IF NOT EXISTS ${sql(createdIndexName(table))}
        ON ${sql(table)} (created)
      `;
    } catch (error) {
      throw new Error(
        `postgres-indexed: cannot create the index on ${table}.created ` +
          `(${errorMessage(error)}); the database user needs the right ` +
          "to create indexes on the tables it creates",
        { cause: error },
      );
    }
  },
});
