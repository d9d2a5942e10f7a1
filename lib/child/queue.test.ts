/**
 * Drivers declare whether their queue has `getDepth()` (`Driver.depth`):
 * the declarations of the drivers that need no server hold for the queue
 * they open, and a wrong declaration fails with the fix in its message.
 */
import assert from "node:assert/strict";
import { checkDepthDeclared, openQueue } from "./queue.ts";
import { guardListeners } from "../queue/guarded_queue.ts";
import { StopGuard } from "../system/stop_guard.ts";
import { denoKvSingleDriver } from "../../drivers/deno_kv/deno_kv.ts";
import { inProcessDriver } from "../../drivers/in_process/in_process.ts";
import { sqliteDriver } from "../../drivers/sqlite/sqlite.ts";
import type { Driver } from "../../drivers/driver.ts";

Deno.test({
  name: "getDepth() declarations hold for the queues that need no server",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    for (const driver of [inProcessDriver, sqliteDriver, denoKvSingleDriver]) {
      const tempDir = await Deno.makeTempDir({ prefix: "fqb-depth-test-" });
      try {
        const prepared = await driver.prepare!({ runId: "rdepth", tempDir });
        const opened = await driver.open!(prepared.config);
        try {
          checkDepthDeclared(driver, opened.queue);
          // And the wrong declaration is caught.
          const wrong: Driver = {
            ...driver,
            depth: driver.depth == null ? "queued" : undefined,
          };
          assert.throws(
            () => checkDepthDeclared(wrong, opened.queue),
            /depth/,
            driver.name,
          );
        } finally {
          await opened.close();
          await prepared.cleanup();
        }
      } finally {
        await Deno.remove(tempDir, { recursive: true });
      }
    }
  },
});

Deno.test({
  name: "under ParallelMessageQueue, stopped as a worker stops it, a running " +
    "handler's enqueue outlives the listener's abort (Deno KV closes its " +
    "database on abort)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-settle-test-" });
    try {
      const prepared = await denoKvSingleDriver.prepare!({
        runId: "rsettle",
        tempDir,
      });
      const child = await openQueue({
        driver: denoKvSingleDriver.name,
        driverModules: [],
        config: prepared.config,
        parallelism: 4,
      });
      // As the worker wraps and stops it (lib/child/worker.ts).
      const guard = new StopGuard(denoKvSingleDriver.name);
      const queue = guardListeners(child.queue!, guard);
      const controller = new AbortController();
      const entered = Promise.withResolvers<void>();
      const aborted = new Promise((resolve) =>
        controller.signal.addEventListener("abort", resolve)
      );
      let failure: unknown = null;
      let enqueued = false;
      const listening = queue.listen(async (message) => {
        if (!(message as { hold?: boolean })?.hold) return;
        entered.resolve();
        // As a fanout does: it goes on enqueueing after the stop began.
        await aborted;
        await new Promise((resolve) => setTimeout(resolve, 200));
        try {
          await queue.enqueue({ after: true });
          enqueued = true;
        } catch (error) {
          failure = error;
        }
      }, { signal: controller.signal });
      await queue.enqueue({ hold: true });
      const timer = setTimeout(
        () => entered.reject(new Error("the handler never started")),
        10_000,
      );
      try {
        await entered.promise;
      } finally {
        clearTimeout(timer);
      }
      controller.abort();
      await guard.stop(listening, () => child.close());
      await prepared.cleanup();
      assert.equal(failure, null, String(failure));
      assert.ok(enqueued);
    } finally {
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});
