/**
 * The stop rule: a row near its end at its budget runs to its end, a row is
 * stopped early only when clearly beyond its budget on a settled rate, and
 * the time limit always binds.
 */
import assert from "node:assert/strict";
import { estimateTotal, type TotalEstimate } from "../measure/estimate.ts";
import { estimateWhenFanned, fillingQueue } from "../testing/filling_queue.ts";
import {
  fastestEnd,
  limitsNote,
  MIN_OBSERVED_SECONDS,
  resolvedBudget,
  StopRule,
} from "./budget.ts";
import { NEAR_END } from "../params/mod.ts";

/** The estimate of a run at a constant `rate` after `now` seconds. */
function at(now: number, rate: number, expected: number): TotalEstimate {
  const points: [number, number][] = [];
  for (let t = 1; t <= now; t++) points.push([t, t * rate]);
  return estimateTotal({ points, nowSeconds: now, expected })!;
}

/** The estimate of a run whose rate doubles every 10 s, after `now` s. */
function speedingUp(now: number, expected: number): TotalEstimate {
  const points: [number, number][] = [];
  let delivered = 0;
  for (let t = 1; t <= now; t++) {
    delivered += 2 ** Math.floor(t / 10);
    points.push([t, delivered]);
  }
  return estimateTotal({ points, nowSeconds: now, expected })!;
}

const budget = { budgetSeconds: 120, timeoutSeconds: 600 };

Deno.test("a run that will finish within its budget goes on", () => {
  // 100 s at 100/s.
  assert.equal(new StopRule(budget).decide(60, at(60, 100, 10_000)), null);
});

Deno.test("a run clearly beyond its budget on a settled rate is stopped once observed long enough", () => {
  // 1,000 s at 30/s: even with its rest taking FASTEST_REST of its
  // estimate it ends at 30 + 0.45 × 29,100 / 30 = 466.5 s, beyond 1.5 ×
  // 120 s; its 15 s window holds 450 deliveries, enough to judge a rate by.
  const early = at(MIN_OBSERVED_SECONDS - 1, 30, 30_000);
  assert.ok(
    early.settled &&
      fastestEnd(early, MIN_OBSERVED_SECONDS - 1) > NEAR_END * 120,
  );
  assert.equal(
    new StopRule(budget).decide(MIN_OBSERVED_SECONDS - 1, early),
    null,
  );
  const decision = new StopRule(budget).decide(
    MIN_OBSERVED_SECONDS,
    at(MIN_OBSERVED_SECONDS, 30, 30_000),
  );
  assert.equal(decision?.stoppedBy, "budget");
  assert.match(
    decision!.reason,
    /cannot finish within 1\.5× the budget of 120 s \(estimated 1,000 s; even with the rest taking 0\.45 of its estimate, the fastest the back-test has seen, it would end at 467 s\)/,
  );
});

Deno.test("a run whose optimistic bound lies past the limit, but not the fastest rest the back-test has seen, goes on", () => {
  // Deno KV consumed by the sender ×4 in results/default-1200-amd-repeat:
  // at 202 s an estimate of about 1,740 s, its optimistic bound (the rest
  // taking 0.7 of it) 1,280 s, past the limit of 1,200 s; the same row had
  // finished in 1,009 s in the run before, at the same commit on the same
  // host.  With the rest taking FASTEST_REST of its estimate it would end
  // at 202 + 0.45 × 1,538 = 894 s: the rule lets it run.
  const now = 202;
  const expected = 50_000;
  const rate = 8_600 / now;
  const estimate = at(now, rate, Math.round(rate * 1_740));
  assert.ok(estimate.settled);
  assert.ok(estimate.lowSeconds > 1_200, `${estimate.lowSeconds} s`);
  assert.ok(fastestEnd(estimate, now) < 1_200);
  const limits = { budgetSeconds: null, timeoutSeconds: 1_200 };
  assert.equal(new StopRule(limits).decide(now, estimate), null);
  // Later, with a rest too long even for that, it is stopped.
  const hopeless = at(now, rate, expected * 4);
  assert.ok(fastestEnd(hopeless, now) > 1_200);
  assert.equal(
    new StopRule(limits).decide(now, hopeless)?.stoppedBy,
    "time limit",
  );
});

Deno.test("a window cut short where the queue filled does not stop a run early until it spans half the watch", () => {
  // 30/s, hopeless against the budget, but the queue filled at 50 s: at
  // 52 s the window is 2 s long; from 65 s it spans 15 s.
  const points: [number, number][] = [];
  for (let t = 1; t <= 70; t++) points.push([t, t * 30]);
  const estimate = (now: number) =>
    estimateTotal({
      points,
      nowSeconds: now,
      expected: 30_000,
      filledAtSeconds: 50,
    })!;
  const rule = new StopRule(budget);
  assert.ok(estimate(52).settled && estimate(52).lowSeconds > NEAR_END * 120);
  assert.equal(rule.decide(52, estimate(52)), null);
  assert.equal(rule.decide(64, estimate(64)), null);
  assert.equal(rule.decide(65, estimate(65))?.stoppedBy, "budget");
});

Deno.test("a rate that has not settled never stops a run early", () => {
  const estimate = speedingUp(40, 1_000_000);
  assert.equal(estimate.settled, false);
  assert.match(estimate.basis, /the rate has not settled/);
  assert.ok(estimate.lowSeconds > NEAR_END * 120);
  assert.equal(new StopRule(budget).decide(40, estimate), null);
});

Deno.test("a run near its end at its budget runs to its end, up to the time limit", () => {
  // 10,000 at 60/s: 167 s, within 1.5 × 120 s.
  const rule = new StopRule(budget);
  assert.equal(rule.decide(120, at(120, 60, 10_000)), null);
  assert.ok(rule.runsToEnd);
  // From then on only the time limit binds: a row that slowed down goes on
  // while it can still finish within it.
  assert.equal(rule.decide(300, at(300, 20, 10_000)), null);
  assert.equal(
    rule.decide(600, at(600, 2, 10_000))?.reason,
    "timed out after 600 s",
  );
});

Deno.test("a run beyond 1.5× its budget is stopped at its budget, with its estimate", () => {
  // 10,000 at 50/s: 200 s.
  const estimate = at(120, 50, 10_000);
  assert.ok(estimate.lowSeconds <= NEAR_END * 120);
  const rule = new StopRule(budget);
  const decision = rule.decide(120, estimate);
  assert.equal(decision?.stoppedBy, "budget");
  assert.equal(
    decision?.reason,
    "budget of 120 s reached while still delivering, with an estimated " +
      "total of 200 s, beyond 1.5× the budget",
  );
  assert.equal(rule.runsToEnd, false);
  assert.equal(decision?.estimate, estimate);
  assert.equal(
    new StopRule(budget).decide(120, null)?.reason,
    "budget of 120 s reached",
  );
});

Deno.test("without a budget the time limit binds", () => {
  const untilDone = { budgetSeconds: null, timeoutSeconds: 600 };
  assert.equal(new StopRule(untilDone).decide(300, at(300, 50, 10_000)), null);
  const hopeless = new StopRule(untilDone).decide(60, at(60, 20, 100_000));
  assert.equal(hopeless?.stoppedBy, "time limit");
  assert.match(hopeless!.reason, /within the time limit of 600 s/);
  assert.equal(
    new StopRule(untilDone).decide(600, null)?.reason,
    "timed out after 600 s",
  );
  // A time limit shorter than the budget binds too.
  const short = { budgetSeconds: 120, timeoutSeconds: 60 };
  assert.equal(new StopRule(short).decide(60, null)?.stoppedBy, "time limit");
});

Deno.test("with --no-early-stop a hopeless run goes on to its time limit, and keeps its estimate there", () => {
  const limits = { budgetSeconds: null, timeoutSeconds: 600, earlyStop: false };
  const rule = new StopRule(limits);
  // The run the rule above stops at 60 s goes on …
  assert.equal(rule.decide(60, at(60, 20, 100_000)), null);
  assert.equal(rule.decide(599, at(599, 20, 100_000)), null);
  // … to the time limit, where its settled estimate stays with it.
  const end = rule.decide(600, at(600, 20, 100_000));
  assert.equal(end?.stoppedBy, "time limit");
  assert.equal(end?.reason, "timed out after 600 s");
  assert.ok(end?.estimate != null);
  assert.match(
    limitsNote({ timeoutSeconds: 600, earlyStop: false }),
    /up to its time limit of 600 s \(--timeout\); none is stopped earlier on its estimate \(--no-early-stop\)$/,
  );
  assert.doesNotMatch(
    limitsNote({ timeoutSeconds: 600, budgetSeconds: 30, earlyStop: false }),
    /sure by its measured rate/,
  );
});

Deno.test("a run is not judged early while its send loop runs", () => {
  const estimate = at(MIN_OBSERVED_SECONDS, 10, 10_000);
  assert.equal(
    new StopRule(budget).decide(MIN_OBSERVED_SECONDS, estimate, false),
    null,
  );
  // The budget itself still holds.
  assert.equal(
    new StopRule(budget).decide(120, estimate, false)?.stoppedBy,
    "budget",
  );
});

Deno.test("a run stopped at its budget before its rate settled carries no estimate, and says why", () => {
  // 10,000 at 50/s, but its queue still filling: the rate is not its pace.
  const points: [number, number][] = [];
  for (let t = 1; t <= 120; t++) points.push([t, t * 50]);
  const filling = estimateTotal({
    points,
    nowSeconds: 120,
    expected: 10_000,
    filledAtSeconds: null,
  })!;
  assert.equal(filling.settled, false);
  const decision = new StopRule(budget).decide(120, filling);
  assert.equal(decision?.stoppedBy, "budget");
  assert.equal(decision?.estimate, null);
  assert.equal(
    decision?.reason,
    "budget of 120 s reached while still delivering, before its rate had " +
      "settled (its queue was still filling (not every activity's fanout " +
      "handled), so its consumer still shared its time with fanning out); " +
      "6,000 delivered by then, and no estimate of its total, as none rests " +
      "on a pace the run had not settled into",
  );
  // A rate that sped up has not settled either.
  const faster = speedingUp(120, 1_000_000);
  assert.equal(faster.settled, false);
  const sped = new StopRule(budget).decide(120, faster);
  assert.equal(sped?.estimate, null);
  assert.match(
    sped!.reason,
    /before its rate had settled \([\d.]+\/s, then [\d.]+\/s over the two halves of the last 60 s\)/,
  );
  // The time limit keeps only a settled estimate too.
  const untilDone = { budgetSeconds: null, timeoutSeconds: 120 };
  assert.equal(new StopRule(untilDone).decide(120, filling)?.estimate, null);
});

Deno.test("a run stopped at its budget a moment after its queue filled carries no estimate", () => {
  // 50/s throughout, its queue filled at 119 s: at the 120 s budget the
  // window since then spans 1 s, its halves alike, yet too short to judge by.
  const points: [number, number][] = [];
  for (let t = 0.25; t <= 120; t += 0.25) points.push([t, t * 50]);
  const late = (filledAtSeconds: number) =>
    estimateTotal({
      points,
      nowSeconds: 120,
      expected: 50_000,
      filledAtSeconds,
    })!;
  assert.ok(late(119).settled);
  const decision = new StopRule(budget).decide(120, late(119));
  assert.equal(decision?.stoppedBy, "budget");
  assert.equal(decision?.estimate, null);
  assert.match(
    decision!.reason,
    /before its rate had settled \(its rate held over only the last 1 s, under the 15 s a rate is judged over\); 6,000 delivered by then/,
  );
  // Filled 15 s before the budget: the window is long enough.
  const judged = new StopRule(budget).decide(120, late(105));
  assert.equal(judged?.estimate?.totalSeconds, 1000);
});

Deno.test("a backlog queue cut off while it fills says how its cost per message waiting moved, to three figures", () => {
  // About 0.01 ms per message waiting: two decimals would print
  // "0.01 to 0.01 ms", which says nothing of how it moved.
  const queue = fillingQueue(100, 100, 3, 0.002, 0.00002);
  const { nowSeconds: now, estimate: early } = estimateWhenFanned(queue, 50);
  assert.equal(early?.settled, false);
  const limit = { budgetSeconds: null, timeoutSeconds: now };
  const decision = new StopRule(limit).decide(now, early);
  assert.equal(decision?.estimate, null);
  assert.match(
    decision!.reason,
    /its queue still filled: .* \(it went from 0\.00874 ms to 0\.0106 ms over the two halves of the last 4 s\)/,
  );
});

Deno.test("a row stopped on an estimate that falls with its backlog names why its queue slows", () => {
  // 30/s against a time limit of 600 s, on a queue whose dequeue reads its
  // backlog.
  const points: [number, number][] = [];
  for (let t = 1; t <= 40; t++) points.push([t, t * 30]);
  const estimate = estimateTotal({
    points,
    nowSeconds: 40,
    expected: 100_000,
    dequeueMsPerQueued: 0.001,
  })!;
  const cause = "@fedify/redis 2.3.5 reads its whole ready set";
  const limits = { budgetSeconds: null, timeoutSeconds: 600 };
  const decision = new StopRule(limits, cause).decide(40, estimate);
  assert.equal(decision?.stoppedBy, "time limit");
  assert.match(
    decision!.reason,
    /cannot finish within the time limit of 600 s \(estimated [\d,]+ s; even with the rest taking 0\.45 of its estimate, the fastest the back-test has seen, it would end at [\d,]+ s\): @fedify\/redis 2\.3\.5 reads its whole ready set$/,
  );
  // Without a backlog in its estimate, no such cause.
  const plain = estimateTotal({ points, nowSeconds: 40, expected: 100_000 })!;
  assert.doesNotMatch(
    new StopRule(limits, cause).decide(40, plain)!.reason,
    /ready set/,
  );
});

Deno.test("the note before the first row says what holds each row", () => {
  assert.match(
    limitsNote({ timeoutSeconds: 1200 }),
    /^each row runs to its last delivery, up to its time limit of 1,200 s \(--timeout\); a row whose own measured rate shows it cannot finish within that .* is stopped earlier/,
  );
  assert.match(
    limitsNote({ timeoutSeconds: 600, budgetSeconds: 30 }),
    /^budget 30 s a row \(--budget\)/,
  );
  assert.match(
    limitsNote({ timeoutSeconds: 600, budgetSeconds: 30, untilDone: true }),
    /^each row runs to its last delivery/,
  );
});

Deno.test("a backlog queue still filling is judged over the messages it handed out, fanout messages included", () => {
  const limits = { budgetSeconds: null, timeoutSeconds: 1_200 };
  // Settled, far beyond the limit, over 120 deliveries but 500 messages
  // handed out: the fanout messages count towards the 400 a rate is
  // judged over.
  const base = at(200, 0.6, 50_000);
  const filling: TotalEstimate = {
    ...base,
    settled: true,
    filling: true,
    windowDeliveries: 120,
    windowHanded: 500,
    lowSeconds: 20_000,
  };
  const decision = new StopRule(limits).decide(200, filling);
  assert.ok(decision != null);
  assert.match(decision.reason, /^stopped at 200 s: cannot finish/);
  // Without the fanout messages, 120 deliveries are too few to judge by.
  const { windowHanded: _, ...deliveriesOnly } = filling;
  assert.equal(new StopRule(limits).decide(200, deliveriesOnly), null);
});

Deno.test("resolvedBudget: --until-done lifts --budget; none without one", () => {
  assert.equal(resolvedBudget({ budgetSeconds: 30 }), 30);
  assert.equal(resolvedBudget({ budgetSeconds: 30, untilDone: true }), null);
  assert.equal(resolvedBudget({ untilDone: false }), null);
  assert.equal(resolvedBudget({}), null);
});
