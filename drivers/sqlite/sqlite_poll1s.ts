/**
 * An ablation of the `sqlite` driver: `SqliteMessageQueue` from
 * `@fedify/sqlite`, unchanged, opened with `pollInterval: { seconds: 1 }`
 * instead of the package's default of 5 seconds.  The queue tells only
 * listeners in its own process about a new message; the worker process
 * finds what the sender enqueued at its next poll, so the interval bounds
 * how late a delivery starts.  Nothing else differs.
 *
 * Not in the default suite: run it beside `sqlite`, e.g.
 * `deno task bench --drivers sqlite,sqlite-poll1s --rate 2 --parallel 1`.
 *
 * @module
 */
import type { Driver } from "../driver.ts";
import { sqliteDriverFor } from "./sqlite.ts";

/** The poll interval this ablation sets, in seconds. */
export const POLL_SECONDS = 1;

/** Fedify's SQLite queue polling every second instead of every five. */
export const sqlitePoll1sDriver: Driver = sqliteDriverFor({
  name: "sqlite-poll1s",
  docs: {
    queue: "the same, polling every second instead of every 5 s",
    notes: "an ablation (run only when named): only `pollInterval` differs " +
      "(Finding 8)",
  },
  detail: `polling every ${POLL_SECONDS} s instead of 5 (an ablation: ` +
    "otherwise as sqlite)",
  pollSeconds: POLL_SECONDS,
  suite: "named",
});
