import assert from "node:assert/strict";
import { activityId, DeliveryLedger } from "./ledger.ts";

const origin = "http://127.0.0.1:9";
const id = (i: number, run = "run1") => activityId(origin, run, i).href;

Deno.test("DeliveryLedger counts each (activity, recipient) pair once", () => {
  const ledger = new DeliveryLedger({ runId: "run1", total: 2, recipients: 3 });
  assert.equal(ledger.record("/users/0/inbox", id(0), 10), "delivered");
  assert.equal(ledger.record("/users/1/inbox", id(0), 11), "delivered");
  assert.equal(ledger.record("/users/0/inbox", id(1), 12), "delivered");
  assert.equal(ledger.record("/users/0/inbox", id(0), 13), "duplicate");
  assert.equal(ledger.record("/users/0/inbox", id(0), 14), "duplicate");
  const stats = ledger.stats();
  assert.equal(stats.expected, 6);
  assert.equal(stats.delivered, 3);
  assert.equal(stats.duplicates, 2);
  assert.equal(stats.missing, 3);
  assert.equal(stats.unexpected, 0);
  assert.equal(stats.requests, 5);
  assert.equal(stats.firstAt, 10);
  assert.equal(stats.lastAt, 12, "duplicates do not move the last delivery");
  assert.equal(stats.lastRequestAt, 14);
  const arrivals = ledger.arrivals();
  assert.equal(arrivals[0 * 3 + 1], 11);
  assert.ok(Number.isNaN(arrivals[1 * 3 + 2]));
  assert.deepEqual(Array.from(ledger.counts()), [3, 1, 0, 1, 0, 0]);
});

Deno.test("DeliveryLedger classifies unexpected requests", () => {
  const ledger = new DeliveryLedger({ runId: "run1", total: 2, recipients: 3 });
  assert.equal(ledger.record("/inbox", id(0), 1), "bad-path");
  assert.equal(ledger.record("/users/x/inbox", id(0), 1), "bad-path");
  assert.equal(ledger.record("/users/3/inbox", id(0), 1), "bad-recipient");
  assert.equal(ledger.record("/users/0/inbox", undefined, 1), "bad-body");
  assert.equal(ledger.record("/users/0/inbox", "not a url", 1), "bad-body");
  assert.equal(
    ledger.record("/users/0/inbox", id(0, "other"), 1),
    "foreign-activity",
  );
  assert.equal(ledger.record("/users/0/inbox", id(2), 1), "foreign-activity");
  const stats = ledger.stats();
  assert.equal(stats.unexpected, 7);
  assert.equal(stats.delivered, 0);
  assert.equal(stats.firstAt, null);
  assert.deepEqual(ledger.rejections(), {
    "bad-path": 2,
    "bad-recipient": 1,
    "bad-body": 2,
    "foreign-activity": 2,
  });
});

Deno.test("DeliveryLedger with nothing expected counts every arrival as unexpected", () => {
  const ledger = new DeliveryLedger({ runId: "r", total: 0, recipients: 3 });
  assert.notEqual(
    ledger.record("/users/0/inbox", "https://s/r/activities/0", 1),
    "delivered",
  );
  assert.equal(ledger.stats().delivered, 0);
  assert.equal(ledger.stats().unexpected, 1);
  assert.throws(
    () => new DeliveryLedger({ runId: "r", total: -1, recipients: 3 }),
    RangeError,
  );
});
