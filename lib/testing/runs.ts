/**
 * Fixtures for tests of runs: small suite parameters, the exact accounting
 * every delivered configuration must show, the outcome a failing end-to-end
 * test prints (so that a red run can be read without running it again), a
 * log folder that keeps Fedify's log until the test is over, and the
 * inbox's counters for tests that judge a run without an inbox.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { InboxStats } from "../../fake_inbox/protocol.ts";
import { existsSync, readFileSync } from "node:fs";
import type { ConfigurationResult, SuiteParams } from "../results/mod.ts";

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
 * A configuration's outcome, for a failing test's message: its status and
 * reason, the accounting (delivered of expected, duplicates, missing,
 * unexpected, send errors, lost), its crashes and restarts, and the last
 * lines of Fedify's log when the suite kept one (see {@link withLogDir}).
 *
 * @param result The configuration's result.
 * @param logLines How many of the log's last lines to show.
 */
export function describeOutcome(
  result: ConfigurationResult,
  logLines = 20,
): string {
  const r = result;
  const lines = [
    `outcome of ${r.id}: ${r.status}${r.reason == null ? "" : `: ${r.reason}`}`,
    `  delivered ${r.delivered} of ${r.expected}, duplicates ${r.duplicates}, ` +
    `missing ${r.missing}, unexpected ${r.unexpected}, send errors ` +
    `${r.sendErrors}${r.lost == null ? "" : `, lost ${r.lost}`}`,
  ];
  for (const crash of r.crashes ?? []) {
    lines.push(
      `  crash of the ${crash.target} at ${crash.atSeconds} s, after ` +
        `${crash.deliveredBefore} deliveries`,
    );
  }
  for (const restart of r.restarts ?? []) {
    lines.push(`  restart at ${restart.atSeconds} s: ${restart.exit}`);
  }
  const runs = r.runs ?? [];
  if (runs.length > 1) {
    for (const [i, run] of runs.entries()) {
      lines.push(
        `  run ${i + 1}: ${run.status}${
          run.reason == null ? "" : ` (${run.reason})`
        }, delivered ${run.delivered}, duplicates ${run.duplicates}`,
      );
    }
  }
  const log = r.log;
  if (log != null) {
    lines.push(
      `  Fedify's log: ${log.warnings} warnings, ${log.errors} errors`,
    );
    if (log.path != null && existsSync(log.path)) {
      const tail = readFileSync(log.path, "utf8").trimEnd().split("\n")
        .slice(-logLines);
      if (tail.length > 0 && tail[0] !== "") {
        lines.push(`  its last lines (${log.path}):`);
        lines.push(...tail.map((line) => `    ${line}`));
      }
    }
  }
  return lines.join("\n");
}

/**
 * Runs a test's assertions on one configuration's result; when one fails,
 * the failure carries the run's outcome ({@link describeOutcome}), so that
 * a red end-to-end test says why without being run again.
 *
 * @param result The configuration's result.
 * @param check The assertions.
 */
export function assertOutcome(
  result: ConfigurationResult,
  check: (result: ConfigurationResult) => void,
): void {
  try {
    check(result);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n\n${describeOutcome(result)}`, {
      cause: error,
    });
  }
}

/**
 * Runs `fn` with a fresh folder for Fedify's logs (a suite's `logDir`),
 * removed afterwards, so that {@link describeOutcome} can show a failing
 * run's last log lines.
 */
export async function withLogDir<T>(
  fn: (logDir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "bench_test_log_" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * Asserts that a configuration ended `ok` with every one of `expected`
 * deliveries made exactly once: none missing, none twice, none unexpected,
 * and no `sendActivity` error; a failure shows the run's outcome.
 *
 * @param result The configuration's result.
 * @param expected How many deliveries it had to make.
 */
export function assertExactAccounting(
  result: ConfigurationResult,
  expected: number,
): void {
  assertOutcome(result, (r) => {
    assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
    assert.equal(r.expected, expected, r.id);
    assert.equal(r.delivered, r.expected, r.id);
    assert.equal(r.missing, 0, r.id);
    assert.equal(r.duplicates, 0, r.id);
    assert.equal(r.unexpected, 0, r.id);
    assert.equal(r.sendErrors, 0, r.id);
  });
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
