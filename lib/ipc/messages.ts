/**
 * Every message a child process (the fake inbox, the sender, a worker, the
 * calibration server) sends the runner, as one discriminated union on
 * `type`, and the commands the runner sends back.  Children write messages
 * with `emit` (`child_io.ts`); the runner reads them with `Child`
 * (`lib/system/process.ts`), whose `latest("sent")` is a {@link SentMessage}.
 *
 * @module
 */
import type { Implementation } from "../results/mod.ts";
import type { RuntimeIdentity } from "../results/configuration.ts";

/**
 * `ready`: the child has started.  The sender then waits for `go`; the
 * others are at work.
 */
export interface ReadyMessage {
  readonly type: "ready";
  /** The child's process id. */
  readonly pid: number;
  /** The port it listens on, on 127.0.0.1 (the inbox, the calibration server). */
  readonly port?: number;
  /** The port of the dead inboxes, on 127.0.0.1 (`--inbox-dead-rate`). */
  readonly deadPort?: number;
  /** The origin of its federation's HTTP server (the sender). */
  readonly origin?: string;
  /** The runtime the app's process runs on (the sender and workers). */
  readonly runtime?: RuntimeIdentity;
  /**
   * What the driver's queue specifier resolved to in this process (the
   * sender and workers); `null` without a queue or a specifier.
   */
  readonly implementation?: Implementation | null;
}

/**
 * `signRate`: the sign-rate process's RSA-2048 signatures per second on
 * one thread, slice by slice, on the runtime it ran on
 * (`lib/child/sign_rate.ts`).
 */
export interface SignRateMessage {
  readonly type: "signRate";
  /** The runtime it signed on. */
  readonly runtime: RuntimeIdentity;
  /** Signatures per second, one rate per slice. */
  readonly perSecond: readonly number[];
}

/** `progress`: about once a second while the sender sends. */
export interface ProgressMessage {
  readonly type: "progress";
  /** Activities whose `sendActivity` call returned so far. */
  readonly sent: number;
}

/**
 * `started`: the sender began sending; the epoch ms its schedule counts
 * from, so the runner can judge a rate run even if the loop never ends.
 */
export interface StartedMessage {
  readonly type: "started";
  /** Epoch ms of the start of sending (offset 0 of a rate run's schedule). */
  readonly sendStart: number;
}

/** `sent`: the sender's send loop is over; its timings. */
export interface SentMessage {
  readonly type: "sent";
  /** Epoch ms when the first `sendActivity` call began. */
  readonly sendStart: number;
  /** Epoch ms when the last `sendActivity` call returned. */
  readonly sendEnd: number;
  /** Epoch ms when each activity's `sendActivity` call began. */
  readonly callStarts: number[];
  /** Duration of each `sendActivity` call in ms. */
  readonly callMs: number[];
  /**
   * In a rate run, the epoch ms at which each activity's call was due by
   * the schedule (latencies count from here); absent otherwise.
   */
  readonly dueAt?: number[];
  /** Number of calls that threw. */
  readonly sendErrors: number;
  /** The first error's message, if any. */
  readonly firstError: string | null;
}

/**
 * `depth`: one sample of the queue's depth, from a process that consumes the
 * queue, was asked to report it, and whose queue can tell.
 */
export interface DepthMessage {
  readonly type: "depth";
  /** Epoch ms of the sample (when the `getDepth()` call returned). */
  readonly at: number;
  /** Messages waiting in the queue. */
  readonly queued: number;
  /**
   * Epoch ms the `getDepth()` call began; sent with `--sample-depth`, whose
   * error figures judge a sample over the whole call.
   */
  readonly start?: number;
  /** Delayed messages, when the queue reports them apart. */
  readonly delayed?: number;
}

/**
 * `queueLog`: what the bench's counting wrapper around the queue logged in
 * this process since its last `queueLog` (sent about every 250 ms by the
 * sender and every worker when depth is sampled or inboxes are dead).
 */
export interface QueueLogMessage {
  readonly type: "queueLog";
  /** Every event of this process before this epoch ms has been sent. */
  readonly complete: number;
  /**
   * Enqueue calls that returned: `[calledAt, returnedAt, messages,
   * delayMs]`, epoch ms.
   */
  readonly enqueues: [number, number, number, number][];
  /** Epoch ms each message was handed to a handler. */
  readonly handled: number[];
}

/**
 * `stages`: the stage timings this process recorded since its last
 * `stages` message (sent about every 500 ms by the sender and every worker
 * while stage timing is on, and once more when the runner asks with
 * `flush-stages`).
 */
export interface StagesMessage {
  readonly type: "stages";
  /** Timings, ms, by stage name; stages without a timing are absent. */
  readonly samples: Readonly<Record<string, readonly number[]>>;
  /** The most handlers the driver's queue had running at once so far. */
  readonly peakInFlight: number;
}

/** `flushed`: every stage timing so far has been sent (`flush-stages`). */
export interface FlushedMessage {
  readonly type: "flushed";
}

/** `error`: the child failed and exits next. */
export interface ErrorMessage {
  readonly type: "error";
  /** What went wrong. */
  readonly message: string;
}

/** A message a child process sends the runner, one JSON object a line. */
export type ChildMessage =
  | ReadyMessage
  | SignRateMessage
  | ProgressMessage
  | StartedMessage
  | SentMessage
  | DepthMessage
  | QueueLogMessage
  | StagesMessage
  | FlushedMessage
  | ErrorMessage;

/** The `type` of a {@link ChildMessage}. */
export type ChildMessageType = ChildMessage["type"];

/** The message whose `type` is `T`, e.g. `MessageOf<"sent">`. */
export type MessageOf<T extends ChildMessageType> = Extract<
  ChildMessage,
  { readonly type: T }
>;

/**
 * A command the runner sends a child, one a line on its stdin: `go` tells
 * the sender to start sending, once every process is ready and measured;
 * `flush-stages` asks the sender and workers for their last stage timings
 * (answered with `stages` and then `flushed`).
 */
export type Command = "go" | "flush-stages";

/** Every message type, to tell a message line from a log line. */
const MESSAGE_TYPES: Readonly<Record<ChildMessageType, true>> = {
  ready: true,
  signRate: true,
  progress: true,
  started: true,
  sent: true,
  depth: true,
  queueLog: true,
  stages: true,
  flushed: true,
  error: true,
};

/**
 * Reads one line of a child's stdout: its message, or `undefined` for a line
 * that is none (not JSON, or no known `type`), which is log output.
 */
export function parseMessage(line: string): ChildMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value == null) return undefined;
  const type = (value as { readonly type?: unknown }).type;
  if (typeof type !== "string" || !Object.hasOwn(MESSAGE_TYPES, type)) {
    return undefined;
  }
  // The children write these lines with `emit`, typed as a ChildMessage.
  return value as ChildMessage;
}

/** A predicate that narrows a {@link ChildMessage} to the one of `type`. */
export function ofType<T extends ChildMessageType>(
  type: T,
): (message: ChildMessage) => message is MessageOf<T> {
  return (message): message is MessageOf<T> => message.type === type;
}

/**
 * `message` with every epoch timestamp in it moved by `ms`: a message of a
 * child on another host put onto the bench's clock (`lib/agent/`).
 * Durations and counts are left as they are.
 */
export function shiftClock(message: ChildMessage, ms: number): ChildMessage {
  const at = (t: number) => t + ms;
  switch (message.type) {
    case "started":
      return { ...message, sendStart: at(message.sendStart) };
    case "sent":
      return {
        ...message,
        sendStart: at(message.sendStart),
        sendEnd: at(message.sendEnd),
        callStarts: message.callStarts.map(at),
        ...(message.dueAt == null ? {} : { dueAt: message.dueAt.map(at) }),
      };
    case "depth":
      return {
        ...message,
        at: at(message.at),
        ...(message.start == null ? {} : { start: at(message.start) }),
      };
    case "queueLog":
      return {
        ...message,
        complete: at(message.complete),
        enqueues: message.enqueues.map((
          [called, returned, messages, delay],
        ): [number, number, number, number] => [
          at(called),
          at(returned),
          messages,
          delay,
        ]),
        handled: message.handled.map(at),
      };
    default:
      return message;
  }
}
