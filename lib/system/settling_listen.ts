/**
 * Stopping a queue package's listener only once the handlers it is running
 * have settled, for packages that release their connection the moment
 * their listener's signal aborts: `@fedify/amqp` 2.x closes its channel,
 * and `@fedify/denokv` closes its `Deno.Kv`.  A handler still running then
 * (a worker's fanout enqueueing a hundred outbox messages, an
 * acknowledgement) fails on the closed connection: Fedify logs "Failed to
 * enqueue activity … to send later: TypeError: Database is closed", or the
 * acknowledgement rejects with nobody holding it.  A row the bench stopped
 * would leave those errors in Fedify's log though the queue did nothing
 * wrong; a user's app stopping its worker would see the same.
 *
 * {@link listenSettling} gives the package a signal of its own that aborts
 * once every handler call already running has settled.  The bench's
 * processes stop every queue so (`guardListeners`, `lib/queue/guarded_queue.ts`,
 * which sits outside Fedify's `ParallelMessageQueue`: under it the package's
 * handler calls return as soon as a slot has taken the message, Finding 2,
 * and the handler Fedify gives is the work itself); the AMQP driver does it
 * also at the package, where its acknowledgements are.  A message the
 * package hands over between the two aborts is not handled: where the
 * queue retries natively (`nativeRetrial`), the handler throws and the
 * queue delivers it again later (to another consumer, or after a restart);
 * otherwise, where a throw would lose it, it is handled as usual.  A
 * listener at the package learns of the stop when it is asked for, from
 * the listener above (not only once the work above has settled), so that
 * it stops taking messages at once.
 *
 * @module
 */
import type { MessageQueue, MessageQueueListenOptions } from "@fedify/fedify";

/** A queue's handler. */
// deno-lint-ignore no-explicit-any
type Handler = (message: any) => Promise<void> | void;

/**
 * The listener options' key under which {@link listenSettling} passes the
 * first stop asked for down to the listeners below it (Fedify's
 * `ParallelMessageQueue` and the bench's wrappers pass the options on).
 */
const STOP_REQUESTED = Symbol.for("fedify-queue-bench/stop-requested");

/** `options` carrying `requested` as the first stop asked for. */
function withStopRequested(
  options: MessageQueueListenOptions,
  requested: AbortSignal,
): MessageQueueListenOptions {
  (options as Record<symbol, unknown>)[STOP_REQUESTED] = requested;
  return options;
}

/** The first stop asked for above `options`' listener, if one passed it. */
function stopRequested(
  options: MessageQueueListenOptions | undefined,
): AbortSignal | undefined {
  const value = (options as Record<symbol, unknown> | undefined)?.[
    STOP_REQUESTED
  ];
  return value instanceof AbortSignal ? value : undefined;
}

/**
 * Listens with `listen` (a package's own), passing the abort of
 * `options.signal` on only once the handler calls already running have
 * settled.
 * @param listen The package queue's `listen`, bound.
 * @param handler Fedify's handler.
 * @param options The listener's options, with the signal that stops it.
 * @param nativeRetrial Whether the queue retries a message whose handler
 *   threw: then a message handed over while stopping is thrown back.
 */
export function listenSettling(
  listen: (
    handler: Handler,
    options?: MessageQueueListenOptions,
  ) => Promise<void>,
  handler: Handler,
  options: MessageQueueListenOptions | undefined,
  nativeRetrial: boolean,
): Promise<void> {
  const outer = options?.signal;
  if (outer == null) return listen(handler, options);
  // The first stop asked for, above this listener: a package-level one sees
  // its own signal abort only once the work above has settled.
  const requested = stopRequested(options) ?? outer;
  const inner = new AbortController();
  const running = new Set<Promise<void>>();
  const abortWhenSettled = async () => {
    while (running.size > 0) await Promise.allSettled([...running]);
    inner.abort(outer.reason);
  };
  if (outer.aborted) inner.abort(outer.reason);
  else outer.addEventListener("abort", abortWhenSettled, { once: true });
  return listen((message) => {
    if ((outer.aborted || requested.aborted) && nativeRetrial) {
      throw new Error("the listener is stopping; the message is requeued");
    }
    const result = handler(message);
    if (result instanceof Promise) {
      running.add(result);
      const done = () => running.delete(result);
      result.then(done, done);
    }
    return result;
  }, withStopRequested({ ...options, signal: inner.signal }, requested));
}

/**
 * `queue` with its `listen` wrapped by {@link listenSettling} at the
 * package, for a queue that retries natively: a message it hands over once
 * the listener is stopping is thrown back to it, so that it delivers the
 * message again later, instead of being handled on a connection about to
 * close.  `Deno.Kv` hands over a message it had already taken even after
 * `close()`; handled, its fanout's enqueues failed with "BadResource" in
 * Fedify's log.  Put it directly around the package, inside Fedify's
 * `ParallelMessageQueue`, whose slots would swallow the throw.  Everything
 * else passes through.
 */
export function settlingQueue(queue: MessageQueue): MessageQueue {
  return withListen(queue, (handler, options) =>
    listenSettling(
      (h, o) => queue.listen(h, o),
      handler,
      options,
      queue.nativeRetrial === true,
    ));
}

/**
 * `queue` with `listen` in place of its own; everything else passes
 * through: `enqueueMany()` and `getDepth()` exist exactly when `queue` has
 * them, and `nativeRetrial` is its.
 */
export function withListen(
  queue: MessageQueue,
  listen: MessageQueue["listen"],
): MessageQueue {
  const wrapped: MessageQueue = {
    get nativeRetrial() {
      return queue.nativeRetrial;
    },
    enqueue: (message, options) => queue.enqueue(message, options),
    listen,
  };
  if (queue.enqueueMany != null) {
    const enqueueMany = queue.enqueueMany.bind(queue);
    wrapped.enqueueMany = (messages, options) => enqueueMany(messages, options);
  }
  if (queue.getDepth != null) {
    const getDepth = queue.getDepth.bind(queue);
    wrapped.getDepth = () => getDepth();
  }
  return wrapped;
}
