/**
 * Synthetic results for the charts' tests: configuration results with chosen
 * figures, timelines from per-second counts, and a document with one
 * configuration of each kind (fast, stalled, cut off, failed).
 *
 * @module
 */
import type {
  ConfigurationResult,
  ResultsDocument,
  Series,
  Status,
  Timeline,
} from "../results/types.ts";

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
