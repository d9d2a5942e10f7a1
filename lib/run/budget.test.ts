import assert from "node:assert/strict";
import { estimateTotal, type TotalEstimate } from "../measure/estimate.ts";
import { MIN_OBSERVED_SECONDS, stopDecision } from "./budget.ts";

/** The estimate of a run at a constant `rate` after `now` seconds. */
function at(now: number, rate: number, expected: number): TotalEstimate {
  const points: [number, number][] = [];
  for (let t = 1; t <= now; t++) points.push([t, t * rate]);
  return estimateTotal({ points, nowSeconds: now, expected })!;
}

const budget = { budgetSeconds: 120, timeoutSeconds: 600 };

Deno.test("a run that will finish within its budget goes on", () => {
  // 100 s at 100/s.
  assert.equal(stopDecision(60, at(60, 100, 10_000), budget), null);
});

Deno.test("a run sure to miss its budget is stopped once observed long enough", () => {
  // 1,000 s at 10/s: even 4× faster, 30 + 9,700 / 40 = 272.5 s > 120 s.
  const early = at(MIN_OBSERVED_SECONDS - 1, 10, 10_000);
  assert.ok(early.lowSeconds > 120);
  assert.equal(stopDecision(MIN_OBSERVED_SECONDS - 1, early, budget), null);
  const decision = stopDecision(
    MIN_OBSERVED_SECONDS,
    at(MIN_OBSERVED_SECONDS, 10, 10_000),
    budget,
  );
  assert.equal(decision?.stoppedBy, "budget");
  assert.match(decision!.reason, /cannot finish within the budget of 120 s/);
});

Deno.test("the budget stops a run still delivering", () => {
  // 200 s at 50/s: the optimistic bound stays under 120 s until late.
  const estimate = at(120, 50, 10_000);
  assert.ok(estimate.lowSeconds <= 140);
  const decision = stopDecision(120, estimate, budget);
  assert.equal(decision?.stoppedBy, "budget");
  assert.equal(
    decision?.reason,
    "budget of 120 s reached while still delivering",
  );
  assert.equal(
    stopDecision(120, null, budget)?.reason,
    "budget of 120 s reached",
  );
});

Deno.test("without a budget the time limit binds", () => {
  const untilDone = { budgetSeconds: null, timeoutSeconds: 600 };
  assert.equal(stopDecision(300, at(300, 50, 10_000), untilDone), null);
  const hopeless = stopDecision(60, at(60, 1, 10_000), untilDone);
  assert.equal(hopeless?.stoppedBy, "time limit");
  assert.match(hopeless!.reason, /within the time limit of 600 s/);
  assert.equal(
    stopDecision(600, null, untilDone)?.reason,
    "timed out after 600 s",
  );
  // A time limit shorter than the budget binds too.
  const short = { budgetSeconds: 120, timeoutSeconds: 60 };
  assert.equal(stopDecision(60, null, short)?.stoppedBy, "time limit");
});

Deno.test("a run is not judged early while its send loop runs", () => {
  const estimate = at(MIN_OBSERVED_SECONDS, 10, 10_000);
  assert.equal(
    stopDecision(MIN_OBSERVED_SECONDS, estimate, budget, false),
    null,
  );
  // The budget itself still holds.
  assert.equal(stopDecision(120, estimate, budget, false)?.stoppedBy, "budget");
});
