/**
 * The `depth` record of a run with `--sample-depth`: the `getDepth()`
 * samples the consuming process took, judged against the counting
 * wrapper's logs from every process (`lib/measure/depth_error.ts` defines
 * the error).  Pure: the runner gathers a {@link DepthObservations}.
 *
 * @module
 */
import {
  depthError,
  type DepthSample,
  type EnqueueEvent,
} from "../measure/depth_error.ts";
import type { ChildMessage } from "../ipc/messages.ts";
import type { DepthRecord } from "../results/mod.ts";

/** What a run with `--sample-depth` observed about its queue's depth. */
export interface DepthObservations {
  /** Whether the driver declares `getDepth()`. */
  readonly supported: boolean;
  /** Every enqueue call any process logged. */
  readonly enqueues: readonly EnqueueEvent[];
  /** Every hand-out any process logged, epoch ms. */
  readonly handled: readonly number[];
  /** The `getDepth()` calls. */
  readonly samples: readonly DepthSample[];
  /**
   * Epoch ms up to which every process's log is complete, and the run had
   * not ended; samples after it are not judged.
   */
  readonly to: number;
}

/**
 * Gathers the depth observations from each process's messages: `queueLog`
 * and `depth` lines.  The horizon is the earliest of every logging
 * process's last `complete` and `end`.
 */
export function gatherDepth(
  supported: boolean,
  processes: readonly (readonly ChildMessage[])[],
  end: number,
): DepthObservations {
  const enqueues: EnqueueEvent[] = [];
  const handled: number[] = [];
  const samples: DepthSample[] = [];
  let to = end;
  for (const messages of processes) {
    let complete: number | undefined;
    for (const message of messages) {
      if (message.type === "queueLog") {
        for (const [calledAt, returnedAt, count, delayMs] of message.enqueues) {
          enqueues.push({ calledAt, returnedAt, count, delayMs });
        }
        handled.push(...message.handled);
        complete = message.complete;
      } else if (message.type === "depth" && message.start != null) {
        samples.push({
          start: message.start,
          end: message.at,
          queued: message.queued,
          ...(message.delayed == null ? {} : { delayed: message.delayed }),
        });
      }
    }
    if (complete != null) to = Math.min(to, complete);
  }
  return { supported, enqueues, handled, samples, to };
}

/** The `depth` record, judging samples from `from` (the start of sending). */
export function depthRecord(
  observed: DepthObservations,
  from: number | undefined,
): DepthRecord {
  if (!observed.supported) return { supported: false };
  const figures = depthError({
    enqueues: observed.enqueues,
    handled: observed.handled,
    samples: observed.samples,
    from: from ?? Infinity,
    to: observed.to,
  });
  return { supported: true, ...figures };
}
