/**
 * Steady load end to end on small runs: a rate run keeps to its schedule
 * and counts latency from it, a queue slower than the offer is judged
 * fallen behind with every delivery still accounted for, the idle
 * measurement reads each process, concurrent senders, and the max-rate
 * search on real probes; and the search's time box with a fake clock.
 */
import assert from "node:assert/strict";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import type { LoadParams, RunResult, SuiteParams } from "../results/types.ts";
import { ServiceManager } from "../services/mod.ts";
import { smallSuiteParams } from "../testing/mod.ts";
import type { RunLoad } from "../workload/plan.ts";
import { runOnce } from "./runner.ts";
import { searchMaxRate } from "./steady.ts";
import { INSTANT_INBOX } from "../../fake_inbox/behaviour.ts";

const inProcess = findDriver(builtinDrivers, "in-process")!;

async function run(
  load: RunLoad,
  overrides: Partial<SuiteParams> = {},
): Promise<RunResult> {
  const services = new ServiceManager();
  try {
    return await runOnce({ driver: inProcess, parallelism: 1 }, {
      id: "test",
      params: smallSuiteParams(overrides),
      services,
      driverModules: [],
      load,
    });
  } finally {
    await services.stopAll();
  }
}

/** An inbox that answers every delivery after `ms`. */
function slowInbox(ms: number): SuiteParams["inbox"] {
  return { ...INSTANT_INBOX, latency: { minMs: ms, maxMs: ms } };
}

const rate = (
  r: number,
  durationSeconds: number,
  drainSeconds: number,
): RunLoad => ({
  kind: "rate",
  rate: r,
  durationSeconds,
  arrivals: "fixed",
  seed: 1,
  drainSeconds,
});

Deno.test({
  name: "a rate run keeps to its schedule and counts latency from it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const r = await run(rate(10, 3, 20), { recipients: 3 });
    assert.equal(r.status, "ok", r.reason ?? "");
    assert.equal(r.expected, 30 * 3);
    assert.equal(r.delivered, r.expected);
    assert.equal(r.duplicates, 0);
    const load = r.load!;
    assert.equal(load.activities, 30);
    assert.equal(load.verdict, "kept-up", JSON.stringify(load));
    assert.ok(Math.abs(load.offeredRate - 10) < 1, `${load.offeredRate}`);
    assert.ok(load.startLagMs != null && load.startLagMs.p50 < 100);
    // The run lasted as long as its schedule, not as its sending allowed.
    assert.ok(r.sendSeconds! >= 2.8, `${r.sendSeconds}`);
    assert.ok(r.latencyMs != null && r.latencyMs.p50 > 0);
    assert.ok(load.backlog.length >= 3);
  },
});

Deno.test({
  name:
    "a queue slower than the offer falls behind; what never came is missing",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // One delivery at a time, 200 ms each: 5 deliveries, 1 activity a
    // second at most, against 4 offered.
    const r = await run(rate(4, 4, 3), {
      recipients: 5,
      inbox: slowInbox(200),
    });
    const load = r.load!;
    assert.equal(load.verdict, "fell-behind", JSON.stringify(load));
    assert.ok(load.achievedRate < load.offeredRate - load.noise);
    assert.ok(load.backlogAtEnd > 20, `${load.backlogAtEnd}`);
    assert.equal(r.status, "incomplete");
    assert.match(
      r.reason!,
      /^fell behind: \d+ of 80 deliveries had not arrived 3 s after/,
    );
    assert.equal(r.delivered + r.missing, r.expected);
    assert.ok(r.missing > 0);
    // Latency counts from the schedule: the last activities waited seconds.
    assert.ok(r.latencyMs!.max > 1000, `${r.latencyMs!.max}`);
  },
});

Deno.test({
  name: "the idle measurement reads every process of the app with nothing sent",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const r = await run({ kind: "idle", seconds: 1 });
    assert.equal(r.status, "ok");
    assert.equal(r.expected, 0);
    assert.equal(r.delivered, 0);
    const idle = r.idle!;
    assert.equal(idle.seconds, 1);
    const [sender] = idle.processes;
    assert.equal(sender.role, "sender");
    assert.ok(sender.cpuPercent != null && sender.cpuPercent >= 0);
    assert.ok(sender.rssBytes != null && sender.rssBytes > 10_000_000);
    assert.ok(sender.wakeups != null && sender.wakeups >= 0);
    assert.ok(!idle.processes.some((p) => p.role === "inbox"));
  },
});

Deno.test({
  name: "concurrent senders: N closed loops send TOTAL, and their rate is kept",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const r = await run({ kind: "senders", senders: 4 }, { total: 12 });
    assert.equal(r.status, "ok", r.reason ?? "");
    assert.equal(r.delivered, 12 * 6);
    assert.equal(r.senders, 4);
    assert.ok(r.callsPerSecond! > 0);
    assert.ok(r.sendCallMs != null);
  },
});

Deno.test({
  name: "the max-rate search brackets what a slow queue sustains",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 2 recipients, one 100 ms delivery at a time: 5 activities a second.
    const load: LoadParams = {
      rates: [],
      durationSeconds: 3,
      arrivals: "fixed",
      seed: 1,
      drainSeconds: 5,
      senders: [],
      maxRate: { latencyBoundMs: 2000, timeBoxSeconds: 120, startRate: 2 },
    };
    const r = await searchMaxRate({
      load,
      recipients: 2,
      ceiling: Infinity,
      probe: (probe) => run(probe, { recipients: 2, inbox: slowInbox(100) }),
    });
    const maxRate = r.maxRate!;
    assert.ok(maxRate.activitiesPerSecond != null, JSON.stringify(maxRate));
    assert.ok(maxRate.activitiesPerSecond <= 6, JSON.stringify(maxRate));
    assert.ok(maxRate.lowestFailedRate! > maxRate.activitiesPerSecond);
    assert.equal(maxRate.deliveriesPerSecond, maxRate.activitiesPerSecond * 2);
    assert.deepEqual(maxRate.probes.slice(0, 2).map((p) => p.rate), [2, 4]);
    assert.ok(maxRate.probes.some((p) => !p.passed));
    // The result is the best passing probe's run.
    assert.equal(r.load!.nominalRate, maxRate.activitiesPerSecond);
    assert.equal(r.status, "ok");
  },
});

Deno.test("the max-rate search stops at its time box and says so", async () => {
  let now = 0;
  const probes: number[] = [];
  const r = await searchMaxRate({
    load: {
      rates: [],
      durationSeconds: 10,
      arrivals: "fixed",
      seed: 1,
      drainSeconds: 5,
      senders: [],
      maxRate: { latencyBoundMs: 1000, timeBoxSeconds: 60, startRate: 1 },
    },
    recipients: 3,
    ceiling: Infinity,
    clock: () => now,
    probe: (load) => {
      const rate = load.kind === "rate" ? load.rate : 0;
      probes.push(rate);
      now += 21_000;
      return Promise.resolve(
        {
          status: "ok",
          missing: 0,
          latencyMs: { p50: 1, p90: 1, p99: 1, p999: 1, max: 1 },
          load: { verdict: "kept-up", nominalRate: rate },
        } as unknown as RunResult,
      );
    },
  });
  // Each probe takes 21 s and is counted at 10 + 3 + 8 s: the third would
  // end past 60 s.
  assert.deepEqual(probes, [1, 2]);
  assert.equal(r.maxRate!.stoppedBy, "time-box");
  assert.equal(r.maxRate!.activitiesPerSecond, 2);
  assert.equal(r.maxRate!.deliveriesPerSecond, 6);
});
