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

export default [blackholeDriver, crashingWorkerDriver];
