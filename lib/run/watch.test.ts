/**
 * Watching a run, poll by poll, with made-up times: done after settling,
 * stalled, out of time, progress reports, and the stall's reason.
 */
import assert from "node:assert/strict";
import type { InboxStats } from "../../fake_inbox/protocol.ts";
import { inboxStats } from "../testing/runs.ts";
import { fillingQueue } from "../testing/filling_queue.ts";
import {
  type Progress,
  ProgressWatch,
  settled,
  stallReason,
  type WatchOptions,
} from "./watch.ts";

const EXPECTED = 10;

function stats(delivered: number, requests = delivered): InboxStats {
  return inboxStats(EXPECTED, {
    delivered,
    missing: EXPECTED - delivered,
    requests,
    attempts: requests,
  });
}

function watch(overrides: Partial<WatchOptions> = {}): ProgressWatch {
  return new ProgressWatch({
    id: "test-x1",
    run: 1,
    runs: 1,
    expected: EXPECTED,
    stallSeconds: 2,
    timeoutSeconds: 60,
    startMs: 0,
    ...overrides,
  });
}

Deno.test("done one settling second after every delivery arrived", () => {
  const w = watch();
  const done = { stats: stats(EXPECTED), sent: 1, sendDone: true };
  assert.equal(w.observe({ nowMs: 250, ...done }), "waiting");
  assert.equal(w.observe({ nowMs: 1_000, ...done }), "waiting");
  assert.equal(w.observe({ nowMs: 1_250, ...done }), "done");
});

Deno.test("not done while the send loop still runs", () => {
  const w = watch();
  for (let t = 250; t <= 1_500; t += 250) {
    assert.equal(
      w.observe({ nowMs: t, stats: stats(EXPECTED), sent: t, sendDone: false }),
      "waiting",
    );
  }
});

Deno.test("stalled when nothing moves for the stall window", () => {
  const w = watch();
  const still = { stats: stats(3), sent: 1, sendDone: true };
  assert.equal(w.observe({ nowMs: 250, ...still }), "waiting");
  assert.equal(w.observe({ nowMs: 2_000, ...still }), "waiting");
  assert.equal(w.observe({ nowMs: 2_250, ...still }), "stalled");
});

Deno.test("a new request, send progress or a crash restarts the window", () => {
  const w = watch();
  assert.equal(
    w.observe({ nowMs: 250, stats: stats(3), sent: 1, sendDone: false }),
    "waiting",
  );
  assert.equal(
    w.observe({ nowMs: 2_000, stats: stats(3, 4), sent: 1, sendDone: false }),
    "waiting",
    "a refused attempt is a request too",
  );
  assert.equal(
    w.observe({ nowMs: 3_500, stats: stats(3, 4), sent: 2, sendDone: false }),
    "waiting",
  );
  w.touch(5_000);
  assert.equal(
    w.observe({ nowMs: 6_500, stats: stats(3, 4), sent: 2, sendDone: false }),
    "waiting",
  );
  assert.equal(
    w.observe({ nowMs: 7_000, stats: stats(3, 4), sent: 2, sendDone: false }),
    "stalled",
  );
});

Deno.test("out of time after the time limit, though still moving", () => {
  const w = watch({ timeoutSeconds: 1 });
  assert.equal(
    w.observe({ nowMs: 500, stats: stats(1), sent: 1, sendDone: true }),
    "waiting",
  );
  assert.equal(
    w.observe({ nowMs: 1_000, stats: stats(2), sent: 1, sendDone: true }),
    "timed out",
  );
});

Deno.test("progress about once a second, with the recent rate", () => {
  const reports: Progress[] = [];
  const w = watch({ onProgress: (p) => reports.push(p), run: 2, runs: 3 });
  for (let t = 250; t <= 2_000; t += 250) {
    w.observe({ nowMs: t, stats: stats(t / 250), sent: 1, sendDone: false });
  }
  assert.deepEqual(reports.map((p) => p.elapsedSeconds), [0.25, 1.25]);
  assert.deepEqual(reports[1], {
    id: "test-x1",
    run: 2,
    runs: 3,
    delivered: 5,
    expected: EXPECTED,
    elapsedSeconds: 1.25,
    currentRate: 4,
    sent: 1,
  });
});

Deno.test("settled counts gone recipients as accounted for once attempted", () => {
  const gone = { ...stats(8), goneDeliveries: 2 };
  assert.equal(settled(gone), false, "not yet attempted");
  assert.equal(settled({ ...gone, goneAttempted: 2 }), true);
  assert.equal(settled(stats(9)), false);
});

Deno.test("stallReason names the crashes and a volatile queue's loss", () => {
  assert.equal(
    stallReason({ stallSeconds: 2, missing: 5, crashes: [], driver: "d" }),
    "stalled: no new delivery for 2 s",
  );
  const crashes = [
    { target: "worker" as const, atSeconds: 1, deliveredBefore: 1 },
    { target: "server" as const, atSeconds: 2, deliveredBefore: 2 },
  ];
  assert.equal(
    stallReason({ stallSeconds: 15, missing: 5, crashes, driver: "d" }),
    "stalled after the worker and server crash: 5 deliveries lost " +
      "(no new delivery for 15 s)",
  );
  assert.equal(
    stallReason({
      stallSeconds: 15,
      missing: 5,
      crashes: crashes.slice(0, 1),
      driver: "in-process",
      volatile: true,
    }),
    "stalled after the worker crash: 5 deliveries lost (no new delivery " +
      "for 15 s); in-process keeps its messages in the memory of the " +
      "process that was killed, so it loses them by design",
  );
});

Deno.test("with limits, a run beyond 1.5× its budget is stopped at its budget with an estimate", () => {
  // One delivery every 0.33 s of 100: 33 s in all, against a 20 s budget;
  // its fastest end (the rest taking FASTEST_REST, 0.45, of its estimate:
  // 0.55 t + 14.85 s) never lies past 1.5 × 20 s before the budget, so it
  // is stopped there, not earlier, on a rate that has settled, its
  // estimate beyond 1.5 × the budget.
  const expected = 100;
  const w = watch({
    expected,
    stallSeconds: 30,
    limits: { budgetSeconds: 20, timeoutSeconds: 60 },
  });
  let verdict = "waiting";
  let t = 0;
  while (verdict === "waiting" && t < 60_000) {
    t += 250;
    const delivered = Math.floor(t / 330);
    verdict = w.observe({
      nowMs: t,
      stats: inboxStats(expected, {
        delivered,
        missing: expected - delivered,
        requests: delivered,
        attempts: delivered,
      }),
      sent: 1,
      sendDone: true,
    });
  }
  assert.equal(verdict, "stopped");
  assert.equal(t, 20_000, `stopped at ${t} ms, at the budget`);
  const stop = w.stop!;
  assert.equal(stop.stoppedBy, "budget");
  assert.match(
    stop.reason,
    /^budget of 20 s reached while still delivering, with an estimated total of \d+ s, beyond 1\.5× the budget$/,
  );
  assert.ok(stop.estimate != null);
  assert.ok(stop.estimate.settled);
  assert.ok(stop.estimate.totalSeconds > 30);
});

Deno.test("with limits, a run near its end at its budget runs to its end", () => {
  // One delivery a second of 10 after a slow start: at the 9 s budget, 7
  // are in and the estimate (12 s) is within 1.5 × 9 s.
  const w = watch({
    stallSeconds: 30,
    limits: { budgetSeconds: 9, timeoutSeconds: 60 },
  });
  let verdict = "waiting";
  let t = 0;
  while (verdict === "waiting" && t < 60_000) {
    t += 250;
    verdict = w.observe({
      nowMs: t,
      stats: stats(Math.max(0, Math.min(EXPECTED, Math.floor(t / 1000) - 2))),
      sent: 1,
      sendDone: true,
    });
  }
  assert.equal(verdict, "done");
  assert.ok(t > 12_000, `done at ${t} ms`);
  assert.equal(w.stop, undefined);
});

Deno.test("with limits, a stalled run stalls and gets no stop", () => {
  const w = watch({ limits: { budgetSeconds: 20, timeoutSeconds: 60 } });
  const still = { stats: stats(3), sent: 1, sendDone: true };
  assert.equal(w.observe({ nowMs: 1_000, ...still }), "waiting");
  assert.equal(w.observe({ nowMs: 3_000, ...still }), "stalled");
  assert.equal(w.stop, undefined);
});

Deno.test("with limits, a backlog queue that cannot finish is stopped while its queue still fills, with an estimate from the messages it handed out", () => {
  // 500 activities of 100 deliveries, each hand-out 2 ms plus 0.005 ms per
  // message waiting: about 170 s to fill, hours to drain.
  const queue = fillingQueue(500, 100, 3, 0.002, 0.000005);
  const expected = 50_000;
  const w = new ProgressWatch({
    id: "redis-x1",
    run: 1,
    runs: 1,
    expected,
    stallSeconds: 60,
    timeoutSeconds: 1_200,
    startMs: 0,
    limits: { budgetSeconds: null, timeoutSeconds: 1_200 },
    dequeueMsPerQueued: 0.005,
    fansOut: true,
    parallelism: 1,
  });
  let verdict = "waiting";
  let nowMs = 0;
  for (const [i, [t, delivered]] of queue.deliveries.entries()) {
    nowMs = t * 1000;
    verdict = w.observe({
      nowMs,
      stats: inboxStats(expected, {
        delivered,
        missing: expected - delivered,
        requests: delivered,
        attempts: delivered,
      }),
      sent: 500,
      sendDone: true,
      fanoutsHandled: queue.fanouts[i][1],
      outboxHandlerMs: 2,
    });
    if (verdict !== "waiting") break;
  }
  assert.equal(verdict, "stopped");
  assert.equal(w.filledAtSeconds, null);
  const estimate = w.stop!.estimate!;
  assert.equal(estimate.filling, true);
  assert.ok(estimate.windowHanded! >= 400);
  assert.ok(estimate.lowSeconds > 1_200);
  assert.match(w.stop!.reason, /^stopped at \d+ s: cannot finish within/);
  // Near the end of its fill, not before 90 % of its fanout messages.
  const fanned = queue.fanouts.find(([t]) => t * 1000 >= nowMs)![1];
  assert.ok(fanned >= 450 && fanned < 500, `${fanned} fanout messages`);
  assert.ok(
    estimate.lowSeconds <= queue.end && queue.end <= estimate.highSeconds,
    `${estimate.lowSeconds}–${estimate.highSeconds} s against ${queue.end} s`,
  );
});
