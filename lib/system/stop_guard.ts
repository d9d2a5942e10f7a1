/**
 * Stopping a queue's listener without leaving a promise to reject with
 * nobody waiting for it.
 *
 * Some queues start work that nobody awaits: `@fedify/postgres` 1.8.7 runs
 * a poll from every notification and drops its promise, and cancels the
 * poll's query when the listener's signal aborts; `@fedify/redis` 1.8.7
 * publishes without awaiting; Fedify's `ParallelMessageQueue` lets a
 * handler run on after the queue's `listen()` has returned.  Closing the
 * connection under such work, or cancelling it, rejects a promise that no
 * code holds, and Deno ends the process (or fails the test) on it.
 *
 * A {@link StopGuard} follows one queue through its steps (listening,
 * stopping the listener, closing the queue) and:
 *
 * - holds the promises a queue would drop ({@link StopGuard.hold}), so that
 *   their rejection is handled where it starts: one that stopping or closing
 *   is bound to cause ({@link stopConsequence}) is recorded and logged, any
 *   other is raised again, unhandled, as a {@link ListenerStopError} that
 *   names the driver and the step;
 * - counts the work still in flight ({@link StopGuard.track}: a queue
 *   wrapped by `guardListeners` in `lib/queue/guarded_queue.ts` counts its
 *   listeners and handler calls), so that {@link StopGuard.stop} closes the
 *   connection only once it has settled;
 * - as a last resort for promises no code here can reach, watches the
 *   process's unhandled rejections ({@link StopGuard.catchStrays}).
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { errorMessage } from "../results/error_message.ts";
import { appRuntime } from "../runtime/mod.ts";

const logger = getLogger(["fedify-queue-bench", "queue", "stop"]);

/** Where a queue is in its life, as a {@link StopGuard} names it. */
export type StopStep =
  | "listening"
  | "stopping the listener"
  | "closing the queue"
  | "closed";

/** Steps in which a stop or close has begun. */
const STOPPING: ReadonlySet<StopStep> = new Set<StopStep>([
  "stopping the listener",
  "closing the queue",
  "closed",
]);

/**
 * How long {@link StopGuard.stop} waits for handlers and held promises to
 * settle before closing the queue anyway: a handler stuck on a dead inbox
 * must not keep a worker from exiting.  What its close then rejects is a
 * consequence of the stop, and handled as one.
 */
export const SETTLE_LIMIT_MS = 10_000;

/**
 * Says why `error` is what stopping a listener or closing a queue's
 * connection is bound to cause, or `undefined` when it is not.  Only such
 * an error, and only once a stop has begun, is handled quietly.
 *
 * @param error A rejection's reason.
 */
export function stopConsequence(error: unknown): string | undefined {
  const closed = appRuntime.closedResource(error);
  if (closed != null) return closed;
  if (typeof error !== "object" || error == null) return undefined;
  const { code, message, name } = error as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
  };
  // postgres.js: a query cancelled on abort (client-side or by the server).
  if (code === "57014") return "a query cancelled by the listener's abort";
  // postgres.js: a query cut off by `sql.end()` or its timeout.
  if (
    code === "CONNECTION_ENDED" || code === "CONNECTION_DESTROYED" ||
    code === "CONNECTION_CLOSED"
  ) {
    return "a query cut off by closing the connection";
  }
  if (typeof message !== "string") return undefined;
  // ioredis, after `disconnect()`.
  if (message === "Connection is closed.") {
    return "a command cut off by disconnecting";
  }
  // node:sqlite, after `close()`.
  if (message === "database is not open") {
    return "a statement run after the database was closed";
  }
  // mysql2, after `pool.end()`.
  if (
    message === "Pool is closed." ||
    message === "Can't add new command when connection is in closed state"
  ) {
    return "a query cut off by closing the pool";
  }
  // amqplib, on a closed channel or connection.
  if (name === "IllegalOperationError" && /closed/i.test(message)) {
    return "an operation on a closed AMQP channel";
  }
  return undefined;
}

/**
 * A rejection that nobody waited for and that stopping did not explain,
 * raised again with the driver and the step it came in.
 */
export class ListenerStopError extends Error {
  /** The driver whose queue it came from. */
  readonly driver: string;
  /** Where the queue was when it came. */
  readonly step: StopStep;

  /**
   * @param driver The driver's name.
   * @param step The step the queue was in.
   * @param what The promise, in a few words ("a poll started by a
   *   notification").
   * @param cause The rejection's reason.
   */
  constructor(driver: string, step: StopStep, what: string, cause: unknown) {
    super(
      `${driver}: ${what} rejected while ${step}, and nothing waited for ` +
        `it: ${errorMessage(cause)}`,
      { cause },
    );
    this.name = "ListenerStopError";
    this.driver = driver;
    this.step = step;
  }
}

/** A rejection a {@link StopGuard} handled as a consequence of the stop. */
export interface HandledRejection {
  /** The step the queue was in. */
  readonly step: StopStep;
  /** The promise, in a few words. */
  readonly what: string;
  /** Why it is a consequence of the stop ({@link stopConsequence}). */
  readonly why: string;
  /** The rejection's reason. */
  readonly reason: unknown;
}

/** Every guard whose {@link StopGuard.catchStrays} is on. */
const catching = new Set<StopGuard>();
/** Removes the runtime's listener that {@link onUnhandled} is, when set. */
let stopCatching: (() => void) | null = null;

function onUnhandled(reason: unknown): boolean {
  // Already named: let it end the process as it is.
  if (reason instanceof ListenerStopError || catching.size === 0) return false;
  for (const guard of catching) {
    if (guard.accept(reason, "a promise nothing here holds")) return true;
  }
  const [first] = catching;
  const names = [...catching].map((g) => `${g.driver} (${g.step})`);
  const error = new ListenerStopError(
    names.join(", "),
    first.step,
    "a promise nothing here holds",
    reason,
  );
  Promise.reject(error);
  return true;
}

/**
 * Follows one queue from listening to closed, and handles the rejections
 * its stop leaves behind; see the module documentation.
 */
export class StopGuard {
  /** The driver whose queue this guards, for messages. */
  readonly driver: string;
  /** Rejections handled as consequences of the stop, oldest first. */
  readonly handled: HandledRejection[] = [];
  #step: StopStep = "listening";
  readonly #inFlight = new Set<Promise<unknown>>();

  /** @param driver The driver's name, which messages give. */
  constructor(driver: string) {
    this.driver = driver;
  }

  /** Where the queue is now. */
  get step(): StopStep {
    return this.#step;
  }

  /**
   * Moves to a later step; an earlier one is ignored (a second listener's
   * abort after the close has begun does not undo it).
   */
  enter(step: StopStep): void {
    const order: StopStep[] = [
      "listening",
      "stopping the listener",
      "closing the queue",
      "closed",
    ];
    if (order.indexOf(step) > order.indexOf(this.#step)) this.#step = step;
  }

  /** Enters "stopping the listener" when `signal` aborts (or has). */
  watch(signal: AbortSignal | undefined): void {
    if (signal == null) return;
    if (signal.aborted) this.enter("stopping the listener");
    else {
      signal.addEventListener(
        "abort",
        () => this.enter("stopping the listener"),
        { once: true },
      );
    }
  }

  /**
   * Records `reason` as handled if a stop has begun and the stop explains
   * it; says whether it did.
   *
   * @param reason A rejection's reason.
   * @param what The promise, in a few words.
   */
  accept(reason: unknown, what: string): boolean {
    if (!STOPPING.has(this.#step)) return false;
    const why = stopConsequence(reason);
    if (why == null) return false;
    this.handled.push({ step: this.#step, what, why, reason });
    logger.debug(
      "{driver}: {what} rejected while {step}, as stopping does: {why} " +
        "({error})",
      {
        driver: this.driver,
        what,
        step: this.#step,
        why,
        error: errorMessage(reason),
      },
    );
    return true;
  }

  /**
   * Holds a promise that the queue's own code drops: waits for it before
   * closing ({@link settled}), and handles its rejection here.  One the
   * stop explains is recorded in {@link handled}; any other is raised
   * again, unhandled, as a {@link ListenerStopError}.
   *
   * @param promise The dropped promise (or whatever a callback returned).
   * @param what The promise, in a few words, for messages.
   * @returns A promise that settles with it and never rejects.
   */
  hold(promise: unknown, what: string): Promise<void> {
    if (!(promise instanceof Promise)) return Promise.resolve();
    const held = promise.then(
      () => {},
      (reason) => {
        if (this.accept(reason, what)) return;
        Promise.reject(
          new ListenerStopError(this.driver, this.#step, what, reason),
        );
      },
    );
    this.track(held);
    return held;
  }

  /**
   * Counts `promise` as in flight until it settles, for {@link settled};
   * its rejection stays its holder's to handle.
   */
  track(promise: Promise<unknown>): void {
    this.#inFlight.add(promise);
    const done = () => this.#inFlight.delete(promise);
    promise.then(done, done);
  }

  /**
   * Waits until nothing held or tracked is in flight, and nothing new has
   * started over a turn of the event loop (Fedify's `ParallelMessageQueue`
   * starts a handler a `setTimeout(0)` after taking its message), or until
   * `limitMs` has passed.  Says whether everything settled.
   */
  async settled(limitMs: number = SETTLE_LIMIT_MS): Promise<boolean> {
    const deadline = Date.now() + limitMs;
    while (true) {
      while (this.#inFlight.size > 0) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.allSettled([...this.#inFlight]),
          new Promise((resolve) => timer = setTimeout(resolve, left)),
        ]);
        clearTimeout(timer);
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (this.#inFlight.size === 0) return true;
    }
  }

  /**
   * Stops a listener whose signal has been aborted, then closes the queue:
   * waits for `listening` (a rejection the abort explains is handled), for
   * every handler call and held promise to settle (at most `limitMs`), then
   * runs `close`.
   *
   * @param listening The listener's promise (Fedify's `startQueue()`).
   * @param close Closes the queue's connections.
   * @param limitMs The longest wait for work to settle before closing.
   * @throws What `listening` or `close` rejected with, unless the stop
   *   explains it.
   */
  async stop(
    listening: Promise<unknown>,
    close: () => Promise<void>,
    limitMs: number = SETTLE_LIMIT_MS,
  ): Promise<void> {
    this.enter("stopping the listener");
    try {
      await listening;
    } catch (error) {
      if (!this.accept(error, "the listener")) throw error;
    }
    await this.settled(limitMs);
    this.enter("closing the queue");
    try {
      await close();
    } catch (error) {
      if (!this.accept(error, "closing the queue")) throw error;
    }
    this.enter("closed");
  }

  /**
   * As a last resort, handles rejections in this process that no code
   * holds: one the stop explains (once it has begun) is recorded in
   * {@link handled}; any other is raised again as a
   * {@link ListenerStopError} naming the driver and step.  For the
   * processes that run a queue; the tests leave it off, so that they see
   * what the guard's other means missed.
   *
   * @returns Turns it off again.
   */
  catchStrays(): Disposable {
    if (catching.size === 0) {
      stopCatching = appRuntime.onUnhandledRejection(onUnhandled);
    }
    catching.add(this);
    return {
      [Symbol.dispose]: () => {
        catching.delete(this);
        if (catching.size === 0) {
          stopCatching?.();
          stopCatching = null;
        }
      },
    };
  }
}
