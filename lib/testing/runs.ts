/**
 * Fixtures for tests of runs: small suite parameters, the exact accounting
 * every delivered configuration must show, and the inbox's counters for
 * tests that judge a run without an inbox.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { InboxStats } from "../../fake_inbox/protocol.ts";
import type { ConfigurationResult, SuiteParams } from "../results/types.ts";

/**
 * Suite parameters for a quick end-to-end run: 4 activities to 6 recipients
 * (24 deliveries, through Fedify's fanout), RSA-2048, a 120-second limit and
 * a 30-second stall window.
 *
 * @param overrides Parameters that differ, e.g. `{ recipients: 3 }`.
 */
export function smallSuiteParams(
  overrides: Partial<SuiteParams> = {},
): SuiteParams {
  return {
    total: 4,
    recipients: 6,
    fanout: "auto",
    rsaBits: 2048,
    timeoutSeconds: 120,
    // Queues that poll widen this window by their declared quiet period.
    stallTimeoutSeconds: 30,
    ...overrides,
  };
}

/**
 * Asserts that a configuration ended `ok` with every one of `expected`
 * deliveries made exactly once: none missing, none twice, none unexpected,
 * and no `sendActivity` error.
 *
 * @param result The configuration's result.
 * @param expected How many deliveries it had to make.
 */
export function assertExactAccounting(
  result: ConfigurationResult,
  expected: number,
): void {
  const r = result;
  assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
  assert.equal(r.expected, expected, r.id);
  assert.equal(r.delivered, r.expected, r.id);
  assert.equal(r.missing, 0, r.id);
  assert.equal(r.duplicates, 0, r.id);
  assert.equal(r.unexpected, 0, r.id);
  assert.equal(r.sendErrors, 0, r.id);
}

/**
 * The fake inbox's counters for `expected` deliveries of which none has
 * arrived, with `overrides` applied: a fixture for tests that build or
 * judge a run without an inbox.
 */
export function inboxStats(
  expected: number,
  overrides: Partial<InboxStats> = {},
): InboxStats {
  return {
    expected,
    delivered: 0,
    duplicates: 0,
    missing: expected,
    unexpected: 0,
    requests: 0,
    firstAt: null,
    lastAt: null,
    lastRequestAt: null,
    attempts: 0,
    retried: 0,
    refused: { error: 0, gone: 0, drop: 0, unverified: 0 },
    goneAttempted: 0,
    rejections: {
      "bad-path": 0,
      "bad-recipient": 0,
      "bad-body": 0,
      "foreign-activity": 0,
    },
    goneDeliveries: 0,
    transport: "deno",
    ...overrides,
  };
}
