/**
 * SQLite (`@fedify/sqlite`): the driver, the poll and lock ablations, and
 * the platform module `deno.json` maps under `#sqlite`
 * (`sqlite_platform.ts`).
 *
 * @module
 */
export { sqliteDriver } from "./sqlite.ts";
export { sqlitePoll1sDriver } from "./sqlite_poll1s.ts";
export { sqliteLockInDequeueDriver } from "./sqlite_lock_in_dequeue.ts";
