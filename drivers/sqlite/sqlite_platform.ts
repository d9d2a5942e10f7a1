/**
 * The `#sqlite` import of `@fedify/sqlite`'s source, forwarded.  The
 * package's `src/mq.ts` and `src/kv.ts` import `#sqlite`, which the
 * package's own `deno.json` maps to its `node:sqlite` adapter
 * (`src/sqlite.node.ts`, `src/sqlite.bun.ts` on Bun).  A file loaded from a
 * Fedify source tree resolves bare specifiers through this project's import
 * map, whose `#sqlite` entry points here; this module then loads whatever
 * the package's own map names, which `loadQueuePackage` in `packages.ts`
 * put under {@link SQLITE_PLATFORM_KEY} before importing the package.  So
 * the adapter that runs is the package's own, unchanged.
 *
 * @module
 */
import { SQLITE_PLATFORM_KEY } from "../packages.ts";

const target = (globalThis as Record<symbol, unknown>)[SQLITE_PLATFORM_KEY];
if (typeof target !== "string") {
  throw new Error(
    "#sqlite was imported before loadQueuePackage() named its target; " +
      "load @fedify/sqlite's source through drivers/packages.ts",
  );
}
// deno-lint-ignore no-explicit-any
const platform: Record<string, any> = await import(target);

/** The package's database class (`DatabaseSync` of `node:sqlite`). */
export const PlatformDatabase = platform.PlatformDatabase;
/** The package's adapter of a database. */
export const SqliteDatabase = platform.SqliteDatabase;
/** The package's adapter of a prepared statement. */
export const SqliteStatement = platform.SqliteStatement;
