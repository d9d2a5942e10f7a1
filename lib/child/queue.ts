/**
 * The queue a child process (the sender, a worker) opens: how it learns
 * which one (the driver's name, the modules to load it from, the
 * configuration its `prepare` made, and the parallelism to wrap it in, with
 * which wrapper), opening it, and reporting its depth to the runner.
 *
 * @module
 */
import type { MessageQueue } from "@fedify/fedify";
import { wrapParallel } from "../queue/awaiting_parallel_queue.ts";
import { findDriver, loadDrivers } from "../../drivers/mod.ts";
import { emit, now } from "../ipc/child_io.ts";
import type { Json } from "../../drivers/driver.ts";
import { resolveImplementation } from "../measure/implementation.ts";
import type { Implementation, ParallelImpl } from "../results/types.ts";

/** The queue part of a sender's or worker's spec. */
export interface QueueSpec {
  /** The driver's name. */
  readonly driver: string;
  /** User driver modules to load besides the built-in ones. */
  readonly driverModules: readonly string[];
  /** What the driver's `prepare` returned. */
  readonly config: Json;
  /** `ParallelMessageQueue` workers; 1 means no wrapper. */
  readonly parallelism: number;
  /** Which parallel wrapper above 1; Fedify's when absent. */
  readonly parallelImpl?: ParallelImpl;
}

/** A queue opened from a {@link QueueSpec}, or none for synchronous delivery. */
export interface ChildQueue {
  /** The queue to give Fedify, already wrapped for parallelism. */
  readonly queue?: MessageQueue;
  /** The queue without the parallel wrapper, for `getDepth()`. */
  readonly inner?: MessageQueue;
  /**
   * What the driver's `queueSpecifier` resolved to in this
   * process; `null` without a queue or a specifier.
   */
  readonly implementation: Implementation | null;
  /** Releases the queue's connections. */
  close(): Promise<void>;
}

/** Opens the queue a spec describes. */
export async function openQueue(spec: QueueSpec): Promise<ChildQueue> {
  const drivers = await loadDrivers(spec.driverModules);
  const driver = findDriver(drivers, spec.driver);
  if (driver == null) throw new Error(`unknown driver: ${spec.driver}`);
  if (driver.open == null) {
    return { implementation: null, close: () => Promise.resolve() };
  }
  const opened = await driver.open(spec.config);
  const implementation = driver.queueSpecifier == null
    ? null
    : resolveImplementation(driver.queueSpecifier);
  const queue = wrapParallel(
    opened.queue,
    spec.parallelism,
    spec.parallelImpl,
  );
  return {
    queue,
    inner: opened.queue,
    implementation,
    close: () => opened.close(),
  };
}

/** How often a consumer reports its queue's depth, in ms. */
const DEPTH_INTERVAL_MS = 1000;

/**
 * Reports the queue's depth to the runner (`depth` messages with `at` and
 * `queued`) about every second until `signal` aborts.  Does nothing for
 * queues without `getDepth()`.
 */
export function reportDepth(opened: ChildQueue, signal: AbortSignal): void {
  const inner = opened.inner;
  if (inner?.getDepth == null) return;
  const tick = async () => {
    if (signal.aborted) return;
    try {
      const depth = await inner.getDepth!();
      emit({ type: "depth", at: now(), queued: depth.queued });
    } catch { /* a failed sample is just a gap */ }
    if (!signal.aborted) timer = setTimeout(tick, DEPTH_INTERVAL_MS);
  };
  let timer = setTimeout(tick, 0);
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
}
