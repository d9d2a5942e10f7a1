/**
 * Queues whose capacity or latency is known by construction, for tests of
 * the max-rate search: one that handles at most N messages a second, one
 * message at a time, and one that hands over everything queued in one batch
 * every P seconds.  As drivers (loaded as a user driver module) they live
 * in the sender's memory, and the sender consumes them, so a run measures
 * the queue's limit and what the sender can do; as models
 * ({@link simulateProbe}) they run in virtual time, so a test can run a
 * whole search with full-length probes in milliseconds.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type { Driver, Json } from "../../drivers/driver.ts";
import { percentiles } from "../measure/histogram.ts";
import type { RunResult } from "../results/mod.ts";
import { arrivalSchedule } from "../workload/arrivals.ts";
import { evaluateLoad } from "../workload/load.ts";
import type { RunLoad } from "../workload/plan.ts";

/** Messages per second that {@link capacityDriver}'s queue handles at most. */
export const CAPACITY_PER_SECOND = 40;
/** Seconds between the batches of {@link pollDriver}'s queue. */
export const POLL_SECONDS = 1.5;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Hands `ready` messages to `handler`, paced as a test queue decides. */
type Take = (
  // deno-lint-ignore no-explicit-any
  ready: any[],
  // deno-lint-ignore no-explicit-any
  handler: (message: any) => Promise<void> | void,
  signal?: AbortSignal,
) => Promise<void>;

/**
 * A queue in memory whose listener takes what is ready as `take` decides:
 * the pacing is the only difference between the two test queues.
 */
class PacedQueue implements MessageQueue {
  // deno-lint-ignore no-explicit-any
  readonly #ready: any[] = [];
  #wake: (() => void) | null = null;
  readonly #take: Take;

  /** A queue whose listener hands messages over through `take`. */
  constructor(take: Take) {
    this.#take = take;
  }

  /** Queues `message`, after its delay if it has one. */
  // deno-lint-ignore no-explicit-any
  enqueue(message: any, options?: MessageQueueEnqueueOptions): Promise<void> {
    const delay = options?.delay?.total("millisecond") ?? 0;
    const push = () => {
      this.#ready.push(message);
      this.#wake?.();
    };
    if (delay > 0) setTimeout(push, delay);
    else push();
    return Promise.resolve();
  }

  /** Hands messages to `handler` until `options.signal` aborts. */
  async listen(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      if (this.#ready.length === 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        this.#wake = null;
        continue;
      }
      await this.#take(this.#ready, handler, signal);
    }
  }
}

/**
 * One message at a time, each started no sooner than `1 / perSecond` s
 * after the one before: at most `perSecond` messages a second.
 */
function capacityQueue(perSecond: number): MessageQueue {
  let next = 0;
  return new PacedQueue(async (ready, handler, signal) => {
    await pause(next - performance.now(), signal);
    if (signal?.aborted) return;
    next = Math.max(next, performance.now() - 1000 / perSecond) +
      1000 / perSecond;
    await handler(ready.shift());
  });
}

/**
 * Everything queued, handed over at once every `seconds` (all of a batch
 * concurrently): ample capacity, latency up to `seconds`.
 */
function pollQueue(seconds: number): MessageQueue {
  return new PacedQueue(async (ready, handler, signal) => {
    await pause(seconds * 1000, signal);
    if (signal?.aborted) return;
    const batch = ready.splice(0);
    await Promise.all(batch.map((message) => handler(message)));
  });
}

/** A driver whose queue `make` opens from its JSON configuration. */
function testDriver(
  name: string,
  description: string,
  config: Json,
  make: (config: Json) => MessageQueue,
  quietPeriodSeconds?: number,
): Driver {
  return {
    name,
    description,
    crossProcess: false,
    volatile: true,
    quietPeriodSeconds,
    module: import.meta.url,
    prepare: () =>
      Promise.resolve({ config, cleanup: () => Promise.resolve() }),
    open: (opened) =>
      Promise.resolve({
        queue: make(opened),
        close: () => Promise.resolve(),
      }),
  };
}

/** Handles at most {@link CAPACITY_PER_SECOND} messages a second. */
export const capacityDriver: Driver = testDriver(
  "test-capacity",
  `test: at most ${CAPACITY_PER_SECOND} messages/s, one at a time`,
  { perSecond: CAPACITY_PER_SECOND },
  (config) => capacityQueue((config as { perSecond: number }).perSecond),
);

/** Delivers in batches every {@link POLL_SECONDS} seconds. */
export const pollDriver: Driver = testDriver(
  "test-poll",
  `test: everything queued, every ${POLL_SECONDS} s`,
  { seconds: POLL_SECONDS },
  (config) => pollQueue((config as { seconds: number }).seconds),
  POLL_SECONDS,
);

export default [capacityDriver, pollDriver];

/** A queue's limit, for {@link simulateProbe}. */
export type SimulatedQueue =
  | { readonly perSecond: number }
  | { readonly pollSeconds: number; readonly phaseSeconds?: number };

/**
 * A probe of a rate run against a queue simulated in virtual time, judged
 * by the bench's own verdict ({@link evaluateLoad}): the schedule the bench
 * would offer, each activity's `recipients` messages enqueued when due,
 * and handled either at most `perSecond` a second, one after another, or
 * all that are queued every `pollSeconds` (from `phaseSeconds`).  What has not arrived by the end
 * of the drain window is missing.  Returns the run and how long it lasted.
 */
export function simulateProbe(
  queue: SimulatedQueue,
  recipients: number,
  load: RunLoad,
): { run: RunResult; seconds: number } {
  if (load.kind !== "rate") throw new TypeError("a probe is a rate run");
  const dueMs = arrivalSchedule(load);
  const endMs = (load.durationSeconds + load.drainSeconds) * 1000;
  const arrivals: number[] = [];
  let free = 0;
  for (const due of dueMs) {
    for (let k = 0; k < recipients; k++) {
      if ("perSecond" in queue) {
        free = Math.max(free, due) + 1000 / queue.perSecond;
        arrivals.push(free);
      } else {
        const poll = queue.pollSeconds * 1000;
        const phase = (queue.phaseSeconds ?? 0) * 1000;
        arrivals.push(Math.ceil((due + 1 - phase) / poll) * poll + phase);
      }
    }
  }
  const firstArrival = arrivals.map((at) => at <= endMs ? at : null);
  const record = evaluateLoad({
    nominalRate: load.rate,
    arrivals: load.arrivals,
    durationSeconds: load.durationSeconds,
    startMs: 0,
    dueMs,
    firstArrival,
    recipients,
    endMs,
  });
  const arrived = firstArrival.filter((at) => at != null);
  const missing = arrivals.length - arrived.length;
  const latency = percentiles(
    firstArrival.flatMap((at, i) =>
      at == null ? [] : [at - dueMs[Math.floor(i / recipients)]]
    ),
  );
  const lastMs = arrived.length === 0 ? 0 : Math.max(...arrived);
  const run = {
    status: missing === 0 ? "ok" : "incomplete",
    expected: arrivals.length,
    delivered: arrived.length,
    missing,
    latencyMs: latency,
    load: record,
  } as unknown as RunResult;
  return {
    run,
    seconds: missing === 0
      ? Math.max(load.durationSeconds, lastMs / 1000)
      : endMs / 1000,
  };
}
