/**
 * The `sqlite` driver's namespace handling (its round trip is in
 * drivers.test.ts with every other driver).
 */
import assert from "node:assert/strict";
import { roundTrip } from "../../lib/testing/mod.ts";
import { sqliteDriver } from "./sqlite.ts";

Deno.test("sqlite prepare() makes a private file and cleanup() removes it", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "fqb-sqlite-test-" });
  try {
    const prepared = await sqliteDriver.prepare!({ runId: "rtest1", tempDir });
    const { path } = prepared.config as { path: string };
    assert.ok(path.startsWith(`${tempDir}/`));
    assert.deepEqual(await roundTrip(sqliteDriver, prepared.config), [
      { hello: "world" },
    ]);
    assert.ok([...Deno.readDirSync(tempDir)].length > 0);
    await prepared.cleanup();
    assert.deepEqual([...Deno.readDirSync(tempDir)], []);
    await prepared.cleanup(); // Idempotent.
  } finally {
    await Deno.remove(tempDir, { recursive: true });
  }
});
