/**
 * Sends the runner what the counting wrapper around a child's queue logged
 * (`queueLog` messages), about every {@link QUEUE_LOG_INTERVAL_MS}, until
 * the child is asked to stop.  The runner joins the logs of every process
 * into the truth `getDepth()` is compared with, and into the delayed
 * backlog.
 *
 * @module
 */
import { emit } from "../ipc/child_io.ts";
import type { CountingQueue } from "../queue/counting_queue.ts";

/** How often a child sends its queue log, in ms. */
export const QUEUE_LOG_INTERVAL_MS = 250;

/** Sends `counting`'s log every {@link QUEUE_LOG_INTERVAL_MS} until `signal`. */
export function reportQueueLog(
  counting: CountingQueue | undefined,
  signal: AbortSignal,
): void {
  if (counting == null) return;
  const send = () => {
    const log = counting.take();
    emit({
      type: "queueLog",
      complete: log.complete,
      enqueues: log.enqueues.map((e) => [
        e.calledAt,
        e.returnedAt,
        e.count,
        e.delayMs,
      ]),
      handled: log.handled,
    });
  };
  const timer = setInterval(send, QUEUE_LOG_INTERVAL_MS);
  signal.addEventListener("abort", () => clearInterval(timer), { once: true });
}
