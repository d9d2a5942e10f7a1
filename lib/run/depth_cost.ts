/**
 * What one `getDepth()` call costs a queue at a given backlog, beside
 * `deno task dequeue-cost`'s dequeue cost: one empty queue of the driver on
 * the server the bench would use, filled step by step to each of the
 * backlog sizes (outbox-sized messages, as the dequeue cost fills), with
 * {@link DEPTH_CALLS} timed calls at each, once an untimed call counts
 * every message given (a queue may take a moment to show them); the median
 * is recorded.  A driver whose queue has no `getDepth()` (as it
 * declares) is recorded as not supported, without a queue being made.
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";
import { median, roundTo } from "../measure/stats.ts";
import { errorMessage } from "../results/error_message.ts";
import type { ServiceManager } from "../services/mod.ts";
import { leftovers } from "../system/leftovers.ts";
import { sleep } from "../system/sleep.ts";
import { fillDelayed, fillRange } from "./dequeue_point.ts";
import { DEPTH_CALLS, type DepthCost } from "../results/dequeue_cost_record.ts";

/** How long a queue may take to show every message it was given. */
const SETTLE_TIMEOUT_MS = 60_000;

/**
 * Waits (untimed) until `getDepth()` counts at least `count` messages: a
 * queue whose `enqueue()` returns before its server has the messages (the
 * AMQP queue's plain channels) would otherwise have its calls queue behind
 * the fill still in flight.
 * @throws {Error} If it does not within {@link SETTLE_TIMEOUT_MS}.
 */
async function settle(
  queue: { getDepth?: () => Promise<{ queued: number }> },
  count: number,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (true) {
    signal.throwIfAborted();
    const { queued } = await queue.getDepth!();
    if (queued >= count) return;
    if (Date.now() > deadline) {
      throw new Error(
        `getDepth() still said ${queued} of ${count} messages ` +
          `${SETTLE_TIMEOUT_MS / 1000} s after filling`,
      );
    }
    await sleep(100, signal);
  }
}

/**
 * Times `getDepth()` at each backlog of `backlogs` (sorted ascending) for
 * one driver.  A failure ends the driver's measurement; what was measured
 * before it is kept, with the reason.
 * @throws When `signal` aborts.
 */
export async function measureDepthCost(
  driver: Driver,
  backlogs: readonly number[],
  messageBytes: number,
  services: ServiceManager,
  signal: AbortSignal,
  delayed = 0,
): Promise<DepthCost> {
  if (driver.depth == null || driver.prepare == null || driver.open == null) {
    return { driver: driver.name, supported: false };
  }
  const callMs: Record<string, number> = {};
  const tempDir = await leftovers.makeTempDir("depth-cost");
  try {
    const serviceUrl = driver.service == null
      ? undefined
      : (await services.acquire(driver.service, signal)).url;
    const runId = `dd${Date.now().toString(36)}${
      Math.random().toString(36).slice(2, 6)
    }`;
    const prepared = await driver.prepare({ runId, tempDir, serviceUrl });
    try {
      const { queue, close } = await driver.open(prepared.config);
      try {
        if (queue.getDepth == null) {
          throw new Error(
            `driver ${driver.name} declares depth but its queue has no ` +
              "getDepth(); remove `depth` from the driver",
          );
        }
        await fillDelayed(queue, delayed, messageBytes, signal);
        let filled = 0;
        for (const backlog of [...backlogs].sort((a, b) => a - b)) {
          await fillRange(queue, filled, backlog, messageBytes, signal);
          filled = Math.max(filled, backlog);
          await settle(queue, filled + delayed, signal);
          const times: number[] = [];
          for (let i = 0; i < DEPTH_CALLS; i++) {
            const start = performance.now();
            await queue.getDepth();
            times.push(performance.now() - start);
          }
          callMs[String(backlog)] = roundTo(median(times), 3);
        }
      } finally {
        await close();
      }
    } finally {
      await prepared.cleanup();
    }
  } catch (error) {
    signal.throwIfAborted();
    return {
      driver: driver.name,
      supported: true,
      callMs,
      reason: errorMessage(error),
    };
  } finally {
    await leftovers.removeTempDir(tempDir);
  }
  return { driver: driver.name, supported: true, callMs };
}
