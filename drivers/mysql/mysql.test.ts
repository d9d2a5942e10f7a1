/**
 * The `mysql` driver's namespace handling and the throwaway MariaDB service
 * (the driver's round trip is in drivers.test.ts with every other driver).
 */
import assert from "node:assert/strict";
import { serversMissing } from "../../lib/testing/servers.ts";
import mysql from "mysql2/promise";
import { mariadbService, probeMariadb } from "./mariadb_server.ts";
import { ServiceManager } from "../../lib/services/mod.ts";
import {
  exists,
  isAlive,
  rejectsWithin,
  roundTrip,
  withSilentServer,
} from "../../lib/testing/mod.ts";
import { mysqlDriver } from "./mysql.ts";

const unavailable = serversMissing(mariadbService) != null;

Deno.test({
  name: "mysql prepare() makes a table and cleanup() drops it",
  ignore: unavailable,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    try {
      const { url } = await services.acquire(mariadbService);
      const prepared = await mysqlDriver.prepare!({
        runId: "rtest1",
        tempDir: "/nonexistent",
        serviceUrl: url,
      });
      const { table } = prepared.config as { table: string };
      const pool = mysql.createPool(url);
      try {
        const tables = async () => {
          const [rows] = await pool.query("SHOW TABLES LIKE ?", [table]);
          return (rows as unknown[]).length;
        };
        assert.equal(await tables(), 1);
        assert.deepEqual(await roundTrip(mysqlDriver, prepared.config), [
          { hello: "world" },
        ]);
        await prepared.cleanup();
        assert.equal(await tables(), 0);
      } finally {
        await pool.end();
      }
    } finally {
      await services.stopAll();
    }
  },
});

Deno.test({
  name: "a throwaway MariaDB starts, works, and stops without traces",
  // Only a server the bench starts itself can be checked for traces.
  ignore: unavailable || Deno.env.get("MYSQL_URL") != null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    try {
      const started = performance.now();
      const server = await services.acquire(mariadbService);
      const startMs = performance.now() - started;
      assert.ok(server.startedByBench);
      assert.match(server.url, /^mysql:\/\/root@127\.0\.0\.1:\d+\/fqb$/);
      assert.notEqual(server.url, "mysql://root@127.0.0.1:3306/fqb");
      assert.match(server.version, /^\d+\.\d+/);
      assert.ok(server.pid != null && isAlive(server.pid));
      const [dir] = services.tempDirs();
      assert.ok(await exists(dir));

      const connection = await mysql.createConnection(server.url);
      try {
        await connection.query(
          "CREATE TABLE t (id INT PRIMARY KEY, body TEXT)",
        );
        await connection.query(
          "INSERT INTO t VALUES (1, 'hello'), (2, 'world')",
        );
        const [rows] = await connection.query(
          "SELECT body FROM t ORDER BY id",
        );
        assert.deepEqual(
          (rows as { body: string }[]).map((row) => row.body),
          ["hello", "world"],
        );
        // A starting mariadbd deletes every `#sql*` file in its tmpdir, so
        // servers sharing /tmp delete each other's temporary tables.
        const [vars] = await connection.query("SELECT @@tmpdir AS tmpdir");
        const [{ tmpdir }] = vars as { tmpdir: string }[];
        assert.ok(
          tmpdir.startsWith(`${dir}/`),
          `tmpdir ${tmpdir} not in ${dir}`,
        );
      } finally {
        await connection.end();
      }

      const stopping = performance.now();
      await services.stopAll();
      const stopMs = performance.now() - stopping;
      assert.ok(!isAlive(server.pid!), `mariadbd ${server.pid} still alive`);
      assert.ok(!(await exists(dir)), `${dir} still exists`);
      assert.deepEqual(services.startedPids(), []);
      console.log(
        `MariaDB ${server.version}: start ${startMs.toFixed(0)} ms, ` +
          `stop ${stopMs.toFixed(0)} ms`,
      );
    } finally {
      await services.stopAll();
    }
  },
});

Deno.test("probeMariadb() fails fast without the password", async () => {
  const error = await rejectsWithin(
    probeMariadb("mysql://u:secret@127.0.0.1:1/x", 2000),
    2500,
  );
  assert.match(
    error.message,
    /^cannot reach MariaDB at mysql:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
  );
  assert.match(error.message, /ECONNREFUSED/);
  assert.ok(!error.message.includes("secret"), error.message);
});

Deno.test("probeMariadb() gives up on a silent server at the timeout", async () => {
  // Accepts connections and never answers.
  await withSilentServer(async (port) => {
    const error = await rejectsWithin(
      probeMariadb(`mysql://u:secret@127.0.0.1:${port}/x`, 700),
      1500,
    );
    assert.match(error.message, /^cannot reach MariaDB/);
    assert.ok(!error.message.includes("secret"), error.message);
  });
});
