/**
 * Deno KV's queue (`Deno.Kv.enqueue` / `listenQueue`) through
 * `DenoKvMessageQueue` of `@fedify/denokv`, which is not on the npm registry:
 * `deno.json` maps the name to a stand-in (`standins/denokv.ts`) that
 * behaves as upstream 2.3.6 does.  Each run uses its own SQLite file in the
 * run's temporary folder.
 *
 * Deno KV delivers at least once, and in the cross-process topology a
 * message can be handled twice (see the stand-in's documentation), so the
 * driver says `delivery: "at-least-once"`.
 *
 * Two topologies, because on a local Deno KV they behave very differently:
 * `deno-kv` consumes the queue in a separate worker process, as a deployment
 * would, and that worker notices what the sender enqueued only at Deno KV's
 * own poll, about once a minute; `deno-kv-single` lets the sender process
 * consume its own queue, where new messages are picked up at once.
 *
 * @module
 */
import { join } from "node:path";
import type { Driver, Json } from "./driver.ts";
import { DenoKvMessageQueue } from "@fedify/denokv";

/** What the sender and worker processes need to open the queue. */
export interface DenoKvConfig {
  readonly path: string;
  readonly [key: string]: Json;
}

function denoKvDriver_(
  name: string,
  crossProcess: boolean,
  description: string,
): Driver {
  return {
    name,
    description,
    crossProcess,
    delivery: "at-least-once",
    ordering: {
      supported: true,
      note: "the @fedify/denokv stand-in locks each key in the database; a " +
        "blocked message waits, polling the lock every 100 ms",
    },
    queueSpecifier: "@fedify/denokv",
    // A worker in another process sees the sender's messages only at Deno
    // KV's poll, about every 60 s; and in either form, what a killed
    // consumer held comes back only at Deno KV's clean-up, also about every
    // 60 s (`--scenario crash` measured a 58-s gap before the last two
    // redeliveries of deno-kv-single): neither is a stall.
    quietPeriodSeconds: 60,
    availability() {
      return Promise.resolve(
        typeof Deno.openKv === "function" ? { available: true } : {
          available: false,
          reason: "Deno KV is disabled; run with --unstable-kv",
        },
      );
    },
    async prepare({ tempDir }) {
      const config: DenoKvConfig = { path: join(tempDir, "queue.sqlite3") };
      // Create the database here, once, before the sender and the worker
      // start together: two processes creating a fresh file's schema at the
      // same moment can fail with "database is locked" (seen once in a
      // deno-kv ×16 run), a race of start-up, not of the queue under load.
      (await Deno.openKv(config.path)).close();
      return {
        config,
        async cleanup() {
          for (const suffix of ["", "-wal", "-shm"]) {
            await Deno.remove(config.path + suffix).catch(() => {});
          }
        },
      };
    },
    async open(config) {
      const { path } = config as DenoKvConfig;
      const queue = new DenoKvMessageQueue(await Deno.openKv(path));
      return {
        queue,
        // Upstream's queue closes its Deno.Kv when disposed (synchronously);
        // a listener's abort has usually closed it already.
        close: () => Promise.resolve(queue[Symbol.dispose]()),
      };
    },
  };
}

/** Deno KV consumed by a separate worker process. */
export const denoKvDriver: Driver = denoKvDriver_(
  "deno-kv",
  true,
  "Deno KV queue (@fedify/denokv 2.3.6 stand-in), separate worker process",
);

/** Deno KV consumed by the sender process itself. */
export const denoKvSingleDriver: Driver = denoKvDriver_(
  "deno-kv-single",
  false,
  "Deno KV queue (@fedify/denokv 2.3.6 stand-in), consumed by the sender process",
);
