/**
 * The `sqlite` driver end to end: a sender and a separate worker process
 * share one SQLite file, in both of Fedify's delivery paths, with exact
 * accounting and no process left behind.
 */
import assert from "node:assert/strict";
import type { SuiteParams } from "../lib/results.ts";
import { runSuite } from "../lib/suite.ts";
import { survivors } from "../lib/testing.ts";
import { sqliteDriver } from "./sqlite.ts";

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

// Fedify fans out (one message per activity, expanded by a worker) from 5
// inboxes on; below that, the sender enqueues one message per inbox.
for (const [path, recipients] of [["fanout", 6], ["direct", 3]] as const) {
  Deno.test({
    name: `sqlite delivers exactly once across processes (${path})`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const document = await runSuite({
        params: params(recipients),
        drivers: [sqliteDriver],
        parallel: [1, 2],
      });
      assert.deepEqual(document.results.map((r) => r.id), [
        "sqlite",
        "sqlite-x2",
      ]);
      for (const r of document.results) {
        assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
        assert.equal(r.expected, 4 * recipients, r.id);
        assert.equal(r.delivered, r.expected, r.id);
        assert.equal(r.duplicates, 0, r.id);
        assert.equal(r.missing, 0, r.id);
        assert.equal(r.sendErrors, 0, r.id);
        assert.deepEqual(
          r.processes.map((p) => p.role).sort(),
          ["inbox", "sender", "worker"],
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

Deno.test("sqlite prepare() makes a private file and cleanup() removes it", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "fqb-sqlite-test-" });
  try {
    const prepared = await sqliteDriver.prepare!({ runId: "rtest1", tempDir });
    const { path } = prepared.config as { path: string };
    assert.ok(path.startsWith(`${tempDir}/`));
    const opened = await sqliteDriver.open!(prepared.config);
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
    assert.ok([...Deno.readDirSync(tempDir)].length > 0);
    await prepared.cleanup();
    assert.deepEqual([...Deno.readDirSync(tempDir)], []);
    await prepared.cleanup(); // Idempotent.
  } finally {
    await Deno.remove(tempDir, { recursive: true });
  }
});
