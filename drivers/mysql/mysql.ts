/**
 * `MysqlMessageQueue` from `@fedify/mysql` 2.3.6 on a `mysql2` pool, against
 * MariaDB or MySQL.  Each run uses its own table, dropped afterwards.
 *
 * MySQL and MariaDB have no `LISTEN`/`NOTIFY`: every listener polls the
 * table, once a second by default, and then takes ready messages one at a
 * time (`SELECT … FOR UPDATE SKIP LOCKED` + `DELETE`) until none is left.
 *
 * @module
 */
import { MysqlMessageQueue } from "@fedify/mysql";
import mysql from "mysql2/promise";
import type { Driver, Json, OpenedQueue } from "../driver.ts";
import { mariadbService } from "./mariadb_server.ts";

/** What the sender and worker processes need to open the queue. */
interface MysqlConfig {
  readonly url: string;
  readonly table: string;
  readonly [key: string]: Json;
}

/** The package's default poll interval, in seconds (left as it is). */
const POLL_INTERVAL_SECONDS = 1;

/** Connections per process: a listener uses one, concurrent sends more. */
const POOL_SIZE = 8;

function connect(url: string): mysql.Pool {
  return mysql.createPool({ uri: url, connectionLimit: POOL_SIZE });
}

/** Fedify's MySQL/MariaDB queue (one InnoDB table, polled). */
export const mysqlDriver: Driver = {
  name: "mysql",
  docs: {
    queue: "`@fedify/mysql` 2.3.6 `MysqlMessageQueue` on mysql2",
    notes: "`MYSQL_URL` or a throwaway MariaDB",
  },
  description: "@fedify/mysql MysqlMessageQueue (mysql2; MariaDB or MySQL)",
  crossProcess: true,
  removes: "before-handler",
  quietPeriodSeconds: POLL_INTERVAL_SECONDS,
  ordering: {
    supported: true,
    note: "MysqlMessageQueue (@fedify/mysql 2.3.6) takes GET_LOCK per key " +
      "and handles the key's oldest ready message under it",
  },
  service: mariadbService,
  queueSpecifier: "@fedify/mysql",
  packages: ["@fedify/mysql", "mysql2"],
  depth: "ready-and-delayed",
  async prepare({ runId, serviceUrl }) {
    if (serviceUrl == null) throw new Error("mysql: no server URL");
    // At most 46 characters (the package's limit); runIds are about 17.
    const table = `fqb_${runId}`;
    const pool = connect(serviceUrl);
    try {
      // Create the table up front so the sender and the worker do not race.
      await new MysqlMessageQueue(pool, { tableName: table }).initialize();
    } finally {
      await pool.end();
    }
    const config: MysqlConfig = { url: serviceUrl, table };
    return {
      config,
      async cleanup() {
        const pool = connect(serviceUrl);
        try {
          await new MysqlMessageQueue(pool, {
            tableName: table,
            initialized: true,
          }).drop();
        } finally {
          await pool.end();
        }
      },
    };
  },
  open(config) {
    return Promise.resolve(openMysql(config));
  },
};

/**
 * Opens the queue a `prepare` made, with the package's default poll
 * interval unless `pollMilliseconds` is given (for the `mysql-poll200ms`
 * ablation).
 */
export function openMysql(
  config: Json,
  pollMilliseconds?: number,
): OpenedQueue {
  const { url, table } = config as MysqlConfig;
  const pool = connect(url);
  const queue = new MysqlMessageQueue(pool, {
    tableName: table,
    initialized: true,
    ...(pollMilliseconds == null
      ? {}
      : { pollInterval: { milliseconds: pollMilliseconds } }),
  });
  return { queue, close: () => pool.end() };
}
