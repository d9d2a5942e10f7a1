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
import type { Driver, Json } from "../../drivers/driver.ts";
import { CountingQueue } from "../queue/counting_queue.ts";
import type { StageTiming } from "../queue/timing_queue.ts";
import { implementationFor } from "../../drivers/packages.ts";
import type { Implementation, ParallelImpl } from "../results/mod.ts";

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
  /**
   * Wrap the driver's queue in the bench's counting wrapper and send what
   * it logs (`queueLog`): with `--sample-depth` and `--inbox-dead-rate`.
   */
  readonly count?: boolean;
  /**
   * Sample `getDepth()` every {@link SAMPLE_DEPTH_INTERVAL_MS} with each
   * call's start (`--sample-depth`) instead of every second.
   */
  readonly sampleDepth?: boolean;
  /**
   * Time the stages of each delivery (`lib/child/stage_timing.ts`): on unless
   * `--no-stages`.
   */
  readonly stages?: boolean;
}

/** A queue opened from a {@link QueueSpec}, or none for synchronous delivery. */
export interface ChildQueue {
  /** The queue to give Fedify, already wrapped for parallelism. */
  readonly queue?: MessageQueue;
  /** The queue without the parallel wrapper, for `getDepth()`. */
  readonly inner?: MessageQueue;
  /** The counting wrapper, when the spec asked for one. */
  readonly counting?: CountingQueue;
  /**
   * Which code of the driver's `queueSpecifier` ran in this process (what
   * the driver loaded, or else what the import map resolves it to);
   * `null` without a queue or a specifier.
   */
  readonly implementation: Implementation | null;
  /** Releases the queue's connections. */
  close(): Promise<void>;
}

/**
 * Opens the queue a spec describes; with `timing`, the stage wrappers sit
 * around the driver's queue and around the parallel wrapper.
 */
export async function openQueue(
  spec: QueueSpec,
  timing?: StageTiming,
): Promise<ChildQueue> {
  const drivers = await loadDrivers(spec.driverModules);
  const driver = findDriver(drivers, spec.driver);
  if (driver == null) throw new Error(`unknown driver: ${spec.driver}`);
  if (driver.open == null) {
    return { implementation: null, close: () => Promise.resolve() };
  }
  const opened = await driver.open(spec.config);
  if (spec.sampleDepth) checkDepthDeclared(driver, opened.queue);
  const counting = spec.count
    ? new CountingQueue(opened.queue, now)
    : undefined;
  const inner = counting ?? opened.queue;
  const implementation = driver.queueSpecifier == null
    ? null
    : implementationFor(driver.queueSpecifier);
  const timed = timing == null ? inner : timing.inner(inner);
  const parallel = wrapParallel(timed, spec.parallelism, spec.parallelImpl);
  const queue = timing == null ? parallel : timing.outer(
    parallel,
    parallel !== timed,
    spec.parallelImpl !== "awaiting",
  );
  return {
    queue,
    inner,
    counting,
    implementation,
    close: () => opened.close(),
  };
}

/** How often a consumer reports its queue's depth, in ms. */
const DEPTH_INTERVAL_MS = 1000;
/** How often a consumer samples `getDepth()` with `--sample-depth`, in ms. */
export const SAMPLE_DEPTH_INTERVAL_MS = 250;

/**
 * Reports the queue's depth to the runner (`depth` messages with `at` and
 * `queued`) about every second until `signal` aborts; with `sampleDepth`,
 * every {@link SAMPLE_DEPTH_INTERVAL_MS} and with each call's start and
 * delayed count too.  Does nothing for queues without `getDepth()`.
 */
export function reportDepth(
  opened: ChildQueue,
  signal: AbortSignal,
  sampleDepth = false,
): void {
  const inner = opened.inner;
  if (inner?.getDepth == null) return;
  const interval = sampleDepth ? SAMPLE_DEPTH_INTERVAL_MS : DEPTH_INTERVAL_MS;
  const tick = async () => {
    if (signal.aborted) return;
    try {
      const start = now();
      const depth = await inner.getDepth!();
      emit({
        type: "depth",
        at: now(),
        queued: depth.queued,
        ...(sampleDepth ? { start } : {}),
        ...(sampleDepth && depth.delayed != null
          ? { delayed: depth.delayed }
          : {}),
      });
    } catch { /* a failed sample is just a gap */ }
    if (!signal.aborted) timer = setTimeout(tick, interval);
  };
  let timer = setTimeout(tick, 0);
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
}

/**
 * Fails when the driver's `depth` declaration and its queue disagree about
 * having `getDepth()`, so that a result never says "not supported" of a
 * queue that has it, or the reverse.
 * @throws {Error} Naming the declaration to fix.
 */
export function checkDepthDeclared(driver: Driver, queue: MessageQueue): void {
  const has = queue.getDepth != null;
  if (has === (driver.depth != null)) return;
  throw new Error(
    has
      ? `driver ${driver.name}: its queue has getDepth() but the driver ` +
        "declares no `depth`; add `depth` to the driver"
      : `driver ${driver.name} declares depth "${driver.depth}" but its ` +
        "queue has no getDepth(); remove `depth` from the driver",
  );
}
