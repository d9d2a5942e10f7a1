/**
 * A synthetic steady-load results document for the report's and the
 * schema's tests: the load generator's row, and for two configurations an
 * idle row, rate rows at two rates (one that keeps up, one that falls
 * behind), a senders row and a max-rate row, one of whose searches found
 * no sustained rate.
 *
 * @module
 */
import { result } from "./chart_fixtures.ts";
import type {
  ConfigurationResult,
  IdleRecord,
  LoadParams,
  LoadRecord,
  MaxRateRecord,
  Percentiles,
  ResultsDocument,
  RunResult,
  Series,
} from "../results/mod.ts";

/** The steady-load settings of {@link steadyDocument}. */
export const LOAD_PARAMS: LoadParams = {
  rates: [8, 64],
  durationSeconds: 10,
  arrivals: "poisson",
  seed: 1,
  drainSeconds: 30,
  senders: [8],
  maxRate: { latencyBoundMs: 5000, timeBoxSeconds: 300, startRate: 4 },
  idleSeconds: 20,
};

/** Recipients per activity in {@link steadyDocument}. */
const RECIPIENTS = 10;

/** Percentiles from a median, each next one `factor` times the one before. */
function percentiles(p50: number, factor = 2): Percentiles {
  return {
    p50,
    p90: p50 * factor,
    p99: p50 * factor ** 2,
    p999: p50 * factor ** 3,
    max: p50 * factor ** 4,
  };
}

/** A backlog that stays near `level`, or grows by `growth` a second. */
function backlog(seconds: number, level: number, growth = 0): Series {
  const out: Series = [];
  for (let t = 0; t <= seconds; t += 0.5) {
    out.push([t, Math.round(level + growth * t + (t * 7 % 3))]);
  }
  return out;
}

/** The load record of a rate run at `rate`. */
export function loadRecord(
  rate: number,
  extra: Partial<LoadRecord> = {},
): LoadRecord {
  return {
    nominalRate: rate,
    arrivals: "poisson",
    durationSeconds: 10,
    activities: rate * 10,
    offeredRate: rate * 1.02,
    achievedRate: rate,
    noise: Math.max(rate * 0.03, 0.2),
    backlogSlope: 0.1,
    backlogSlopeError: 0.3,
    verdict: "kept-up",
    backlogAtEnd: 3,
    backlog: backlog(10, 2),
    startLagMs: percentiles(0.2),
    ...extra,
  };
}

/** A rate row (`${base}-rate-${rate}`) whose runs are `runs`. */
function rateRow(
  driver: string,
  parallelism: number,
  load: LoadRecord,
  extra: Partial<ConfigurationResult> = {},
): ConfigurationResult {
  const expected = load.activities * RECIPIENTS;
  const base = result(driver, parallelism, "ok", {
    expected,
    delivered: expected,
    missing: 0,
    sendSeconds: load.durationSeconds,
    receiveSeconds: load.durationSeconds,
    totalSeconds: load.durationSeconds + 0.2,
    deliveriesPerSecond: expected / (load.durationSeconds + 0.2),
    elapsedSeconds: load.durationSeconds + 0.2,
    latencyMs: percentiles(20),
    sendCallMs: percentiles(2),
    cpuMsPerDelivery: 1.5,
    load,
    ...extra,
  });
  return { ...base, id: `${base.id}-rate-${load.nominalRate}` };
}

/** The idle row of a configuration. */
function idleRow(
  driver: string,
  parallelism: number,
  idle: IdleRecord,
): ConfigurationResult {
  const base = result(driver, parallelism, "ok", {
    expected: 0,
    delivered: 0,
    missing: 0,
    totalSeconds: 0,
    receiveSeconds: 0,
    deliveriesPerSecond: 0,
    idle,
  });
  return { ...base, id: `${base.id}-idle` };
}

/** The idle processes: sender, `workers` workers, and a server if any. */
function idleRecord(cpu: number, workers: number, server: boolean) {
  let pid = 100;
  const process = (role: string, share: number) => ({
    role,
    pid: pid++,
    cpuPercent: cpu * share,
    rssBytes: 80 * 1024 * 1024,
    wakeups: Math.round(cpu * share * 200),
  });
  return {
    seconds: LOAD_PARAMS.idleSeconds!,
    processes: [
      process("sender", 0.3),
      ...Array.from({ length: workers }, () => process("worker", 0.5)),
      ...(server ? [{ ...process("server", 0.2), wakeups: null }] : []),
    ],
  } satisfies IdleRecord;
}

/** The max-rate row of a configuration: the best probe's run with `record`. */
function maxRateRow(
  driver: string,
  parallelism: number,
  record: MaxRateRecord,
  run: ConfigurationResult,
): ConfigurationResult {
  const base = result(driver, parallelism, "ok");
  return { ...run, id: `${base.id}-max-rate`, maxRate: record };
}

/**
 * A steady-load document: `generator`; `redis` with idle, rate 8 (kept up,
 * two runs), rate 64 (fell behind, incomplete), 8 senders and a capacity of
 * 16/s within 9.4%, p99 within the bound there; `postgres ×4` with idle,
 * rate 8, rate 64 (kept up) and a max-rate search, recorded as files before
 * the capacity fields did, in which nothing passed.
 */
export function steadyDocument(): ResultsDocument {
  const generator: ConfigurationResult = {
    ...result("generator", 1, "ok", {
      expected: 0,
      delivered: 0,
      missing: 0,
      sendSeconds: 5,
      receiveSeconds: 0,
      totalSeconds: 5,
      deliveriesPerSecond: 0,
      elapsedSeconds: 5,
      senders: 16,
      callsPerSecond: 265.5,
      sendCallMs: percentiles(54, 1.9),
    }),
  };
  const redis8Runs: RunResult[] = [7.9, 8.1].map((achieved) => {
    const { id: _id, driver: _d, parallelism: _p, ...run } = rateRow(
      "redis",
      1,
      loadRecord(8, { achievedRate: achieved }),
      { latencyMs: percentiles(achieved * 2.5) },
    );
    return run;
  });
  const redis8 = rateRow("redis", 1, loadRecord(8), {
    runs: redis8Runs,
    spread: { latencyP99Ms: { min: 63.2, max: 64.8 } },
  });
  const redis64 = rateRow(
    "redis",
    1,
    loadRecord(64, {
      achievedRate: 41.5,
      verdict: "fell-behind",
      backlogSlope: 220,
      backlogSlopeError: 4,
      backlogAtEnd: 2200,
      backlog: backlog(10, 0, 220),
    }),
    {
      status: "incomplete",
      reason: "1,200 deliveries still missing after draining for 30 s",
      delivered: 5200,
      missing: 1200,
      totalSeconds: null,
      receiveSeconds: null,
      deliveriesPerSecond: 130,
      latencyMs: percentiles(4000),
    },
  );
  const redisSenders = {
    ...result("redis", 1, "ok", {
      delivered: 200,
      missing: 0,
      sendSeconds: 0.5,
      receiveSeconds: 2,
      totalSeconds: 2.2,
      deliveriesPerSecond: 90.9,
      sendCallMs: percentiles(12),
      senders: 8,
      callsPerSecond: 40,
    }),
    id: "redis-senders-8",
  };
  const postgres8 = rateRow("postgres", 4, loadRecord(8));
  const postgres64 = rateRow("postgres", 4, loadRecord(64), {
    latencyMs: percentiles(300),
  });
  const redisBest = rateRow("redis", 1, loadRecord(16));
  const postgresLowest = rateRow(
    "postgres",
    4,
    loadRecord(4, { verdict: "fell-behind", achievedRate: 3.1 }),
    {
      status: "incomplete",
      reason: "p99 over the bound",
      delivered: 390,
      missing: 10,
      totalSeconds: null,
      receiveSeconds: null,
      latencyMs: percentiles(3000),
    },
  );
  return {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T01:00:00.000Z",
    params: {
      total: 20,
      recipients: RECIPIENTS,
      fanout: "auto",
      rsaBits: 2048,
      timeoutSeconds: 60,
      stallTimeoutSeconds: 30,
      load: LOAD_PARAMS,
      scenario: "steady",
    },
    results: [
      generator,
      idleRow("redis", 1, idleRecord(0.8, 1, true)),
      redis8,
      redis64,
      redisSenders,
      maxRateRow("redis", 1, {
        activitiesPerSecond: 16,
        deliveriesPerSecond: 160,
        latencyBoundMs: 5000,
        p99AtCapacityMs: 90,
        latencyBoundMet: true,
        resolution: 0.094,
        stoppedBy: "bracketed",
        lowestFailedRate: 17.5,
        probes: [
          {
            rate: 4,
            passed: true,
            status: "ok",
            verdict: "kept-up",
            p99Ms: 40,
            missing: 0,
            offeredRate: 4.1,
            achievedRate: 4.1,
            backlogBounded: true,
          },
          {
            rate: 16,
            passed: true,
            status: "ok",
            verdict: "kept-up",
            p99Ms: 90,
            missing: 0,
            offeredRate: 16.2,
            achievedRate: 16.1,
          },
          {
            rate: 64,
            passed: false,
            status: "incomplete",
            verdict: "fell-behind",
            p99Ms: 9000,
            missing: 400,
            offeredRate: 64.3,
            achievedRate: 17.9,
          },
          {
            rate: 17.5,
            passed: false,
            status: "ok",
            verdict: "fell-behind",
            p99Ms: 2100,
            missing: 0,
            offeredRate: 17.6,
            achievedRate: 16.8,
            backlogBounded: false,
          },
        ],
        seconds: 120.4,
      }, redisBest),
      idleRow("postgres", 4, idleRecord(6.5, 2, true)),
      postgres8,
      postgres64,
      maxRateRow("postgres", 4, {
        activitiesPerSecond: null,
        deliveriesPerSecond: null,
        latencyBoundMs: 5000,
        stoppedBy: "lowest-failed",
        lowestFailedRate: 4,
        probes: [
          {
            rate: 4,
            passed: false,
            status: "incomplete",
            verdict: "fell-behind",
            p99Ms: 12000,
            missing: 10,
          },
        ],
        seconds: 30,
      }, postgresLowest),
    ],
  };
}
