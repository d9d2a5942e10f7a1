/**
 * Drivers whose queue depth is known, for end-to-end tests of
 * `--sample-depth`: one whose `getDepth()` says 5 more than it holds, one
 * whose `getDepth()` is exact, and one with none, each a
 * {@link KnownDepthQueue} in the sender's memory.  Loaded as a user driver
 * module.
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";
import { KnownDepthQueue } from "./depth_queues.ts";

function knownDepthDriver(
  name: string,
  misreport: ((queued: number) => number) | undefined,
  withDepth = true,
): Driver {
  return {
    name,
    description: `test: a queue of known depth (${name})`,
    crossProcess: false,
    volatile: true,
    ...(withDepth ? { depth: "ready-and-delayed" as const } : {}),
    prepare: () =>
      Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
    open: () => {
      const known = new KnownDepthQueue(misreport);
      const queue = withDepth ? known : {
        enqueue: known.enqueue.bind(known),
        enqueueMany: known.enqueueMany.bind(known),
        listen: known.listen.bind(known),
      };
      return Promise.resolve({
        queue,
        close: () => {
          known.clearTimers();
          return Promise.resolve();
        },
      });
    },
  };
}

/** `getDepth()` says 5 more messages than the queue holds. */
export const plusFiveDriver: Driver = knownDepthDriver(
  "test-depth-plus5",
  (queued) => queued + 5,
);

/** `getDepth()` is exact. */
export const exactDriver: Driver = knownDepthDriver(
  "test-depth-exact",
  undefined,
);

/** No `getDepth()`. */
export const noDepthDriver: Driver = knownDepthDriver(
  "test-depth-none",
  undefined,
  false,
);

export default [plusFiveDriver, exactDriver, noDepthDriver];
