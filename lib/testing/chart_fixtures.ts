/**
 * Synthetic results for the charts' tests: configuration results with chosen
 * figures, timelines from per-second counts, a document with one
 * configuration of each kind (fast, stalled, cut off, failed), one of
 * configurations stopped before their end with estimated totals, and a
 * burst row at a constant rate for the back-tests.
 *
 * @module
 */
import { FASTEST_REST } from "../measure/estimate.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
  Series,
  Status,
  Timeline,
} from "../results/mod.ts";

/** The suite parameters of {@link syntheticDocument}: 200 deliveries. */
export const PARAMS = {
  total: 20,
  recipients: 10,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 60,
  stallTimeoutSeconds: 30,
} as const;

/** A configuration result with the given figures and no data by default. */
export function result(
  driver: string,
  parallelism: number,
  status: Status,
  extra: Partial<ConfigurationResult> = {},
): ConfigurationResult {
  return {
    id: parallelism > 1 ? `${driver}-x${parallelism}` : driver,
    driver,
    parallelism,
    status,
    reason: status === "ok" ? null : `${status} on purpose`,
    expected: 200,
    delivered: 0,
    duplicates: 0,
    missing: 200,
    unexpected: 0,
    sendSeconds: null,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: null,
    elapsedSeconds: null,
    sendErrors: 0,
    workers: 1,
    stallTimeoutSeconds: 30,
    timeoutSeconds: 60,
    server: null,
    processes: [],
    ...extra,
  };
}

/** Per-second deliveries and their running total, from per-bucket counts. */
export function timeline(
  counts: readonly number[],
  depth: Series = [],
): Timeline {
  const deliveries: Series = counts.map((count, i) => [i, count]);
  let sum = 0;
  const cumulative: Series = counts.map((count, i) => [i + 1, sum += count]);
  return { bucketSeconds: 1, deliveries, cumulative, queueDepth: depth };
}

/**
 * A document of four configurations: `in-process` (ok, fast), `redis ×4` (ok,
 * a stall, queue depth samples, a spread over runs), `postgres` (incomplete)
 * and `amqp` (failed, no data).
 */
export function syntheticDocument(): ResultsDocument {
  return {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:05:00.000Z",
    params: PARAMS,
    results: [
      result("in-process", 1, "ok", {
        delivered: 200,
        missing: 0,
        sendSeconds: 0.4,
        receiveSeconds: 4,
        totalSeconds: 4.5,
        latencyMs: { p50: 900, p90: 2000, p99: 3500, p999: 4000, max: 4100 },
        timeline: timeline([20, 50, 50, 50, 30]),
      }),
      result("redis", 4, "ok", {
        delivered: 200,
        missing: 0,
        sendSeconds: 0.6,
        receiveSeconds: 9,
        totalSeconds: 9.8,
        latencyMs: { p50: 40, p90: 80, p99: 150, p999: 180, max: 200 },
        // A stall between seconds 3 and 8: flat, then the rest.
        timeline: timeline([40, 60, 20, 0, 0, 0, 0, 0, 50, 30], [
          [0.5, 120],
          [4.5, 80],
          [9.5, 0],
        ]),
        spread: {
          sendSeconds: { min: 0.5, max: 0.8 },
          receiveSeconds: { min: 8.5, max: 11 },
        },
      }),
      result("postgres", 1, "incomplete", {
        delivered: 90,
        missing: 110,
        sendSeconds: 1.2,
        deliveriesPerSecond: 1.5,
        latencyMs: {
          p50: 5000,
          p90: 20000,
          p99: 40000,
          p999: 50000,
          max: 55000,
        },
        timeline: timeline([30, 30, 30]),
      }),
      result("amqp", 1, "failed"),
    ],
  };
}

/**
 * A row its budget stopped at 30 s: its measured send time, `delivered` of
 * 50,000, and its estimated total with the estimate's bounds.
 */
function stopped(
  driver: string,
  parallelism: number,
  delivered: number,
  sendSeconds: number,
  [totalSeconds, lowSeconds, highSeconds]: readonly [number, number, number],
): ConfigurationResult {
  const remaining = 50_000 - delivered;
  const rate = remaining / (totalSeconds - 30);
  return result(driver, parallelism, "incomplete", {
    reason: "stopped at 30 s: cannot finish within the budget of 120 s " +
      `(estimated ${Math.round(totalSeconds)} s; even with the rest ` +
      `taking ${FASTEST_REST} of its estimate, the fastest the back-test ` +
      `has seen, it would end at ${
        Math.round(30 + FASTEST_REST * (totalSeconds - 30))
      } s)`,
    expected: 50_000,
    delivered,
    missing: remaining,
    sendSeconds,
    deliveriesPerSecond: delivered / 30,
    estimate: {
      totalSeconds,
      lowSeconds,
      highSeconds,
      deliveriesPerSecond: rate,
      stoppedBy: "budget",
      basis:
        `${delivered} of 50,000 delivered in 30 s; ${
          rate.toFixed(1)
        }/s over the last 15 s (the recent half of the run); the remaining ` +
        `${remaining} at that rate, bounds: the rest taking 0.4–1.2 of that ` +
        "time, the back-test's range",
    },
  });
}

/**
 * A document of 500 activities × 100 recipients as a default run with a
 * budget leaves it: `in-process` and `sqlite ×4` finished in about a
 * minute or two; `redis` and `postgres ×4` were stopped by the budget with
 * estimated totals of minutes to an hour (bounds up to 4,464 s); `deno-kv`
 * stalled with no rate to estimate from; `amqp` failed; `mysql` was
 * skipped.
 */
export function stoppedDocument(): ResultsDocument {
  const finished = (
    driver: string,
    parallelism: number,
    [sendSeconds, receiveSeconds, totalSeconds]: readonly [
      number,
      number,
      number,
    ],
  ) =>
    result(driver, parallelism, "ok", {
      expected: 50_000,
      delivered: 50_000,
      missing: 0,
      sendSeconds,
      receiveSeconds,
      totalSeconds,
      deliveriesPerSecond: 50_000 / totalSeconds,
    });
  return {
    schemaVersion: 1,
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:24:00.000Z",
    params: { ...PARAMS, total: 500, recipients: 100 },
    results: [
      finished("in-process", 1, [4.0, 78.2, 78.4]),
      finished("sqlite", 4, [3.1, 98.0, 112.9]),
      stopped("redis", 1, 760, 4.3, [2247.1, 584.3, 4464.1]),
      stopped("postgres", 4, 3538, 5.2, [493.7, 146, 957.3]),
      result("deno-kv", 1, "incomplete", {
        reason: "stalled: no new delivery for 30 s",
        expected: 50_000,
        delivered: 12,
        missing: 49_988,
        sendSeconds: 2.5,
      }),
      result("amqp", 1, "failed", {
        reason: "failed to connect to the queue server: connection refused",
        expected: 50_000,
        missing: 50_000,
      }),
      result("mysql", 1, "skipped", {
        reason: "no MariaDB server installed and no URL given",
        expected: 50_000,
        missing: 50_000,
      }),
    ],
  };
}

/**
 * A document of the `fedify2` measurements: `in-process` and `redis` at ×1,
 * each without and with an ordering key (redis's key not honoured, as
 * `@fedify/redis` 1.8.7's), with dead inboxes building a delayed backlog
 * (`delayed.series`) beside each timeline; `in-process` with a key kept
 * order, `redis` with one did not.
 */
export function featureDocument(): ResultsDocument {
  const row = (
    driver: string,
    key: "none" | "object",
    violations: number,
    backlog: readonly number[],
  ) => {
    const supported = driver !== "redis";
    const rate = driver === "redis" ? 25 : 40;
    return result(driver, 1, "ok", {
      id: `${driver}-key-${key}`,
      orderingKey: key,
      expected: 180,
      delivered: 180,
      missing: 0,
      totalSeconds: 180 / rate,
      deliveriesPerSecond: rate,
      latencyMs: { p50: 900, p90: 1500, p99: 2000, p999: 2100, max: 2200 },
      timeline: timeline([rate, rate, rate, rate, 180 - 4 * rate]),
      ordering: {
        key,
        supported,
        note: supported
          ? "keeps a key's messages in order"
          : "not supported by the installed version: @fedify/redis 1.8.7 " +
            "predates orderingKey (Fedify 2.0) and ignores it",
        violations,
      },
      delayed: {
        inboxDeadRate: 0.1,
        deadRecipients: 1,
        deadAttempts: 120,
        peakDelayedBacklog: Math.max(...backlog),
        meanDelayedBacklog: backlog.reduce((a, b) => a + b, 0) /
          backlog.length,
        delayedSource: supported ? "getDepth" : "bench",
        peakDelayedBacklogBench: Math.max(...backlog),
        healthyDeliveriesPerSecond: rate,
        healthyLatencyMs: {
          p50: 900,
          p90: 1500,
          p99: 2000,
          p999: 2100,
          max: 2200,
        },
        series: backlog.map((value, i) => [i + 0.5, value]),
      },
    });
  };
  return {
    schemaVersion: 1,
    startedAt: "2026-11-26T00:00:00Z",
    finishedAt: "2026-11-26T00:10:00Z",
    params: {
      ...PARAMS,
      workload: "cud",
      orderingKey: "none",
      axes: {
        fanout: ["auto"],
        rsaBits: [2048],
        orderingKey: ["none", "object"],
      },
    },
    results: [
      row("in-process", "none", 3, [0, 4, 9, 12, 14]),
      row("in-process", "object", 0, [0, 5, 10, 12, 15]),
      row("redis", "none", 6, [0, 3, 8, 11, 13]),
      row("redis", "object", 5, [0, 4, 9, 13, 16]),
    ],
  };
}

/**
 * A burst row at a constant `rate` with `expected` deliveries, its queue
 * filled at the start; with no `implementation` recorded, no driver's
 * dequeue counts as reading its backlog.
 */
export function steadyRow(
  driver: string,
  rate: number,
  expected: number,
  cutAtSeconds?: number,
): ConfigurationResult {
  const total = expected / rate;
  const end = Math.min(total, cutAtSeconds ?? Infinity);
  const cumulative: [number, number][] = [];
  for (let t = 1; t <= Math.ceil(end); t++) {
    cumulative.push([t, Math.min(expected, Math.round(t * rate))]);
  }
  const finished = cutAtSeconds == null || cutAtSeconds >= total;
  return result(driver, 1, finished ? "ok" : "incomplete", {
    expected,
    delivered: cumulative.at(-1)![1],
    totalSeconds: finished ? total : null,
    elapsedSeconds: end,
    reason: finished ? null : `timed out after ${cutAtSeconds} s`,
    timeline: {
      bucketSeconds: 1,
      deliveries: [],
      cumulative,
      queueDepth: [
        [0, expected],
        [Math.ceil(end), expected - cumulative.at(-1)![1]],
      ],
    },
  });
}
