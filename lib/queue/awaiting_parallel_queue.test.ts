/**
 * {@link AwaitingParallelMessageQueue} against Fedify 2.3.6's own
 * `ParallelMessageQueue`, both wrapping a tiny fake queue that, like AMQP or
 * Deno KV, acknowledges a message when the handler it gave settles.
 */
import assert from "node:assert/strict";
import {
  type MessageQueue,
  type MessageQueueListenOptions,
  ParallelMessageQueue,
} from "@fedify/fedify";
import {
  AwaitingParallelMessageQueue,
  wrapParallel,
} from "./awaiting_parallel_queue.ts";
import { sleep } from "../system/sleep.ts";

/** What the fake queue learned from a handler call. */
type Outcome = { acked: true } | { acked: false; error: unknown };

/** A queue whose test hands each message to the listener by hand. */
class FakeQueue implements MessageQueue {
  readonly nativeRetrial: boolean;
  readonly enqueued: unknown[] = [];
  #handler?: (message: unknown) => Promise<void> | void;

  constructor(nativeRetrial = false) {
    this.nativeRetrial = nativeRetrial;
  }

  enqueue(message: unknown): Promise<void> {
    this.enqueued.push(message);
    return Promise.resolve();
  }

  getDepth() {
    return Promise.resolve({ queued: this.enqueued.length });
  }

  listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    this.#handler = handler;
    return new Promise((resolve) =>
      options?.signal?.addEventListener("abort", () => resolve())
    );
  }

  /** Calls the listener's handler; acks when it resolves, nacks on reject. */
  async deliver(message: unknown): Promise<Outcome> {
    if (this.#handler == null) throw new Error("call listen() first");
    try {
      await this.#handler(message);
      return { acked: true };
    } catch (error) {
      return { acked: false, error };
    }
  }
}

/** A promise with its resolve and reject. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets timers and pending handlers run: 20 ms unless told. */
function tick(ms = 20): Promise<void> {
  return sleep(ms);
}

/** Tracks whether a promise has settled yet. */
function watch<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T } = { settled: false };
  promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

/**
 * Runs `fn` while recording, instead of failing on, unhandled promise
 * rejections.
 */
async function recordingUnhandled(
  fn: (unhandled: unknown[]) => Promise<void>,
): Promise<void> {
  const unhandled: unknown[] = [];
  const listener = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    unhandled.push(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", listener);
  try {
    await fn(unhandled);
  } finally {
    await tick();
    globalThis.removeEventListener("unhandledrejection", listener);
  }
}

Deno.test("Fedify's ParallelMessageQueue acks before the work is done", async () => {
  const fake = new FakeQueue();
  const controller = new AbortController();
  const work = deferred();
  const listening = new ParallelMessageQueue(fake, 2).listen(
    () => work.promise,
    { signal: controller.signal },
  );
  const outcome = watch(fake.deliver("m1"));
  await tick();
  assert.ok(outcome.settled, "acked while the work is still running");
  assert.deepEqual(outcome.value, { acked: true });
  work.resolve();
  controller.abort();
  await listening;
});

Deno.test("awaiting: the inner handler settles when the work is done", async () => {
  const fake = new FakeQueue();
  const controller = new AbortController();
  const work = deferred();
  const listening = new AwaitingParallelMessageQueue(fake, 2).listen(
    () => work.promise,
    { signal: controller.signal },
  );
  const outcome = watch(fake.deliver("m1"));
  await tick();
  assert.equal(outcome.settled, false, "not acked before the work is done");
  work.resolve();
  await tick();
  assert.deepEqual(outcome.value, { acked: true });
  controller.abort();
  await listening;
});

Deno.test("awaiting: a failed message nacks with the handler's error", async () => {
  const fake = new FakeQueue();
  const controller = new AbortController();
  const failure = new Error("inbox answered 500");
  const listening = new AwaitingParallelMessageQueue(fake, 2).listen(
    () => Promise.reject(failure),
    { signal: controller.signal },
  );
  assert.deepEqual(await fake.deliver("m1"), { acked: false, error: failure });
  controller.abort();
  await listening;
});

Deno.test(
  "Fedify's ParallelMessageQueue: rejected workers lead to AggregateError",
  () =>
    recordingUnhandled(async (unhandled) => {
      const fake = new FakeQueue();
      const controller = new AbortController();
      const handled: unknown[] = [];
      const listening = new ParallelMessageQueue(fake, 2).listen(
        (message) => {
          if (message !== "ok") throw new Error(`failed ${message}`);
          handled.push(message);
        },
        { signal: controller.signal },
      );
      // Both failures are acked: the queue never learns they failed.
      assert.deepEqual(await fake.deliver("a"), { acked: true });
      assert.deepEqual(await fake.deliver("b"), { acked: true });
      // The rejections come after Fedify's setTimeout(0); a loaded host can
      // delay them past any fixed wait, so poll for them.
      const deadline = Date.now() + 5_000;
      while (unhandled.length < 2 && Date.now() < deadline) await tick(10);
      // Each rejected worker sits in the map unhandled until the next message.
      assert.equal(unhandled.length, 2);
      // From now on every message fails, and none is handled.
      for (const message of ["ok", "ok"]) {
        const outcome = await fake.deliver(message);
        assert.equal(outcome.acked, false);
        const error = (outcome as { error: unknown }).error;
        assert.ok(error instanceof AggregateError, String(error));
        assert.deepEqual(
          error.errors.map((e: Error) => e.message),
          ["failed a", "failed b"],
        );
      }
      assert.deepEqual(handled, []);
      controller.abort();
      await listening;
    }),
);

Deno.test("awaiting: failed messages free their slots", () =>
  recordingUnhandled(async (unhandled) => {
    const fake = new FakeQueue();
    const controller = new AbortController();
    const handled: unknown[] = [];
    const listening = new AwaitingParallelMessageQueue(fake, 2).listen(
      (message) => {
        if (message !== "ok") throw new Error(`failed ${message}`);
        handled.push(message);
      },
      { signal: controller.signal },
    );
    for (const message of ["a", "b"]) {
      const outcome = await fake.deliver(message);
      assert.equal(outcome.acked, false);
      assert.equal(
        (outcome as { error: Error }).error.message,
        `failed ${message}`,
      );
    }
    assert.deepEqual(await fake.deliver("ok"), { acked: true });
    assert.deepEqual(await fake.deliver("ok"), { acked: true });
    assert.deepEqual(handled, ["ok", "ok"]);
    assert.deepEqual(unhandled, []);
    controller.abort();
    await listening;
  }));

Deno.test("awaiting: at most `workers` messages at once", async () => {
  const fake = new FakeQueue();
  const controller = new AbortController();
  let running = 0;
  let most = 0;
  const works = new Map<unknown, ReturnType<typeof deferred>>();
  const listening = new AwaitingParallelMessageQueue(fake, 2).listen(
    async (message) => {
      running++;
      most = Math.max(most, running);
      const work = deferred();
      works.set(message, work);
      await work.promise;
      running--;
    },
    { signal: controller.signal },
  );
  const outcomes = [1, 2, 3, 4, 5].map((m) => fake.deliver(m));
  await tick();
  assert.equal(running, 2);
  for (let round = 0; round < 5 && works.size > 0; round++) {
    for (const [message, work] of works) {
      works.delete(message);
      work.resolve();
    }
    await tick();
  }
  const all = await Promise.all(outcomes);
  assert.ok(all.every((o) => o.acked));
  assert.equal(most, 2);
  controller.abort();
  await listening;
});

Deno.test("awaiting: a message waiting for its key holds no slot", async () => {
  const fake = new FakeQueue();
  const controller = new AbortController();
  let running = 0;
  let most = 0;
  const started: string[] = [];
  const works = new Map<string, ReturnType<typeof deferred>>();
  const finish = (id: string) => {
    works.get(id)!.resolve();
    works.delete(id);
  };
  const listening = new AwaitingParallelMessageQueue(fake, 2).listen(
    async (message) => {
      const { id } = message as { id: string };
      running++;
      most = Math.max(most, running);
      started.push(id);
      const work = deferred();
      works.set(id, work);
      await work.promise;
      running--;
    },
    { signal: controller.signal },
  );
  // The queue calls the handler concurrently, as Deno KV's listenQueue does.
  const key = { __fedify_ordering_key__: "actor" };
  const outcomes = [fake.deliver({ ...key, id: "a" })];
  await tick();
  outcomes.push(
    fake.deliver({ ...key, id: "b" }),
    fake.deliver({ id: "c" }),
    fake.deliver({ id: "d" }),
  );
  await tick();
  assert.deepEqual(started, ["a", "c"], "b waits for its key, d for a slot");
  finish("a");
  await tick();
  assert.deepEqual(started, ["a", "c", "d"], "a's slot goes to d first");
  for (let round = 0; round < 5 && works.size > 0; round++) {
    for (const id of [...works.keys()]) finish(id);
    await tick();
  }
  assert.deepEqual(started, ["a", "c", "d", "b"]);
  const all = await Promise.all(outcomes);
  assert.ok(all.every((o) => o.acked));
  assert.equal(most, 2);
  controller.abort();
  await listening;
});

Deno.test("awaiting: one ordering key is handled one at a time", async () => {
  const fake = new FakeQueue();
  const controller = new AbortController();
  const order: string[] = [];
  const listening = new AwaitingParallelMessageQueue(fake, 4).listen(
    async (message) => {
      const { id } = message as { id: string };
      order.push(`start ${id}`);
      await tick(5);
      order.push(`end ${id}`);
    },
    { signal: controller.signal },
  );
  const key = { __fedify_ordering_key__: "actor" };
  await Promise.all([
    fake.deliver({ ...key, id: "1" }),
    fake.deliver({ ...key, id: "2" }),
    fake.deliver({ ...key, id: "3" }),
  ]);
  assert.deepEqual(order, [
    "start 1",
    "end 1",
    "start 2",
    "end 2",
    "start 3",
    "end 3",
  ]);
  controller.abort();
  await listening;
});

Deno.test("awaiting: enqueue, enqueueMany, getDepth and nativeRetrial pass through", async () => {
  for (const nativeRetrial of [false, true]) {
    const fake = new FakeQueue(nativeRetrial);
    const queue = new AwaitingParallelMessageQueue(fake, 3);
    assert.equal(queue.nativeRetrial, nativeRetrial);
    await queue.enqueue("a");
    await queue.enqueueMany(["b", "c"]);
    assert.deepEqual(fake.enqueued, ["a", "b", "c"]);
    assert.deepEqual(await queue.getDepth!(), { queued: 3 });
  }
  assert.throws(
    () =>
      new AwaitingParallelMessageQueue(
        new ParallelMessageQueue(new FakeQueue(), 2),
        2,
      ),
    TypeError,
  );
  assert.throws(
    () => new AwaitingParallelMessageQueue(new FakeQueue(), 0),
    /at least 1/,
  );
});

Deno.test("wrapParallel picks the wrapper, and none at 1", () => {
  const fake = new FakeQueue();
  assert.equal(wrapParallel(fake, 1, "awaiting"), fake);
  assert.ok(wrapParallel(fake, 4) instanceof ParallelMessageQueue);
  assert.ok(
    wrapParallel(fake, 4, "awaiting") instanceof AwaitingParallelMessageQueue,
  );
});
