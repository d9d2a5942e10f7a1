import assert from "node:assert/strict";
import { ListenerStopError, stopConsequence, StopGuard } from "./stop_guard.ts";

/** An error with a `code`, as postgres.js makes them. */
function coded(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

/** A turn of the event loop, after which Deno has reported rejections. */
function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Runs `fn`, then returns the reasons of the rejections nobody handled
 * meanwhile (each kept from failing the test); a listener added before it
 * (`catchStrays()`) handles first.
 */
async function unhandledDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const reasons: unknown[] = [];
  const listener = (event: PromiseRejectionEvent) => {
    if (event.defaultPrevented) return;
    event.preventDefault();
    reasons.push(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", listener);
  try {
    await fn();
    await turn();
  } finally {
    globalThis.removeEventListener("unhandledrejection", listener);
  }
  return reasons;
}

Deno.test("stopConsequence: the errors a stop or close is bound to cause", () => {
  for (
    const error of [
      coded("57014", "canceling statement due to user request"),
      coded("CONNECTION_ENDED"),
      coded("CONNECTION_DESTROYED"),
      coded("CONNECTION_CLOSED"),
      new Error("Connection is closed."),
      new Error("database is not open"),
      new Error("Pool is closed."),
      new Deno.errors.BadResource("Bad resource ID"),
      Object.assign(new Error("Channel closed"), {
        name: "IllegalOperationError",
      }),
    ]
  ) {
    assert.ok(stopConsequence(error) != null, String(error));
  }
  for (
    const error of [
      new Error("boom"),
      coded("ECONNREFUSED"),
      coded("23505", "duplicate key value"),
      "57014",
      null,
    ]
  ) {
    assert.equal(stopConsequence(error), undefined, String(error));
  }
});

Deno.test("StopGuard.hold: before the stop a rejection is raised again, named", async () => {
  const guard = new StopGuard("postgres");
  const reasons = await unhandledDuring(async () => {
    await guard.hold(
      Promise.reject(coded("57014")),
      "a poll started by a notification",
    );
  });
  assert.equal(reasons.length, 1);
  const error = reasons[0];
  assert.ok(error instanceof ListenerStopError);
  assert.equal(error.driver, "postgres");
  assert.equal(error.step, "listening");
  assert.match(
    error.message,
    /^postgres: a poll started by a notification rejected while listening, and nothing waited for it: 57014$/,
  );
  assert.deepEqual(guard.handled, []);
});

Deno.test("StopGuard.hold: after the abort, what the stop explains is handled", async () => {
  const guard = new StopGuard("postgres");
  const controller = new AbortController();
  guard.watch(controller.signal);
  controller.abort();
  assert.equal(guard.step, "stopping the listener");
  const cancelled = coded("57014", "canceling statement due to user request");
  const other = new Error("relation does not exist");
  const reasons = await unhandledDuring(async () => {
    await guard.hold(Promise.reject(cancelled), "a poll");
    await guard.hold(Promise.reject(other), "another poll");
    await guard.hold(Promise.resolve(1), "a poll that ended well");
  });
  assert.deepEqual(guard.handled.map((h) => [h.step, h.what, h.reason]), [
    ["stopping the listener", "a poll", cancelled],
  ]);
  assert.equal(reasons.length, 1);
  assert.ok(reasons[0] instanceof ListenerStopError);
  assert.equal(reasons[0].cause, other);
  assert.match(reasons[0].message, /another poll rejected while stopping/);
});

Deno.test("StopGuard.enter: steps only move forward", () => {
  const guard = new StopGuard("redis");
  guard.enter("closing the queue");
  guard.enter("stopping the listener");
  assert.equal(guard.step, "closing the queue");
  guard.enter("closed");
  assert.equal(guard.step, "closed");
});

Deno.test("StopGuard.settled: waits for held work, and for work started a turn later", async () => {
  const guard = new StopGuard("sqlite");
  const order: string[] = [];
  let finish!: () => void;
  guard.hold(
    new Promise<void>((resolve) => finish = resolve).then(() => {
      order.push("held");
      // As ParallelMessageQueue does: the work starts a setTimeout(0) later.
      setTimeout(() => {
        guard.track(Promise.resolve().then(() => order.push("late")));
      }, 0);
    }),
    "a poll",
  );
  const settled = guard.settled().then((all) => {
    order.push("settled");
    return all;
  });
  await turn();
  assert.deepEqual(order, []);
  finish();
  assert.equal(await settled, true);
  assert.deepEqual(order, ["held", "late", "settled"]);
});

Deno.test("StopGuard.settled: gives up after its limit", async () => {
  const guard = new StopGuard("mysql");
  guard.track(new Promise(() => {}));
  assert.equal(await guard.settled(20), false);
});

Deno.test("StopGuard.stop: closes once the work has settled; the stop's own rejections are handled", async () => {
  const guard = new StopGuard("postgres");
  const order: string[] = [];
  let finish!: () => void;
  guard.track(
    new Promise<void>((resolve) => finish = resolve).then(() => {
      order.push("handler");
    }),
  );
  const stopping = guard.stop(
    Promise.reject(coded("57014")),
    () => {
      order.push(`close while ${guard.step}`);
      return Promise.reject(coded("CONNECTION_DESTROYED"));
    },
  );
  await turn();
  assert.deepEqual(order, []);
  finish();
  await stopping;
  assert.deepEqual(order, ["handler", "close while closing the queue"]);
  assert.equal(guard.step, "closed");
  assert.deepEqual(guard.handled.map((h) => h.what), [
    "the listener",
    "closing the queue",
  ]);
});

Deno.test("StopGuard.stop: a listener's failure the stop does not explain is thrown", async () => {
  const guard = new StopGuard("amqp");
  let closed = false;
  await assert.rejects(
    guard.stop(Promise.reject(new Error("channel lost")), () => {
      closed = true;
      return Promise.resolve();
    }),
    /channel lost/,
  );
  assert.equal(closed, false);
});

Deno.test("StopGuard.catchStrays: handles the stop's strays, names any other", async () => {
  const guard = new StopGuard("postgres");
  // Before the recorder, so that the recorder sees what the guard left.
  using _strays = guard.catchStrays();
  const reasons = await unhandledDuring(async () => {
    Promise.reject(coded("57014"));
    await turn();
    assert.equal(guard.handled.length, 0, "not before the stop");
    guard.enter("stopping the listener");
    const cancelled = coded("57014");
    Promise.reject(cancelled);
    await turn();
    assert.deepEqual(guard.handled.map((h) => h.reason), [cancelled]);
    Promise.reject(new Error("boom"));
    await turn();
  });
  assert.equal(reasons.length, 2);
  for (const reason of reasons) assert.ok(reason instanceof ListenerStopError);
  assert.match(
    (reasons[0] as Error).message,
    /^postgres \(listening\): a promise nothing here holds rejected while listening/,
  );
  assert.match(
    (reasons[1] as Error).message,
    /while stopping the listener.*boom/,
  );
});
