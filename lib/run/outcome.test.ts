/**
 * The result of a run from its observations, without processes: the
 * accounting of deliveries, the status and its reason, the timing figures
 * and the shape of the result.
 */
import assert from "node:assert/strict";
import type { InboxArrivals, InboxStats } from "../../fake_inbox/protocol.ts";
import type { SentMessage } from "../ipc/messages.ts";
import { inboxStats as inboxStatsFor } from "../testing/runs.ts";
import { buildRunResult, type RunObservations } from "./outcome.ts";
import { cpuMsPerDelivery } from "../measure/stats.ts";

const START = 1_700_000_000_000;
const TOTAL = 2;
const RECIPIENTS = 3;
const EXPECTED = TOTAL * RECIPIENTS;

/**
 * The keys every result has, in the order a results file has them
 * (`duplicatesPerActivity` follows `duplicates` when something arrived twice).
 */
const KEYS = [
  "status",
  "reason",
  "receiveSeconds",
  "totalSeconds",
  "deliveriesPerSecond",
  "elapsedSeconds",
  "expected",
  "delivered",
  "duplicates",
  "missing",
  "unexpected",
  "attempts",
  "retried",
  "gone",
  "sendSeconds",
  "sendErrors",
  "workers",
  "stallTimeoutSeconds",
  "timeoutSeconds",
  "server",
  "processes",
  "latencyMs",
  "sendCallMs",
  "cpuMsPerDelivery",
  "serverCpuMsPerDelivery",
  "implementation",
  "timeline",
];

function inboxStats(overrides: Partial<InboxStats>): InboxStats {
  return inboxStatsFor(EXPECTED, overrides);
}

const sent: SentMessage = {
  type: "sent",
  sendStart: START,
  sendEnd: START + 500,
  callStarts: [START, START + 250],
  callMs: [10, 20],
  sendErrors: 0,
  firstError: null,
};

/** Every pair arrived; the last one 2 s after the first call. */
const arrivals: InboxArrivals = {
  firstArrival: [
    START + 100,
    START + 110,
    START + 120,
    START + 400,
    START + 500,
    START + 2_000,
  ],
  counts: [1, 1, 2, 1, 1, 1],
  attempts: [1, 1, 2, 1, 1, 1],
};

function observations(
  overrides: Partial<RunObservations> & Pick<RunObservations, "end">,
): RunObservations {
  return {
    expected: EXPECTED,
    recipients: RECIPIENTS,
    crashTest: false,
    crashes: [],
    restarts: [],
    processes: [],
    depth: [],
    workers: 1,
    stallTimeoutSeconds: 10,
    timeoutSeconds: 60,
    server: null,
    implementation: null,
    ...overrides,
  };
}

const record = (role: string, pid: number, cpuSeconds: number) => ({
  role,
  pid,
  cpuSeconds,
  peakRssBytes: 1_000,
});

Deno.test("an ok run: every delivery, its times, rates and CPU", () => {
  const r = buildRunResult(observations({
    end: { status: "ok" },
    stats: inboxStats({
      delivered: 6,
      duplicates: 1,
      missing: 0,
      requests: 7,
      attempts: 7,
      retried: 1,
      firstAt: START + 100,
      lastAt: START + 2_000,
    }),
    arrivals,
    sent,
    processes: [
      record("server", 1, 0.3),
      record("inbox", 2, 0.1),
      { role: "worker", pid: 3, cpuSeconds: 0.3, peakRssBytes: 7 },
      record("sender", 4, 0.6),
    ],
    server: { name: "redis", version: "7", startedByBench: true },
  }));
  assert.deepEqual(
    Object.keys(r),
    [
      ...KEYS.slice(0, KEYS.indexOf("duplicates") + 1),
      "duplicatesPerActivity", // only when something arrived twice
      ...KEYS.slice(KEYS.indexOf("duplicates") + 1),
    ],
    "the results file's shape",
  );
  assert.equal(r.status, "ok");
  assert.equal(r.reason, null);
  assert.equal(r.delivered, 6);
  assert.equal(r.duplicates, 1);
  assert.deepEqual(r.duplicatesPerActivity, [1], "pair 2: activity 0");
  assert.equal(r.missing, 0);
  assert.equal(r.attempts, 7);
  assert.equal(r.retried, 1);
  assert.equal(r.gone, 0);
  assert.equal(r.totalSeconds, 2, "first call to last delivery");
  assert.equal(r.receiveSeconds, 1.9, "first to last delivery");
  assert.equal(r.elapsedSeconds, 2);
  assert.equal(r.deliveriesPerSecond, 3);
  assert.equal(r.sendSeconds, 0.5);
  assert.equal(r.sendCallMs?.max, 20);
  // Latency: arrival minus its activity's call start (activity 1 at +250).
  assert.equal(r.latencyMs?.max, 1_750);
  assert.ok(r.latencyMs!.p50 >= 100 && r.latencyMs!.p50 <= 160);
  assert.deepEqual(r.processes[2], {
    role: "worker",
    pid: 3,
    cpuSeconds: 0.3,
    peakRssBytes: 7,
  });
  assert.equal(r.cpuMsPerDelivery, 150, "sender and worker: 0.9 s / 6");
  assert.equal(r.serverCpuMsPerDelivery, 50, "server: 0.3 s / 6");
  assert.equal(r.timeline?.cumulative.at(-1)?.[1], 6);
  assert.equal(r.crashes, undefined, "no crash test, no crash fields");
});

Deno.test("an incomplete crash test: its reason, the rate so far, the lost", () => {
  const crashes = [
    { target: "worker" as const, atSeconds: 1.2, deliveredBefore: 3 },
  ];
  const r = buildRunResult(observations({
    end: { status: "incomplete", reason: "stalled", endedAt: START + 8_000 },
    crashTest: true,
    crashes,
    stats: inboxStats({ delivered: 4, goneDeliveries: 1, firstAt: START }),
    sent,
  }));
  assert.deepEqual(Object.keys(r), [
    ...KEYS.slice(0, KEYS.indexOf("gone") + 1),
    "crashes",
    "restarts",
    "lost",
    ...KEYS.slice(KEYS.indexOf("gone") + 1),
  ]);
  assert.equal(r.status, "incomplete");
  assert.equal(r.reason, "stalled");
  assert.equal(r.receiveSeconds, null);
  assert.equal(r.totalSeconds, null);
  assert.equal(r.elapsedSeconds, 8, "first call to the end of waiting");
  assert.equal(r.deliveriesPerSecond, 0.5, "delivered so far / elapsed");
  assert.equal(r.gone, 1);
  assert.equal(r.missing, 1, "expected - delivered - gone");
  assert.equal(r.lost, 1);
  assert.deepEqual(r.crashes, crashes);
  assert.deepEqual(r.restarts, []);
  assert.equal(r.latencyMs, null, "no arrivals read");
  assert.equal(r.timeline, null);
});

Deno.test("a crash test that has not struck yet has lost nothing", () => {
  const r = buildRunResult(observations({
    end: { status: "incomplete", reason: "interrupted", endedAt: START },
    crashTest: true,
    stats: inboxStats({ delivered: 2 }),
  }));
  assert.equal(r.lost, 0);
  assert.equal(r.missing, 4);
  assert.equal(r.elapsedSeconds, null, "the send loop never finished");
  assert.equal(r.deliveriesPerSecond, null);
  assert.equal(r.sendSeconds, null);
});

Deno.test("a run that failed before sending: nothing delivered, no figures", () => {
  const r = buildRunResult(observations({
    end: { status: "failed", reason: "worker process exited with code 3" },
    processes: [
      { role: "inbox", pid: 2, cpuSeconds: null, peakRssBytes: null },
      { role: "worker", pid: 3, cpuSeconds: null, peakRssBytes: null },
    ],
  }));
  assert.deepEqual(Object.keys(r), KEYS);
  assert.equal(r.status, "failed");
  assert.equal(r.reason, "worker process exited with code 3");
  assert.equal(r.delivered, 0);
  assert.equal(r.missing, EXPECTED);
  assert.equal(r.duplicates, 0);
  assert.equal(r.attempts, 0);
  assert.equal(r.deliveriesPerSecond, null);
  assert.equal(r.elapsedSeconds, null);
  assert.equal(r.sendSeconds, null);
  assert.equal(r.sendErrors, 0);
  assert.equal(r.sendCallMs, null);
  assert.equal(r.latencyMs, null);
  assert.equal(r.cpuMsPerDelivery, null);
  assert.equal(r.serverCpuMsPerDelivery, null);
  assert.equal(r.timeline, null);
  assert.deepEqual(r.processes, [
    { role: "inbox", pid: 2, cpuSeconds: null, peakRssBytes: null },
    { role: "worker", pid: 3, cpuSeconds: null, peakRssBytes: null },
  ]);
});

Deno.test("an ok run without the inbox's counters is a contradiction", () => {
  assert.throws(
    () => buildRunResult(observations({ end: { status: "ok" }, sent })),
    TypeError,
  );
});

Deno.test("cpuMsPerDelivery: null unless every process was read", () => {
  assert.equal(cpuMsPerDelivery([0.1, 0.2], 3), 100);
  assert.equal(cpuMsPerDelivery([], 3), null, "no such process");
  assert.equal(cpuMsPerDelivery([0.1, null], 3), null, "one unreadable");
  assert.equal(cpuMsPerDelivery([0.1], 0), null, "nothing delivered");
});

Deno.test("duplicates per activity: extra arrivals grouped by activity, largest first", () => {
  const r = buildRunResult(observations({
    end: { status: "ok" },
    stats: inboxStats({ delivered: 6, duplicates: 5, missing: 0 }),
    // Activity 1's three deliveries all twice (a fanout message run twice),
    // and one of activity 0's three times.
    arrivals: { ...arrivals, counts: [1, 3, 1, 2, 2, 2] },
    sent,
  }));
  assert.deepEqual(r.duplicatesPerActivity, [3, 2]);
  const none = buildRunResult(observations({
    end: { status: "ok" },
    stats: inboxStats({ delivered: 6, missing: 0 }),
    arrivals: { ...arrivals, counts: [1, 1, 1, 1, 1, 1] },
    sent,
  }));
  assert.equal("duplicatesPerActivity" in none, false);
});

Deno.test("a run stopped by its budget mid-send: its rate from the start, its estimate", () => {
  const estimate = {
    totalSeconds: 12,
    lowSeconds: 6,
    highSeconds: 21,
    deliveriesPerSecond: 0.5,
    stoppedBy: "budget" as const,
    basis: "3 of 6 delivered in 4 s; …",
  };
  const r = buildRunResult(observations({
    end: {
      status: "incomplete",
      reason: "budget of 4 s reached while still delivering",
      endedAt: START + 4_000,
      estimate,
    },
    stats: inboxStats({ delivered: 3, missing: 3, requests: 3 }),
    arrivals: {
      firstArrival: [START + 100, START + 110, START + 3_000, null, null, null],
      counts: [1, 1, 1, 0, 0, 0],
      attempts: [1, 1, 1, 0, 0, 0],
    },
    // The sender's start message came; its send loop never ended.
    started: START,
  }));
  assert.equal(r.status, "incomplete");
  assert.equal(r.totalSeconds, null);
  assert.equal(r.sendSeconds, null);
  assert.equal(r.elapsedSeconds, 4);
  assert.equal(r.deliveriesPerSecond, 0.75);
  assert.deepEqual(r.estimate, estimate);
  assert.ok(r.timeline != null, "a timeline from the sender's start");
  // A run that ended otherwise carries no estimate.
  const stalled = buildRunResult(observations({
    end: { status: "incomplete", reason: "stalled", endedAt: START + 4_000 },
    started: START,
  }));
  assert.equal(stalled.estimate, undefined);
});
