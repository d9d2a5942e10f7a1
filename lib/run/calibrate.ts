/**
 * Measures how fast this machine is, right now, at the two things a delivery
 * costs: RSA-2048 signatures (the sender's dominant CPU cost), on one thread
 * and on as many threads as the machine has cores (worker threads, so that
 * it sees the parallelism a row can get: a competitor busy on one core
 * slows a one-thread figure little and an all-cores figure much), and
 * loopback HTTP POSTs (to a trivial server in its own process, as the fake
 * inbox runs).  A suite measures them at its start and its end, and briefly
 * before every row, so that its results say whether and when the host's
 * speed changed during the suite, and `deno task compare` can tell a faster
 * host from a faster queue.
 *
 * Each rate is measured in a few short slices; their median is the rate and
 * their min–max the calibration's own noise.
 *
 * @module
 */
import type { CalibrationPoint, RuntimeIdentity } from "../results/mod.ts";
import {
  RSA_ALGORITHM,
  rsaSigningKey,
  SIGNING_STRING,
  type SignReply,
} from "../child/rsa_signer.ts";
import { Child, type Launcher } from "../system/process.ts";
import type { SignRateSpec } from "../child/sign_rate.ts";
import { median, spreadOf } from "../measure/stats.ts";

/** Options of {@link measureCalibration}. */
export interface CalibrationOptions {
  /** Slices per rate (default 3); the spread is over them. */
  readonly slices?: number;
  /** Seconds per slice (default 0.5). */
  readonly sliceSeconds?: number;
  /** Loopback requests in flight at once (default 8). */
  readonly inFlight?: number;
  /** Threads of the all-cores RSA rate (default: the machine's cores). */
  readonly threads?: number;
}

/**
 * The options of the short calibration taken before each row of a suite:
 * 3 slices of 0.25 s per rate, about 3 s in all with the worker threads and
 * the server process.
 */
export const ROW_CALIBRATION: CalibrationOptions = {
  slices: 3,
  sliceSeconds: 0.25,
};

/** How long a worker thread may take to start or answer, in ms. */
const WORKER_TIMEOUT_MS = 30_000;

const DEFAULT_SLICES = 3;
const DEFAULT_SLICE_SECONDS = 0.5;
const DEFAULT_IN_FLIGHT = 8;

/** About the size of a signed `Create(Note)` as the fake inbox receives it. */
const BODY = JSON.stringify({
  "@context": "https://www.w3.org/ns/activitystreams",
  type: "Create",
  id: "http://sender.test/calibration",
  content: "x".repeat(1900),
});

/** The machine's logical cores, as Deno sees them (at least 1). */
export function machineThreads(): number {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/**
 * Measures every rate once: RSA signatures on one thread, then on
 * `threads` threads, then loopback POSTs, each in `slices` slices of
 * `sliceSeconds` after a short warm-up.  Takes about
 * `3 × slices × sliceSeconds` seconds plus a second for the keys, the
 * threads and the server process.
 * @throws {RangeError} If `slices`, `sliceSeconds` or `threads` is not
 *   positive.
 */
export async function measureCalibration(
  options: CalibrationOptions = {},
): Promise<CalibrationPoint> {
  const slices = options.slices ?? DEFAULT_SLICES;
  const sliceSeconds = options.sliceSeconds ?? DEFAULT_SLICE_SECONDS;
  if (!Number.isInteger(slices) || slices < 1) {
    throw new RangeError(`slices must be a positive integer, got ${slices}`);
  }
  if (!(sliceSeconds > 0)) {
    throw new RangeError(`sliceSeconds must be positive, got ${sliceSeconds}`);
  }
  const threads = options.threads ?? machineThreads();
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`threads must be a positive integer, got ${threads}`);
  }
  const measuredAt = new Date().toISOString();
  const rsa = await measureRsaSigns(slices, sliceSeconds);
  const allCores = await measureRsaSignsOnThreads(
    threads,
    slices,
    sliceSeconds,
  );
  const loopback = await measureLoopback(
    slices,
    sliceSeconds,
    options.inFlight ?? DEFAULT_IN_FLIGHT,
  );
  return {
    measuredAt,
    slices,
    sliceSeconds,
    rsaSignsPerSecond: median(rsa),
    rsaSignsPerSecondAllCores: median(allCores),
    threads,
    loopbackRequestsPerSecond: median(loopback),
    spread: {
      rsaSignsPerSecond: spreadOf(rsa),
      rsaSignsPerSecondAllCores: spreadOf(allCores),
      loopbackRequestsPerSecond: spreadOf(loopback),
    },
  };
}

/**
 * RSA-2048 RSASSA-PKCS1-v1_5 SHA-256 signatures of a signing-string-sized
 * payload per second, one at a time (one core), in each of `slices` slices.
 */
export async function measureRsaSigns(
  slices: number,
  sliceSeconds: number,
): Promise<number[]> {
  const algorithm = RSA_ALGORITHM;
  const privateKey = await rsaSigningKey();
  const sign = () => crypto.subtle.sign(algorithm, privateKey, SIGNING_STRING);
  return await inSlices(slices, sliceSeconds, async (until) => {
    let count = 0;
    do {
      await sign();
      count++;
    } while (performance.now() < until);
    return count;
  });
}

/**
 * RSA-2048 signatures per second on `threads` worker threads at once, each
 * signing one at a time, in each of `slices` slices: the sum of the
 * threads' rates.  The threads start (and make their keys) before the
 * warm-up and are terminated at the end, whatever happens.
 * @throws {Error} When a thread fails or does not answer within 30 s.
 */
export async function measureRsaSignsOnThreads(
  threads: number,
  slices: number,
  sliceSeconds: number,
): Promise<number[]> {
  const workers: Worker[] = [];
  try {
    const replies: ((ms?: number) => Promise<SignReply>)[] = [];
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(
        new URL("../child/rsa_signer.ts", import.meta.url),
        { type: "module" },
      );
      workers.push(worker);
      replies.push(workerChannel(worker));
    }
    await Promise.all(replies.map((next) => next()));
    const slice = async (ms: number) => {
      const counts = await Promise.all(replies.map((next) => next(ms)));
      return counts.reduce(
        (sum, reply) =>
          sum + (reply.type === "count" ? reply.count / reply.seconds : 0),
        0,
      );
    };
    const sliceMs = sliceSeconds * 1000;
    await slice(sliceMs / 5);
    const rates: number[] = [];
    for (let i = 0; i < slices; i++) rates.push(await slice(sliceMs));
    return rates;
  } finally {
    for (const worker of workers) worker.terminate();
  }
}

/**
 * A worker's replies one at a time: each call sends `{ ms }` when given
 * and resolves with the next reply; rejects on an `error` reply, a failed
 * worker, or no reply within {@link WORKER_TIMEOUT_MS}.
 */
function workerChannel(
  worker: Worker,
): (ms?: number) => Promise<SignReply> {
  const queue: SignReply[] = [];
  let waiting: ((reply: SignReply) => void) | null = null;
  let failure: Error | null = null;
  let fail: ((error: Error) => void) | null = null;
  worker.onmessage = (event: MessageEvent<SignReply>) => {
    if (waiting != null) waiting(event.data);
    else queue.push(event.data);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    failure = new Error(`calibration thread failed: ${event.message}`);
    fail?.(failure);
  };
  return (ms) => {
    if (ms != null) worker.postMessage({ ms });
    return new Promise<SignReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting = fail = null;
        reject(
          new Error(
            `calibration thread did not answer within ${
              WORKER_TIMEOUT_MS / 1000
            } s`,
          ),
        );
      }, WORKER_TIMEOUT_MS);
      const settle = (reply: SignReply) => {
        clearTimeout(timer);
        waiting = fail = null;
        if (reply.type === "error") {
          reject(new Error(`calibration thread failed: ${reply.message}`));
        } else resolve(reply);
      };
      fail = (error) => {
        clearTimeout(timer);
        waiting = fail = null;
        reject(error);
      };
      if (failure != null) return fail(failure);
      const queued = queue.shift();
      if (queued != null) settle(queued);
      else waiting = settle;
    });
  };
}

/**
 * Loopback HTTP POSTs of a 2 KB JSON body per second, `inFlight` at once,
 * to a trivial server in its own process, in each of `slices` slices.
 *
 * The server runs as a child process, as the fake inbox does in a run: the
 * rate then covers both processes on both cores and the kernel's loopback
 * between them, which is what a host's other load slows down.  In one
 * process, client and server would share one JavaScript thread and measure
 * that thread alone.
 */
export async function measureLoopback(
  slices: number,
  sliceSeconds: number,
  inFlight: number,
): Promise<number[]> {
  const server = Child.spawn({
    role: "calibration server",
    script: new URL("../child/calibration_server.ts", import.meta.url),
    spec: {},
  });
  try {
    const ready = await server.waitFor("ready", 30_000);
    const url = `http://127.0.0.1:${ready.port}/inbox`;
    const post = async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/activity+json" },
        body: BODY,
      });
      await response.body?.cancel();
      if (response.status !== 202) {
        throw new Error(
          `calibration server answered ${response.status}, expected 202`,
        );
      }
    };
    return await inSlices(slices, sliceSeconds, async (until) => {
      let count = 0;
      await Promise.all(Array.from({ length: inFlight }, async () => {
        do {
          await post();
          count++;
        } while (performance.now() < until);
      }));
      return count;
    });
  } finally {
    await server.stop();
  }
}

/**
 * RSA-2048 signatures per second on one thread of the runtime `launcher`
 * starts (`lib/child/sign_rate.ts`), the app's runtime (`--runtime`), in
 * each of `slices` slices, as {@link measureRsaSigns} measures the bench's
 * own (Deno).
 * @throws {Error} When the process fails or does not answer within 30 s.
 */
export async function measureAppSignRate(
  launcher: Launcher,
  slices: number,
  sliceSeconds: number,
): Promise<{ runtime: RuntimeIdentity; perSecond: readonly number[] }> {
  const child = Child.spawn({
    role: "sign rate",
    script: new URL("../child/sign_rate.ts", import.meta.url),
    spec: { slices, sliceSeconds } satisfies SignRateSpec,
    launcher,
  });
  try {
    const { runtime, perSecond } = await child.waitFor(
      "signRate",
      WORKER_TIMEOUT_MS + slices * sliceSeconds * 1000,
    );
    return { runtime, perSecond };
  } finally {
    await child.stop();
  }
}

/**
 * Runs `work` (which counts operations, at least one, until the deadline it
 * is given) once as a warm-up of a fifth of a slice, then once per slice, and
 * returns each slice's operations per second of its actual duration.
 */
async function inSlices(
  slices: number,
  sliceSeconds: number,
  work: (until: number) => Promise<number>,
): Promise<number[]> {
  const sliceMs = sliceSeconds * 1000;
  await work(performance.now() + sliceMs / 5);
  const rates: number[] = [];
  for (let i = 0; i < slices; i++) {
    const started = performance.now();
    const count = await work(started + sliceMs);
    const seconds = (performance.now() - started) / 1000;
    rates.push(count / seconds);
  }
  return rates;
}

/**
 * One calibration for several runs' own: each rate the median of theirs,
 * its spread the min and max over all their slices; the time, slices and
 * threads of the first.  The all-cores rate only when every point has it.
 * @throws {RangeError} If `points` is empty.
 */
export function combineCalibrations(
  points: readonly CalibrationPoint[],
): CalibrationPoint {
  if (points.length === 0) throw new RangeError("no calibrations to combine");
  if (points.length === 1) return points[0];
  const [first] = points;
  const combined = (
    pick: (p: CalibrationPoint) => number,
    spread: (p: CalibrationPoint) => { min: number; max: number },
  ) => ({
    value: median(points.map(pick)),
    spread: {
      min: Math.min(...points.map((p) => spread(p).min)),
      max: Math.max(...points.map((p) => spread(p).max)),
    },
  });
  const rsa = combined(
    (p) => p.rsaSignsPerSecond,
    (p) => p.spread.rsaSignsPerSecond,
  );
  const loopback = combined(
    (p) => p.loopbackRequestsPerSecond,
    (p) => p.spread.loopbackRequestsPerSecond,
  );
  const all = points.every((p) =>
      p.rsaSignsPerSecondAllCores != null &&
      p.spread.rsaSignsPerSecondAllCores != null
    )
    ? combined(
      (p) => p.rsaSignsPerSecondAllCores!,
      (p) => p.spread.rsaSignsPerSecondAllCores!,
    )
    : null;
  return {
    measuredAt: first.measuredAt,
    slices: first.slices,
    sliceSeconds: first.sliceSeconds,
    rsaSignsPerSecond: rsa.value,
    ...(all == null
      ? {}
      : { rsaSignsPerSecondAllCores: all.value, threads: first.threads }),
    loopbackRequestsPerSecond: loopback.value,
    spread: {
      rsaSignsPerSecond: rsa.spread,
      ...(all == null ? {} : { rsaSignsPerSecondAllCores: all.spread }),
      loopbackRequestsPerSecond: loopback.spread,
    },
  };
}
