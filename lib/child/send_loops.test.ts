import assert from "node:assert/strict";
import { closedLoops, openLoop } from "./send_loops.ts";
import { now } from "../ipc/child_io.ts";

Deno.test("the open loop starts each call when due, although none has returned", async () => {
  const release = Promise.withResolvers<void>();
  const started: number[] = [];
  const startMs = now();
  const pending = openLoop({
    schedule: [0, 50, 100, 150],
    startMs,
    signal: new AbortController().signal,
    // Every call hangs until released: a closed loop would stop at the first.
    send: () => () => {
      started.push(now() - startMs);
      return release.promise;
    },
  });
  // All four start while every call hangs (bounded wait on the event).
  const deadline = Date.now() + 30_000;
  while (started.length < 4 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(started.length, 4);
  // None before it was due; a busy machine may start them late, never early.
  started.forEach((at, i) => assert.ok(at >= i * 50 - 1, `${i}: ${at}`));
  const releasedAt = now() - startMs;
  release.resolve();
  const log = await pending;
  assert.deepEqual(log.dueAt, [0, 50, 100, 150].map((o) => startMs + o));
  // The first call took until its release.
  assert.ok(
    log.callMs[0] >= releasedAt - started[0] - 1,
    `${log.callMs[0]} ms, released ${releasedAt - started[0]} ms after start`,
  );
  assert.equal(log.errors, 0);
});

Deno.test("the open loop counts thrown calls and stops starting on abort", async () => {
  const controller = new AbortController();
  let calls = 0;
  const log = await openLoop({
    schedule: [0, 10, 5000],
    startMs: now(),
    signal: controller.signal,
    send: () => () => {
      if (++calls === 2) controller.abort();
      return Promise.reject(new Error("refused"));
    },
  });
  assert.equal(calls, 2);
  assert.equal(log.errors, 2);
  assert.match(log.firstError!, /refused/);
  assert.equal(log.dueAt!.length, 2);
});

Deno.test("closed loops run N calls at once and hand out every index once", async () => {
  let running = 0;
  let most = 0;
  const seen: number[] = [];
  const log = await closedLoops({
    total: 10,
    loops: 3,
    signal: new AbortController().signal,
    send: (i) => async () => {
      seen.push(i);
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
    },
  });
  assert.equal(most, 3);
  assert.deepEqual(seen.sort((a, b) => a - b), [...Array(10).keys()]);
  assert.equal(log.callMs.length, 10);
  assert.equal(log.dueAt, undefined);
});
