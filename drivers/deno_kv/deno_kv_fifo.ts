/**
 * An ablation of the `deno-kv` drivers: their `DenoKvMessageQueue` (the
 * Fedify source tree's, or the stand-in without one), unchanged, on a `Deno.Kv` whose `listenQueue` hands the messages of one
 * ordering key to the queue's handler one after another, in the order Deno
 * KV delivered them.
 *
 * Deno KV calls the queue's handler for every message as it delivers it,
 * concurrently; the queue then makes a message with an ordering key wait
 * for the key's lock, looking at it every 100 ms.  When several messages of
 * a key wait, the lock goes to whichever looks first after it is released,
 * not to the one delivered first.  {@link fifoKv} queues them in the process
 * instead: the queue's handler for a message of a key starts once its
 * handler for the key's previous message has settled, so the lock is taken
 * in delivery order.  The lock itself, its polling (still what waits for a
 * key held by another process), and everything else are the queue's.
 *
 * Not in the default suite: run it beside `deno-kv-single`, e.g.
 * `deno task bench --drivers deno-kv-single,deno-kv-single-fifo --workload
 * cud --ordering-key none,object`.
 *
 * @module
 */
import type { Driver } from "../driver.ts";
import { denoKvDriverFor } from "./deno_kv.ts";

/** The property under which the queue stores a message's ordering key. */
const ORDERING_KEY = "__fedify_ordering_key__";

/** The ordering key a message as stored in Deno KV carries, if any. */
function orderingKeyOf(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw == null) return undefined;
  const key = (raw as Record<string, unknown>)[ORDERING_KEY];
  return typeof key === "string" ? key : undefined;
}

/**
 * `kv`, but its `listenQueue(handler)` calls `handler` for a message with an
 * ordering key only once `handler` has settled for every earlier-delivered
 * message of that key (in this process); messages without a key, and every
 * other method, are `kv`'s own.
 */
export function fifoKv(kv: Deno.Kv): Deno.Kv {
  /** Per key, the promise of the last handler call queued for it. */
  const tails = new Map<string, Promise<void>>();
  const listenQueue = (
    handler: (value: unknown) => Promise<void> | void,
  ): Promise<void> =>
    kv.listenQueue((raw: unknown) => {
      const key = orderingKeyOf(raw);
      if (key == null) return handler(raw);
      const previous = tails.get(key) ?? Promise.resolve();
      const mine = previous.catch(() => {}).then(() => handler(raw));
      tails.set(key, mine);
      const forget = () => {
        if (tails.get(key) === mine) tails.delete(key);
      };
      mine.then(forget, forget);
      return mine;
    });
  return new Proxy(kv, {
    get(target, property) {
      if (property === "listenQueue") return listenQueue;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The one row of the two FIFO ablations in the docs. */
const FIFO_DOCS: Driver["docs"] = {
  queue: "the same as `deno-kv`, a key's messages handed to the queue in " +
    "delivery order",
  notes: "an ablation (run only when named): the queue is untouched, the " +
    "`Deno.Kv` it is given queues a key's messages in the process instead of " +
    "letting them race for the lock " +
    "([Finding 11](findings.md#11-deno-kv-ordering))",
};

/** A FIFO ablation of a Deno KV driver: its queue on a {@link fifoKv}. */
function fifo(base: string, crossProcess: boolean, summary: string): Driver {
  return denoKvDriverFor({
    name: `${base}-fifo`,
    docs: FIFO_DOCS,
    crossProcess,
    detail: `${summary}, handing a key's messages to the queue in delivery ` +
      `order (an ablation: otherwise as ${base})`,
    wrapKv: fifoKv,
    suite: "named",
  });
}

/** `deno-kv` (a separate worker process) with FIFO hand-off per key. */
export const denoKvFifoDriver: Driver = fifo(
  "deno-kv",
  true,
  "separate worker process",
);

/** `deno-kv-single` (the sender consumes) with FIFO hand-off per key. */
export const denoKvSingleFifoDriver: Driver = fifo(
  "deno-kv-single",
  false,
  "consumed by the sender process",
);
