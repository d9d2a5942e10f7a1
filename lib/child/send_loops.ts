/**
 * The sender's ways of calling `sendActivity`: closed loops (one, or several
 * at once as siege's `-c` does, each starting its next call when the last
 * returned) and the open loop of a rate run, which starts each call when
 * its schedule says, whether or not earlier calls have returned, as web
 * requests would.  Each records when every call started and how long it
 * took; the open loop also when it was due.
 *
 * @module
 */
import { now } from "../ipc/child_io.ts";
import { sleep } from "../system/sleep.ts";

/**
 * Prepares activity `index` and returns the call that sends it, which
 * rejects when `sendActivity` threw; only the call is timed.
 */
export type SendCall = (index: number) => () => Promise<void>;

/** What a send loop observed. */
export interface SendLog {
  /** Epoch ms when each call began, by activity index. */
  readonly callStarts: number[];
  /** Duration of each call in ms, by activity index. */
  readonly callMs: number[];
  /** Epoch ms when each call was due (open loop only). */
  readonly dueAt?: number[];
  /** Calls that threw. */
  readonly errors: number;
  /** The first error's message, if any. */
  readonly firstError: string | null;
}

/** Records calls: their starts, durations and errors. */
class CallRecorder {
  readonly callStarts: number[] = [];
  readonly callMs: number[] = [];
  errors = 0;
  firstError: string | null = null;
  #returned = 0;
  readonly #onReturn: (returned: number) => void;

  constructor(onReturn: (returned: number) => void) {
    this.#onReturn = onReturn;
  }

  /** Makes call `index` now and records it. */
  async call(send: SendCall, index: number): Promise<void> {
    const call = send(index);
    const started = now();
    this.callStarts[index] = started;
    try {
      await call();
    } catch (error) {
      this.errors++;
      this.firstError ??= String(error);
    }
    this.callMs[index] = now() - started;
    this.#onReturn(++this.#returned);
  }

  log(dueAt?: number[]): SendLog {
    return {
      callStarts: this.callStarts,
      callMs: this.callMs,
      ...(dueAt == null ? {} : { dueAt }),
      errors: this.errors,
      firstError: this.firstError,
    };
  }
}

/** Options shared by the loops. */
export interface LoopOptions {
  /** Sends one activity. */
  readonly send: SendCall;
  /** Stops starting calls once aborted. */
  readonly signal: AbortSignal;
  /** Called after each call returns, with the number returned so far. */
  readonly onReturn?: (returned: number) => void;
}

/**
 * `total` calls made by `loops` closed loops at once; activity indices are
 * handed out in order.
 */
export async function closedLoops(
  options: LoopOptions & { readonly total: number; readonly loops: number },
): Promise<SendLog> {
  const recorder = new CallRecorder(options.onReturn ?? (() => {}));
  let next = 0;
  const loop = async () => {
    while (next < options.total && !options.signal.aborted) {
      await recorder.call(options.send, next++);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, options.loops) }, loop),
  );
  return recorder.log();
}

/** Calls started back to back before the open loop yields to the event loop. */
const BURST_BEFORE_YIELD = 16;
/** A call due within this many ms is started now rather than slept for. */
const SLACK_MS = 1;

/**
 * One call per entry of `schedule` (ms from `startMs`), each started when
 * due whether or not earlier calls have returned; resolves once every
 * started call has returned.
 */
export async function openLoop(
  options: LoopOptions & {
    readonly schedule: readonly number[];
    readonly startMs: number;
  },
): Promise<SendLog> {
  const recorder = new CallRecorder(options.onReturn ?? (() => {}));
  const dueAt = options.schedule.map((offset) => options.startMs + offset);
  const calls: Promise<void>[] = [];
  let backToBack = 0;
  for (let i = 0; i < dueAt.length && !options.signal.aborted; i++) {
    const wait = dueAt[i] - now();
    if (wait > SLACK_MS) {
      backToBack = 0;
      try {
        await sleep(wait, options.signal);
      } catch {
        break;
      }
    } else if (++backToBack >= BURST_BEFORE_YIELD) {
      // Behind schedule: let returning calls and I/O run now and then.
      backToBack = 0;
      await sleep(0);
    }
    calls.push(recorder.call(options.send, i));
  }
  await Promise.all(calls);
  return recorder.log(dueAt.slice(0, calls.length));
}
