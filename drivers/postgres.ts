/**
 * `PostgresMessageQueue` from `@fedify/postgres` 1.8.7 on the `postgres`
 * client.  Each run uses its own table and notification channel, dropped
 * afterwards.
 *
 * @module
 */
import { PostgresMessageQueue } from "@fedify/postgres";
import postgres from "postgres";
import type { Driver, Json } from "./driver.ts";
import { postgresService } from "../lib/services/postgres.ts";
import { adaptLegacyQueue } from "./legacy.ts";

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

/** Fedify's PostgreSQL queue (a table + LISTEN/NOTIFY). */
export const postgresDriver: Driver = {
  name: "postgres",
  description: "@fedify/postgres PostgresMessageQueue (postgres.js)",
  crossProcess: true,
  ordering: {
    supported: false,
    note: "not supported by the installed version: @fedify/postgres 1.8.7 " +
      "predates orderingKey (Fedify 2.0) and ignores it",
  },
  service: postgresService,
  queueSpecifier: "@fedify/postgres",
  packages: ["@fedify/postgres", "postgres"],
  async prepare({ runId, serviceUrl }) {
    if (serviceUrl == null) throw new Error("postgres: no server URL");
    const table = `fqb_${runId}`;
    const sql = connect(serviceUrl);
    try {
      // Create the table up front so the sender and the worker do not race.
      await new PostgresMessageQueue(sql, {
        tableName: table,
        channelName: table,
      })
        .initialize();
    } finally {
      await sql.end();
    }
    const config: PostgresConfig = { url: serviceUrl, table };
    return {
      config,
      async cleanup() {
        const sql = connect(serviceUrl);
        try {
          await sql`DROP TABLE IF EXISTS ${sql(table)}`;
        } finally {
          await sql.end();
        }
      },
    };
  },
  open(config) {
    const { url, table } = config as PostgresConfig;
    const sql = connect(url);
    const queue = new PostgresMessageQueue(sql, {
      tableName: table,
      channelName: table,
    });
    return Promise.resolve({
      queue: adaptLegacyQueue(queue),
      close: () => sql.end({ timeout: 5 }),
    });
  },
};
