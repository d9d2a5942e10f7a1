import assert from "node:assert/strict";
import {
  DEFAULT_BUDGET_OF_NONE,
  DEFAULT_BUDGET_SECONDS,
} from "../params/mod.ts";
import { MIN_OBSERVED_SECONDS } from "./budget.ts";
import { budgetBasis, fixedBudget, resolveBudget } from "./budget_basis.ts";

Deno.test("the default budget is a multiple of the none row when it runs", () => {
  assert.deepEqual(budgetBasis({}, true), {
    kind: "of-none",
    factor: DEFAULT_BUDGET_OF_NONE,
  });
  assert.deepEqual(budgetBasis({ budgetOfNone: 1.5 }, true), {
    kind: "of-none",
    factor: 1.5,
  });
});

Deno.test("seconds given, no none row, or --until-done: no multiple", () => {
  assert.deepEqual(budgetBasis({ budgetSeconds: 45 }, true), {
    kind: "seconds",
    seconds: 45,
    why: "given",
  });
  assert.deepEqual(budgetBasis({ budgetOfNone: 2 }, false), {
    kind: "seconds",
    seconds: DEFAULT_BUDGET_SECONDS,
    why: "no none row",
  });
  assert.deepEqual(
    budgetBasis({ budgetSeconds: 45, untilDone: true }, true),
    { kind: "until-done" },
  );
});

Deno.test("the none row's total sets the budget, never below the least watch", () => {
  const slow = resolveBudget(0.8, { status: "ok", totalSeconds: 58.04 });
  assert.equal(slow.seconds, 46.4);
  assert.equal(slow.factor, 0.8);
  assert.equal(slow.fallback, null);
  assert.match(
    slow.note,
    /budget 46\.4 s a row: 0\.8 × the none row's 58\.0 s/,
  );
  // A small run's none row takes seconds: its rows still get 30 s.
  const small = resolveBudget(0.8, { status: "ok", totalSeconds: 4 });
  assert.equal(small.seconds, MIN_OBSERVED_SECONDS);
  assert.match(small.note, /3\.2 s, raised to the least of 30 s/);
});

Deno.test("a none row that did not finish leaves the fixed budget, and says so", () => {
  const failed = resolveBudget(0.8, { status: "stalled", totalSeconds: null });
  assert.equal(failed.seconds, DEFAULT_BUDGET_SECONDS);
  assert.equal(failed.factor, null);
  assert.equal(failed.fallback, "the none row did not finish (stalled)");
  assert.match(failed.note, /none row did not finish \(stalled\)/);
  assert.match(failed.note, /give --budget S/);
});

Deno.test("a budget in seconds is said before the first row; without a none row, why it is 80 s", () => {
  const given = fixedBudget({ kind: "seconds", seconds: 45, why: "given" });
  assert.equal(given.seconds, 45);
  assert.equal(given.fallback, null);
  assert.match(given.note, /^budget 45 s a row \(--budget\);/);
  const basis = budgetBasis({ budgetOfNone: 2 }, false);
  assert.equal(basis.kind, "seconds");
  if (basis.kind !== "seconds") return;
  const fallback = fixedBudget(basis);
  assert.equal(fallback.seconds, DEFAULT_BUDGET_SECONDS);
  assert.equal(fallback.fallback, "no none row");
  // It names the flag that had nothing to multiply, and the two fixes.
  assert.match(fallback.note, /no none row, so the budget cannot be/);
  assert.match(fallback.note, /--budget-none/);
  assert.match(fallback.note, /give --budget S/);
  assert.match(fallback.note, /add none to the drivers/);
});
