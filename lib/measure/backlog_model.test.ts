/**
 * The backlog model's line a + c × backlog, and what its basis says when the
 * window's own fit is not gone by.
 */
import assert from "node:assert/strict";
import {
  backlogModel,
  FIT_MAX_RELATIVE_ERROR,
  FIT_MIN_BACKLOG_MOVE,
  whyUnfit,
} from "./backlog_model.ts";

// A window of 10 ms per delivery at 2,000 messages waiting on average.
const PER_DELIVERY = 0.01;
const BACKLOG = 2_000;

Deno.test("a fit whose backlog moved enough but whose slope is loose is said to be loose, not to have moved too little", () => {
  const fit = { cMs: 0.002, seMs: 0.002, move: 1.5 };
  assert.ok(fit.move >= FIT_MIN_BACKLOG_MOVE);
  assert.ok(fit.seMs > FIT_MAX_RELATIVE_ERROR * fit.cMs);
  const model = backlogModel(fit, PER_DELIVERY, BACKLOG, 0.004, 5);
  assert.equal(model.from, "handler");
  assert.doesNotMatch(model.source, /too little/);
  assert.match(
    model.source,
    /^the cost fitted on the window, 0\.00200 ms ± 0\.00200 ms where the backlog moved 150 %, is too uncertain to go by \(a fit needs the backlog to move 10 % and a standard error within 25 %\), so the window's time per delivery less the 5\.00 ms/,
  );
});

Deno.test("each reason a fit is not gone by has its own words", () => {
  assert.match(whyUnfit(null), /^the window gave no fit of the cost/);
  assert.match(
    whyUnfit({ cMs: 0.002, seMs: 0.0001, move: 0.05 }),
    /^the window's backlog moved 5 %, too little to fit the cost \(a fit needs/,
  );
  assert.match(
    whyUnfit({ cMs: -0.001, seMs: 0.0001, move: 0.5 }),
    /^the cost fitted on the window, -0\.00100 ms ± 0\.000100 ms where the backlog moved 50 %, is not above zero/,
  );
});

Deno.test("a fit that moved enough, above zero and tight, is gone by", () => {
  const fit = { cMs: 0.002, seMs: 0.0002, move: 0.5 };
  const model = backlogModel(fit, PER_DELIVERY, BACKLOG, 0.004, 5);
  assert.equal(model.from, "fitted");
  assert.equal(model.c, 0.002 / 1000);
  assert.ok(
    Math.abs(model.a - (PER_DELIVERY - 0.002 / 1000 * BACKLOG)) < 1e-12,
  );
});
