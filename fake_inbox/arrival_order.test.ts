import assert from "node:assert/strict";
import { activityId } from "./ledger.ts";
import { objectStep, OrderLedger } from "./arrival_order.ts";
import { serveInbox } from "./inbox_server.ts";

Deno.test("objectStep: three steps per note", () => {
  assert.deepEqual(objectStep(0, 3), { object: 0, step: 0 });
  assert.deepEqual(objectStep(5, 3), { object: 1, step: 2 });
  assert.deepEqual(objectStep(6, 3), { object: 2, step: 0 });
});

Deno.test("OrderLedger: every arrival after a later step counts one", () => {
  // Two notes (activities 0–2 and 3–5), two recipients: pair = a × 2 + r.
  const ledger = new OrderLedger(6, 2, 3);
  const pair = (activity: number, recipient: number) =>
    activity * 2 + recipient;
  // Recipient 0, note 0: Delete, Update, Create → two violations.
  assert.equal(ledger.accept(pair(2, 0)), false);
  assert.equal(ledger.accept(pair(1, 0)), true);
  assert.equal(ledger.accept(pair(0, 0)), true);
  // Recipient 1, note 0 in order: none.
  for (const a of [0, 1, 2]) assert.equal(ledger.accept(pair(a, 1)), false);
  // Recipient 0, note 1: Update, Create, Delete → one.
  assert.equal(ledger.accept(pair(4, 0)), false);
  assert.equal(ledger.accept(pair(3, 0)), true);
  assert.equal(ledger.accept(pair(5, 0)), false);
  // Note 1's order at recipient 1 is its own: Create after note 0's Delete.
  assert.equal(ledger.accept(pair(3, 1)), false);
  assert.equal(ledger.violations, 3);
});

Deno.test("OrderLedger: refuses fewer than two steps", () => {
  assert.throws(() => new OrderLedger(3, 1, 1), RangeError);
});

Deno.test("fake inbox counts order violations over HTTP; duplicates are not judged again", async () => {
  const inbox = await serveInbox({
    runId: "o1",
    total: 3,
    recipients: 1,
    stepsPerObject: 3,
  });
  const origin = `http://127.0.0.1:${inbox.port}`;
  const post = async (i: number) => {
    const response = await fetch(`${origin}/users/0/inbox`, {
      method: "POST",
      body: JSON.stringify({ id: activityId("http://s.test", "o1", i).href }),
    });
    await response.body?.cancel();
  };
  try {
    // Update, Create (a violation), Create again (a duplicate), Delete.
    for (const i of [1, 0, 0, 2]) await post(i);
    const stats = await (await fetch(`${origin}/_bench/stats`)).json();
    assert.equal(stats.orderViolations, 1);
    assert.equal(stats.duplicates, 1);
  } finally {
    await inbox.shutdown();
  }
});

Deno.test("fake inbox reports no order violations for independent activities", async () => {
  const inbox = await serveInbox({ runId: "o2", total: 1, recipients: 1 });
  try {
    const stats = await (await fetch(
      `http://127.0.0.1:${inbox.port}/_bench/stats`,
    )).json();
    assert.equal(stats.orderViolations, undefined);
  } finally {
    await inbox.shutdown();
  }
});
