/**
 * MariaDB's throwaway server crashed: it keeps the committed rows and drops
 * the uncommitted ones.
 */
import assert from "node:assert/strict";
import mysql from "mysql2/promise";
import { mariadbService } from "./mod.ts";
import { canStart, crashAndCheck } from "../../lib/testing/crash_fixtures.ts";

Deno.test({
  name: "crash(): MariaDB keeps committed rows, drops uncommitted ones",
  ignore: !canStart(mariadbService),
  async fn() {
    let open: mysql.Connection | undefined;
    try {
      await crashAndCheck("mariadb", mariadbService, async (url) => {
        const connection = await mysql.createConnection(url);
        try {
          await connection.query(
            "CREATE TABLE t (id INT PRIMARY KEY, body TEXT) ENGINE=InnoDB",
          );
          await connection.query("INSERT INTO t VALUES (1, 'committed')");
        } finally {
          await connection.end();
        }
        // A transaction left open across the crash.
        open = await mysql.createConnection(url);
        open.on("error", () => {});
        await open.beginTransaction();
        await open.query("INSERT INTO t VALUES (2, 'uncommitted')");
      }, async (url) => {
        const connection = await mysql.createConnection(url);
        try {
          const [rows] = await connection.query(
            "SELECT id, body FROM t ORDER BY id",
          );
          assert.deepEqual(
            (rows as { id: number; body: string }[]).map((r) => [r.id, r.body]),
            [[1, "committed"]],
          );
        } finally {
          await connection.end();
        }
      });
    } finally {
      open?.destroy();
    }
  },
});
