/**
 * One point of `deno task dequeue-cost`: one driver's queue, empty, filled
 * with a backlog of outbox-sized messages through the official queue's
 * `enqueueMany()`, then a fixed number of them handed by its `listen()` to
 * a handler that does nothing, timed message by message.  The start of
 * `listen()` (a queue may wait for its first poll) is not counted.
 *
 * @module
 */
import type { MessageQueueEnqueueOptions } from "@fedify/fedify";
import type { Driver, OpenedQueue } from "../../drivers/driver.ts";
import type { ServiceManager } from "../services/mod.ts";
import { leftovers } from "../system/leftovers.ts";
import { sleep } from "../system/sleep.ts";
import { summariseArrivals } from "./dequeue_fit.ts";
import { outboxMessages } from "./outbox_messages.ts";
import type {
  DequeueCostParams,
  DequeueCostPoint,
} from "../results/dequeue_cost_record.ts";

/** How long a stopped listener gets to finish its queries before closing. */
const SETTLE_MS = 1000;

/** Messages per `enqueueMany()` while filling. */
const FILL_BATCH = 500;

/**
 * Fills one empty queue of `driver` with `backlog` messages and times its
 * dequeues; a dequeue slower than the step limit ends the point as
 * `timeout`.
 * @throws When the driver's queue cannot be prepared, filled or read, or
 *   `signal` aborts.
 */
export async function measurePoint(
  driver: Driver,
  backlog: number,
  params: DequeueCostParams,
  services: ServiceManager,
  signal: AbortSignal,
): Promise<DequeueCostPoint> {
  const base = { driver: driver.name, backlog };
  const serviceUrl = driver.service == null
    ? undefined
    : (await services.acquire(driver.service, signal)).url;
  // Owned by this process, so a killed run's folder is swept by the next
  // bench (see lib/system/leftovers.ts).
  const tempDir = await leftovers.makeTempDir("dequeue-cost");
  const runId = `dc${Date.now().toString(36)}${
    Math.random().toString(36).slice(2, 6)
  }`;
  try {
    const prepared = await driver.prepare!({ runId, tempDir, serviceUrl });
    try {
      const opened = await driver.open!(prepared.config);
      try {
        const { queue } = opened;
        const fillSeconds = await fill(queue, backlog, params, signal);
        const { times, timedOut } = await timeDequeues(
          queue,
          driver,
          params,
          signal,
        );
        const timing = summariseArrivals(times.slice(params.warmup));
        if (timedOut) {
          return {
            ...base,
            status: "timeout",
            reason: `one dequeue took over ${params.stepTimeoutSeconds} s ` +
              `(after ${times.length} of ${wanted(params)} messages)`,
            fillSeconds,
            ...timing,
          };
        }
        return { ...base, status: "ok", fillSeconds, ...timing };
      } finally {
        await opened.close();
      }
    } finally {
      await prepared.cleanup();
    }
  } finally {
    await leftovers.removeTempDir(tempDir);
  }
}

/** The queue of an opened driver. */
type Queue = OpenedQueue["queue"];

/** Messages a point reads: the warm-up, the timed ones, and the first. */
function wanted(params: DequeueCostParams): number {
  return params.warmup + params.dequeues + 1;
}

/** Enqueues the backlog in batches; returns the seconds it took. */
async function fill(
  queue: Queue,
  backlog: number,
  params: DequeueCostParams,
  signal: AbortSignal,
): Promise<number> {
  const start = performance.now();
  await fillDelayed(queue, params.delayed ?? 0, params.messageBytes, signal);
  await fillRange(queue, 0, backlog, params.messageBytes, signal);
  return (performance.now() - start) / 1000;
}

/** How far in the future the delayed messages of `--delayed` are due. */
export const DELAYED_DUE = Temporal.Duration.from({ hours: 1 });

/**
 * Enqueues `count` messages due in {@link DELAYED_DUE} (numbered from
 * 10,000,000 so that they differ from the ready ones), the delayed backlog
 * of `--delayed`.
 * @throws When `signal` aborts.
 */
export async function fillDelayed(
  queue: Queue,
  count: number,
  messageBytes: number,
  signal: AbortSignal,
): Promise<void> {
  const first = 10_000_000;
  await fillRange(queue, first, first + count, messageBytes, signal, {
    delay: DELAYED_DUE,
  });
}

/**
 * Enqueues outbox-sized messages number `from` to `to` (exclusive) of
 * `messageBytes` each, in batches through `enqueueMany()` where the queue
 * has it.
 * @throws When `signal` aborts.
 */
export async function fillRange(
  queue: Queue,
  from: number,
  to: number,
  messageBytes: number,
  signal: AbortSignal,
  options?: MessageQueueEnqueueOptions,
): Promise<void> {
  const message = outboxMessages(messageBytes);
  for (let i = from; i < to && !signal.aborted; i += FILL_BATCH) {
    const messages = Array.from(
      { length: Math.min(FILL_BATCH, to - i) },
      (_, j) => message(i + j),
    );
    if (queue.enqueueMany != null) await queue.enqueueMany(messages, options);
    else for (const m of messages) await queue.enqueue(m, options);
  }
  signal.throwIfAborted();
}

/**
 * Listens until the wanted messages arrived or one gap exceeded the step
 * limit (the first message gets the queue's quiet period and 10 s more),
 * and returns when each message arrived.
 */
async function timeDequeues(
  queue: Queue,
  driver: Driver,
  params: DequeueCostParams,
  signal: AbortSignal,
): Promise<{ times: number[]; timedOut: boolean }> {
  const count = wanted(params);
  const times: number[] = [];
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort);
  // The first message may wait for the queue's first poll.
  const graceMs = ((driver.quietPeriodSeconds ?? 0) + 10) * 1000;
  let last = performance.now();
  let timedOut = false;
  const watchdog = setInterval(() => {
    const limit = params.stepTimeoutSeconds * 1000 +
      (times.length === 0 ? graceMs : 0);
    if (performance.now() - last > limit) {
      timedOut = true;
      stop.abort();
    }
  }, 100);
  const listening = queue.listen(() => {
    if (times.length >= count) return;
    last = performance.now();
    times.push(last);
    if (times.length >= count) stop.abort();
  }, { signal: stop.signal });
  try {
    await Promise.race([
      listening,
      new Promise((resolve) => stop.signal.addEventListener("abort", resolve)),
    ]);
    // Let the listener settle before closing (a slow read may be in
    // flight); never wait longer than one more step.
    await Promise.race([
      listening.catch(() => {}),
      sleep(params.stepTimeoutSeconds * 1000),
    ]);
    // Polls the queue started on its own (timers, notifications) may
    // still be finishing a query.
    await sleep(SETTLE_MS);
  } finally {
    clearInterval(watchdog);
    signal.removeEventListener("abort", onAbort);
  }
  signal.throwIfAborted();
  return { times, timedOut };
}
