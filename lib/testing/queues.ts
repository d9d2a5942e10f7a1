/**
 * Fixtures for tests of message queues on their own: waiting for a
 * condition, and a listener that records the messages it is handed.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { MessageQueue } from "@fedify/fedify";
import { sleep } from "../system/sleep.ts";

/**
 * How many times its quiet-machine limit a bounded wait of the tests
 * allows ({@link waitFor}, `rejectsWithin`): a busy machine delays timers,
 * processes and replies, and a limit is there to fail a hang, not to judge
 * speed.  A wait that passes takes no longer for it.
 */
export const LOAD_ALLOWANCE = 5;

/**
 * Polls `condition` (which may be async) every 10 ms; fails the test after
 * `ms` milliseconds on a quiet machine ({@link LOAD_ALLOWANCE} times as
 * long, so that a busy machine does not fail it).
 *
 * @param condition What to wait for.
 * @param ms The longest wait on a quiet machine.
 * @param what Names the condition in the failure; a function is called
 *   then, so that the failure can say what was there instead.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  ms: number,
  what: string | (() => string),
): Promise<void> {
  const limit = ms * LOAD_ALLOWANCE;
  const deadline = Date.now() + limit;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      const named = typeof what === "string" ? what : what();
      assert.fail(`timed out waiting ${limit} ms for ${named}`);
    }
    await sleep(10);
  }
}

/** A listener that records what it handles, from {@link recordMessages}. */
export interface Recorder {
  /** The messages handled so far, in the order they came. */
  // deno-lint-ignore no-explicit-any
  readonly got: any[];
  /** The listener's promise. */
  readonly done: Promise<void>;
  /** Aborts the listener and waits for it to end. */
  stop(): Promise<void>;
}

/** When {@link recordMessages} records a message, and what it reports. */
export interface RecordOptions {
  /**
   * Record a message once its handler has returned, so a message whose
   * handler throws is not recorded; by default it is recorded before the
   * handler runs.
   */
  readonly afterHandler?: boolean;
  /**
   * Leave a rejection of the listener's promise unreported unless the test
   * awaits {@link Recorder.done} (for tests that break the connection
   * under it).
   */
  readonly ignoreRejection?: boolean;
}

/**
 * Listens on `queue`, recording every message in {@link Recorder.got}, and
 * runs `onMessage` as the handler's work.
 *
 * @param queue The queue to listen on.
 * @param onMessage The handler's work: gets the message and what was
 *   recorded so far.
 * @param options When to record, and whether a rejection is reported.
 */
export function recordMessages(
  queue: MessageQueue,
  // deno-lint-ignore no-explicit-any
  onMessage?: (message: any, got: any[]) => Promise<void> | void,
  options: RecordOptions = {},
): Recorder {
  // deno-lint-ignore no-explicit-any
  const got: any[] = [];
  const controller = new AbortController();
  const done = queue.listen(async (message) => {
    if (!options.afterHandler) got.push(message);
    await onMessage?.(message, got);
    if (options.afterHandler) got.push(message);
  }, { signal: controller.signal });
  if (options.ignoreRejection) done.catch(() => {});
  return {
    got,
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}
