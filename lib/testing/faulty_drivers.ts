/**
 * Drivers that misbehave on purpose, for tests of stall detection, crash
 * handling and cleanup.  Loaded as a user driver module.
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";

function waitForAbort(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal == null) return;
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Accepts every message and never delivers one: the run must stall. */
export const blackholeDriver: Driver = {
  name: "test-blackhole",
  description: "test: swallows every message",
  crossProcess: false,
  prepare: () =>
    Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
  open: () =>
    Promise.resolve({
      queue: {
        enqueue: () => Promise.resolve(),
        listen: (_handler, options) => waitForAbort(options?.signal),
      },
      close: () => Promise.resolve(),
    }),
};

/** Its worker process exits with code 3 as soon as it starts listening. */
export const crashingWorkerDriver: Driver = {
  name: "test-crashing-worker",
  description: "test: the worker process dies",
  crossProcess: true,
  prepare: () =>
    Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
  open: () =>
    Promise.resolve({
      queue: {
        enqueue: () => Promise.resolve(),
        listen: () => {
          setTimeout(() => Deno.exit(3), 200);
          return new Promise<void>(() => {});
        },
      },
      close: () => Promise.resolve(),
    }),
};

/** How long {@link slowFanoutDriver} holds outbox messages back, ms. */
export const SLOW_FANOUT_HOLD_MS = 5_000;

/**
 * Works but delivers late: it stores one message every 300 ms (so a fanout
 * handler enqueueing its outbox messages keeps working for seconds) and
 * hands out outbox messages only {@link SLOW_FANOUT_HOLD_MS} after its
 * first enqueue, as Deno KV's worker in another process fans out for a
 * while before it sees what it enqueued.  A run with a short stall window
 * must not call it stalled while its handlers work.
 */
export const slowFanoutDriver: Driver = {
  name: "test-slow-fanout",
  description: "test: works for seconds before the first delivery",
  crossProcess: false,
  prepare: () =>
    Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
  open: () => {
    const held: Record<string, unknown>[] = [];
    let stored = Promise.resolve();
    let firstAt: number | null = null;
    const pause = (ms: number) =>
      new Promise((resolve) => setTimeout(resolve, ms));
    return Promise.resolve({
      queue: {
        enqueue(message: unknown) {
          firstAt ??= Date.now();
          stored = stored.then(async () => {
            await pause(300);
            held.push(message as Record<string, unknown>);
          });
          return stored;
        },
        async listen(handler, options) {
          const signal = options?.signal;
          while (!signal?.aborted) {
            const due = firstAt != null &&
              Date.now() - firstAt >= SLOW_FANOUT_HOLD_MS;
            const next = held.findIndex((m) => m.type !== "outbox" || due);
            if (next < 0) {
              await pause(50);
              continue;
            }
            const [message] = held.splice(next, 1);
            await handler(message);
          }
        },
      },
      close: () => Promise.resolve(),
    });
  },
};

export default [blackholeDriver, crashingWorkerDriver, slowFanoutDriver];
