/**
 * Every built-in driver, end to end: real Fedify, real HTTP, real Redis and
 * PostgreSQL (throwaway servers, or REDIS_URL / POSTGRES_URL when set), in
 * both of Fedify's delivery paths, with exact accounting and no process left
 * behind.
 */
import assert from "node:assert/strict";
import type { SuiteParams } from "../lib/results.ts";
import { runSuite } from "../lib/suite.ts";
import { survivors } from "../lib/testing.ts";
import { builtinDrivers } from "./mod.ts";

function params(recipients: number): SuiteParams {
  return {
    total: 4,
    recipients,
    fanout: "auto",
    rsaBits: 2048,
    timeoutSeconds: 120,
    // Deno KV's cross-process pickup can take a minute; its driver widens
    // this window by itself.
    stallTimeoutSeconds: 30,
  };
}

// Fedify fans out (one message per activity, expanded by a worker) from 5
// inboxes on; below that, the sender enqueues one message per inbox.
for (const [path, recipients] of [["fanout", 6], ["direct", 3]] as const) {
  Deno.test({
    name:
      `every driver delivers exactly once (${path}, ${recipients} recipients)`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const document = await runSuite({
        params: params(recipients),
        drivers: builtinDrivers,
        parallel: [1, 2],
      });
      const ids = document.results.map((r) => r.id);
      assert.deepEqual(ids, [
        "none",
        "in-process",
        "in-process-x2",
        "deno-kv",
        "deno-kv-x2",
        "redis",
        "redis-x2",
        "postgres",
        "postgres-x2",
      ]);
      for (const r of document.results) {
        assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
        assert.equal(r.expected, 4 * recipients, r.id);
        assert.equal(r.delivered, r.expected, r.id);
        assert.equal(r.missing, 0, r.id);
        assert.equal(r.duplicates, 0, r.id);
        assert.equal(r.unexpected, 0, r.id);
        assert.equal(r.sendErrors, 0, r.id);
        assert.ok(r.sendSeconds! > 0 && r.receiveSeconds! >= 0, r.id);
        assert.ok(r.totalSeconds! >= r.receiveSeconds!, r.id);
        const roles = r.processes.map((p) => p.role).sort();
        const queueServer = r.server?.startedByBench ? ["server"] : [];
        const expectedRoles = r.workers > 0
          ? ["inbox", "sender", ...queueServer, "worker"]
          : ["inbox", "sender"];
        assert.deepEqual(roles, expectedRoles.sort(), r.id);
      }
      const pids = document.results.flatMap((r) =>
        r.processes.map((p) => p.pid)
      );
      assert.deepEqual(
        await survivors(pids),
        [],
        "no process outlives the suite",
      );
    },
  });
}
