/**
 * Drivers declare whether their queue has `getDepth()` (`Driver.depth`):
 * the declarations of the drivers that need no server hold for the queue
 * they open, and a wrong declaration fails with the fix in its message.
 */
import assert from "node:assert/strict";
import { checkDepthDeclared } from "./queue.ts";
import { denoKvSingleDriver } from "../../drivers/deno_kv.ts";
import { inProcessDriver } from "../../drivers/in_process.ts";
import { sqliteDriver } from "../../drivers/sqlite.ts";
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
