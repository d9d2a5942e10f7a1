/**
 * The `mysql` driver end to end against a throwaway MariaDB (or `MYSQL_URL`
 * when set), in both of Fedify's delivery paths, with exact accounting and no
 * process left behind; and the throwaway MariaDB service itself.
 */
import assert from "node:assert/strict";
import mysql from "mysql2/promise";
import type { SuiteParams } from "../lib/results.ts";
import { mariadbService, probeMariadb } from "../lib/services/mariadb.ts";
import { ServiceManager } from "../lib/services/mod.ts";
import { runSuite } from "../lib/suite.ts";
import { isAlive, survivors } from "../lib/testing.ts";
import { mysqlDriver } from "./mysql.ts";

const unavailable = !new ServiceManager().availability(mariadbService)
  .available;

function params(recipients: number): SuiteParams {
  return {
    total: 4,
    recipients,
    fanout: "auto",
    rsaBits: 2048,
    timeoutSeconds: 120,
    stallTimeoutSeconds: 30,
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

// Fedify fans out (one message per activity, expanded by a worker) from 5
// inboxes on; below that, the sender enqueues one message per inbox.
for (const [path, recipients] of [["fanout", 6], ["direct", 3]] as const) {
  Deno.test({
    name: `mysql delivers exactly once across processes (${path})`,
    ignore: unavailable,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const document = await runSuite({
        params: params(recipients),
        drivers: [mysqlDriver],
        parallel: [1, 2],
      });
      assert.deepEqual(document.results.map((r) => r.id), [
        "mysql",
        "mysql-x2",
      ]);
      for (const r of document.results) {
        assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
        assert.equal(r.expected, 4 * recipients, r.id);
        assert.equal(r.delivered, r.expected, r.id);
        assert.equal(r.duplicates, 0, r.id);
        assert.equal(r.missing, 0, r.id);
        assert.equal(r.sendErrors, 0, r.id);
        assert.equal(r.server?.name, "mariadb", r.id);
        const server = r.server?.startedByBench ? ["server"] : [];
        assert.deepEqual(
          r.processes.map((p) => p.role).sort(),
          ["inbox", "sender", ...server, "worker"].sort(),
          r.id,
        );
      }
      const pids = document.results.flatMap((r) =>
        r.processes.map((p) => p.pid)
      );
      assert.deepEqual(await survivors(pids), [], "no process outlives it");
    },
  });
}

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
        const opened = await mysqlDriver.open!(prepared.config);
        const received: unknown[] = [];
        const controller = new AbortController();
        const listening = opened.queue.listen((message) => {
          received.push(message);
          controller.abort();
        }, { signal: controller.signal });
        await opened.queue.enqueue({ hello: "world" });
        await listening;
        await opened.close();
        assert.deepEqual(received, [{ hello: "world" }]);
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
  const started = performance.now();
  const error = await probeMariadb("mysql://u:secret@127.0.0.1:1/x", 2000)
    .then(() => assert.fail("expected a rejection"), (error: unknown) => error);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 2500, `took ${elapsed.toFixed(0)} ms`);
  assert.ok(error instanceof Error);
  assert.match(
    error.message,
    /^cannot reach MariaDB at mysql:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
  );
  assert.match(error.message, /ECONNREFUSED/);
  assert.ok(!error.message.includes("secret"), error.message);
});

Deno.test("probeMariadb() gives up on a silent server at the timeout", async () => {
  // Accepts connections and never answers.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) conns.push(conn);
    } catch {
      // Listener closed.
    }
  })();
  try {
    const started = performance.now();
    const error = await probeMariadb(
      `mysql://u:secret@127.0.0.1:${port}/x`,
      700,
    ).then(() => assert.fail("expected a rejection"), (e: unknown) => e);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1500, `took ${elapsed.toFixed(0)} ms`);
    assert.ok(error instanceof Error);
    assert.match(error.message, /^cannot reach MariaDB/);
    assert.ok(!error.message.includes("secret"), error.message);
  } finally {
    listener.close();
    await accepting;
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Closed by the client.
      }
    }
  }
});
