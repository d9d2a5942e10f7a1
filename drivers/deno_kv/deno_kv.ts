/**
 * Deno KV's queue (`Deno.Kv.enqueue` / `listenQueue`) through
 * `DenoKvMessageQueue` of `@fedify/denokv`: the Fedify source tree's when
 * one is given (`--fedify-source`); otherwise, as the package is not on the
 * npm registry, the stand-in `deno.json` maps the name to
 * (`denokv_standin.ts`), which `deno-kv-standin` runs whatever the source.
 * Each run uses its own SQLite file in the run's temporary folder.
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
import type { Driver, Json, SuiteTier } from "../driver.ts";
import { settlingQueue } from "../../lib/system/settling_listen.ts";
import {
  loadQueuePackage,
  type PackageChoice,
  packageLabel,
} from "../packages.ts";

/** What the sender and worker processes need to open the queue. */
export interface DenoKvConfig {
  readonly path: string;
  readonly [key: string]: Json;
}

/**
 * Why Deno KV's queue runs on Deno only: `DenoKvMessageQueue` takes a
 * `Deno.Kv`, opened with `Deno.openKv`, which Node.js and Bun lack.
 */
export const DENO_KV_RUNTIMES_NOTE = "DenoKvMessageQueue takes a Deno.Kv " +
  "from Deno.openKv, which only Deno has";

/**
 * A driver made by {@link denoKvDriverFor}: its name, and how it varies the
 * `deno-kv` driver (each optional part defaults to that driver's).
 */
export interface DenoKvDriverOptions {
  /** The driver's name. */
  readonly name: string;
  /** Its row in the docs' table of drivers; see {@link Driver.docs}. */
  readonly docs?: Driver["docs"];
  /**
   * Whether a separate worker process consumes the queue (`true` by
   * default) or the sender process itself.
   */
  readonly crossProcess?: boolean;
  /**
   * Who consumes the queue, and what else sets it apart, the end of its
   * description; "separate worker process" by default.
   */
  readonly detail?: string;
  /** Which code it runs (see `packages.ts`); follows the source by default. */
  readonly choice?: PackageChoice;
  /** Wraps the `Deno.Kv` the queue is given (an ablation's change). */
  readonly wrapKv?: (kv: Deno.Kv) => Deno.Kv;
  /** See {@link Driver.suite}. */
  readonly suite?: SuiteTier;
}

/**
 * A Deno KV driver.
 *
 * @param options Its name and how it differs from the `deno-kv` driver.
 */
export function denoKvDriverFor(options: DenoKvDriverOptions): Driver {
  const {
    name,
    crossProcess = true,
    detail = "separate worker process",
  } = options;
  const choice = options.choice ?? "follow-source";
  return {
    name,
    get description() {
      return `Deno KV queue (${packageLabel("denokv", choice)}), ${detail}`;
    },
    crossProcess,
    ...(options.suite == null ? {} : { suite: options.suite }),
    ...(options.docs == null ? {} : { docs: options.docs }),
    runtimes: ["deno"],
    runtimesNote: DENO_KV_RUNTIMES_NOTE,
    delivery: "at-least-once",
    removes: "after-handler",
    get ordering() {
      return {
        supported: true,
        note:
          `${
            packageLabel("denokv", choice)
          } locks each key in the database; a ` +
          "blocked message waits, polling the lock every 100 ms",
      };
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
      const { module } = await loadQueuePackage(
        "denokv",
        () => import("@fedify/denokv"),
        choice,
      );
      const kv = await Deno.openKv(path);
      const queue = new module.DenoKvMessageQueue(
        options.wrapKv?.(kv) ?? kv,
      );
      return {
        // A message Deno KV hands over while the listener stops goes back.
        queue: settlingQueue(queue),
        // Upstream's queue closes its Deno.Kv when disposed (synchronously);
        // a listener's abort has usually closed it already.
        close: () => Promise.resolve(queue[Symbol.dispose]()),
      };
    },
  };
}

/** Deno KV consumed by a separate worker process. */
export const denoKvDriver: Driver = denoKvDriverFor({
  name: "deno-kv",
  docs: {
    queue: "`@fedify/denokv` `DenoKvMessageQueue`: the source tree's, else " +
      "the stand-in",
    notes: "on `Deno.Kv.enqueue`/`listenQueue`; consumed by a separate " +
      "worker, which on a local Deno KV sees the sender's messages a minute " +
      "late ([Finding 9](findings.md#9-deno-kv-across-processes))",
  },
});

/** Deno KV consumed by the sender process itself. */
export const denoKvSingleDriver: Driver = denoKvDriverFor({
  name: "deno-kv-single",
  docs: {
    queue: "the same",
    notes: "consumed by the sender process itself, where new messages are " +
      "picked up at once",
  },
  crossProcess: false,
  detail: "consumed by the sender process, as a Deno KV app runs it",
  suite: "default",
});

/** The one row of the two stand-in drivers in the docs. */
const STANDIN_DOCS: Driver["docs"] = {
  queue: "the stand-in (`drivers/deno_kv/denokv_standin.ts`) whatever the " +
    "source",
  notes: "run only when named: as `deno-kv`, for the fidelity comparison " +
    "with the real package",
};

/**
 * The project's stand-in for `@fedify/denokv` whatever the source, consumed
 * by a separate worker process: for the fidelity comparison with the real
 * package (docs/methodology.md).
 */
export const denoKvStandInDriver: Driver = denoKvDriverFor({
  name: "deno-kv-standin",
  docs: STANDIN_DOCS,
  choice: "mapped",
  suite: "named",
});

/** The stand-in as `deno-kv-single` runs it (the sender consumes). */
export const denoKvSingleStandInDriver: Driver = denoKvDriverFor({
  name: "deno-kv-single-standin",
  docs: STANDIN_DOCS,
  crossProcess: false,
  detail: "consumed by the sender process",
  choice: "mapped",
  suite: "named",
});
