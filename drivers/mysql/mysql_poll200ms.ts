/**
 * An ablation of the `mysql` driver: `MysqlMessageQueue` from `@fedify/mysql`
 * 2.3.6, unchanged, opened with `pollInterval: { milliseconds: 200 }`
 * instead of the package's default of 1 second.  MySQL and MariaDB have no
 * `LISTEN`/`NOTIFY`, so a worker finds what the sender enqueued at its next
 * poll; the interval bounds how late a delivery starts.  Nothing else
 * differs.
 *
 * Not in the default suite: run it beside `mysql`, e.g.
 * `deno task bench --drivers mysql,mysql-poll200ms --rate 2 --parallel 1`.
 *
 * @module
 */
import type { Driver } from "../driver.ts";
import { mysqlDriver, openMysql } from "./mysql.ts";

/** The poll interval this ablation sets, in milliseconds. */
export const POLL_MILLISECONDS = 200;

/** Fedify's MySQL queue polling every 200 ms instead of every second. */
export const mysqlPoll200msDriver: Driver = {
  ...mysqlDriver,
  name: "mysql-poll200ms",
  docs: {
    queue: "the same, polling every 200 ms instead of every second",
    notes: "an ablation (run only when named): only `pollInterval` differs " +
      "(Finding 8)",
  },
  suite: "named",
  description: `${mysqlDriver.description}, polling every ` +
    `${POLL_MILLISECONDS} ms instead of 1 s (an ablation: otherwise as mysql)`,
  open(config) {
    return Promise.resolve(openMysql(config, POLL_MILLISECONDS));
  },
};
