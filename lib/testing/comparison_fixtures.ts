/**
 * Synthetic results for the comparison's tests: configurations with chosen
 * medians, spreads and run counts, and calibrations with a ±2% noise.
 *
 * @module
 */
import type {
  Calibration,
  ConfigurationResult,
  Environment,
  ResultsDocument,
  Spread,
  Status,
} from "../results/mod.ts";

const PARAMS = {
  total: 100,
  recipients: 10,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 600,
  stallTimeoutSeconds: 120,
} as const;

/**
 * A configuration whose medians are `receive` seconds, `rate` deliveries/s
 * and `p99` ms, with `spread` over `runs` identical runs.
 */
export function config(
  id: string,
  receive: number,
  rate: number,
  p99: number | null,
  spread: Record<string, Spread> = {},
  status: Status = "ok",
  runs = 1,
): ConfigurationResult {
  const run = {
    status,
    reason: status === "ok" ? null : "something",
    expected: 1000,
    delivered: status === "ok" ? 1000 : 500,
    duplicates: 0,
    missing: status === "ok" ? 0 : 500,
    unexpected: 0,
    sendSeconds: 1,
    receiveSeconds: status === "ok" ? receive : null,
    totalSeconds: status === "ok" ? receive + 1 : null,
    deliveriesPerSecond: rate,
    elapsedSeconds: receive + 1,
    sendErrors: 0,
    workers: 1,
    stallTimeoutSeconds: 120,
    timeoutSeconds: 600,
    server: null,
    processes: [],
    latencyMs: p99 == null
      ? null
      : { p50: p99 / 2, p90: p99 / 2, p99, p999: p99, max: p99 },
  };
  return {
    id,
    driver: id.replace(/-x\d+$/, ""),
    parallelism: 1,
    ...run,
    runs: Array.from({ length: runs }, () => run),
    spread,
  };
}

/**
 * A calibration whose start and end both measured these rates, ±2%: RSA
 * signatures on one thread, loopback POSTs and, when given, RSA signatures
 * on every core (of two).
 */
export function calibration(
  rsa: number,
  loopback: number,
  allCores?: number,
): Calibration {
  const within = (rate: number) => ({ min: rate * 0.98, max: rate * 1.02 });
  const point = {
    measuredAt: "2026-01-01T00:00:00.000Z",
    slices: 3,
    sliceSeconds: 0.5,
    rsaSignsPerSecond: rsa,
    ...(allCores == null
      ? {}
      : { rsaSignsPerSecondAllCores: allCores, threads: 2 }),
    loopbackRequestsPerSecond: loopback,
    spread: {
      rsaSignsPerSecond: within(rsa),
      ...(allCores == null
        ? {}
        : { rsaSignsPerSecondAllCores: within(allCores) }),
      loopbackRequestsPerSecond: within(loopback),
    },
  };
  return { start: point, end: point };
}

/** A machine with nothing known but its calibration, when given. */
export const ENVIRONMENT: Environment = {
  cpu: { model: "test", cores: 2, mhz: null },
  memoryBytes: 0,
  os: { name: "test", kernel: "test", arch: "x86_64" },
  runtime: { deno: "2", v8: "1", typescript: "5" },
  packages: {},
  servers: {},
  senderKeys: "RSA-2048",
  fanout: "auto",
};

/** A results document of these configurations, parameters and calibration. */
export function doc(
  results: ConfigurationResult[],
  params: Partial<ResultsDocument["params"]> = {},
  calibration?: Calibration,
): ResultsDocument {
  return {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T01:00:00.000Z",
    params: { ...PARAMS, ...params },
    ...(calibration == null
      ? {}
      : { environment: { ...ENVIRONMENT, calibration } }),
    results,
  };
}
