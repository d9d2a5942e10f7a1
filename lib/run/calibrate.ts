/**
 * Measures how fast this machine is, right now, at the two things a delivery
 * costs: RSA-2048 signatures (the sender's dominant CPU cost, on one core)
 * and loopback HTTP POSTs (to a trivial server in its own process, as the
 * fake inbox runs).  A suite measures both at its start and its end, so that
 * its results say whether the host's speed changed during the suite, and
 * `deno task compare` can tell a faster host from a faster queue.
 *
 * Each rate is measured in a few short slices; their median is the rate and
 * their min–max the calibration's own noise.
 *
 * @module
 */
import type { CalibrationPoint } from "../results/types.ts";
import { Child } from "../system/process.ts";
import { median, spreadOf } from "../measure/stats.ts";

/** Options of {@link measureCalibration}. */
export interface CalibrationOptions {
  /** Slices per rate (default 3); the spread is over them. */
  readonly slices?: number;
  /** Seconds per slice (default 0.5). */
  readonly sliceSeconds?: number;
  /** Loopback requests in flight at once (default 8). */
  readonly inFlight?: number;
}

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

/** What an HTTP Signature signs: a few headers, a couple of hundred bytes. */
const SIGNING_STRING = new TextEncoder().encode([
  "(request-target): post /users/calibration/inbox",
  "host: 127.0.0.1",
  "date: Thu, 01 Jan 2026 00:00:00 GMT",
  "digest: SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
  "content-type: application/activity+json",
].join("\n"));

/**
 * Measures both rates once: RSA signatures first, then loopback POSTs, each
 * in `slices` slices of `sliceSeconds` after a short warm-up.  Takes about
 * `2 × slices × sliceSeconds` seconds plus a second for the key and the
 * server process.
 * @throws {RangeError} If `slices` or `sliceSeconds` is not positive.
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
  const measuredAt = new Date().toISOString();
  const rsa = await measureRsaSigns(slices, sliceSeconds);
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
    loopbackRequestsPerSecond: median(loopback),
    spread: {
      rsaSignsPerSecond: spreadOf(rsa),
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
  const algorithm = "RSASSA-PKCS1-v1_5";
  const { privateKey } = await crypto.subtle.generateKey(
    {
      name: algorithm,
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    false,
    ["sign", "verify"],
  );
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
