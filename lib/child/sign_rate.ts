/**
 * The sign rate of the runtime the app runs on (`--runtime`), measured in
 * a process of that runtime just before a row: RSA-2048 RSASSA-PKCS1-v1_5
 * SHA-256 signatures of a signing-string-sized payload, one at a time on
 * one thread, as the bench's own calibration signs on Deno
 * (`lib/run/calibrate.ts`), in the slices its spec names after a warm-up
 * of a fifth of one.  Writes one `signRate` message with each slice's rate
 * and exits.
 *
 * @module
 */
import { emit, readSpec } from "../ipc/child_io.ts";
import { appRuntime } from "../runtime/mod.ts";
import { RSA_ALGORITHM, rsaSigningKey, SIGNING_STRING } from "./rsa_signer.ts";

/** What the sign-rate process is started with. */
export interface SignRateSpec {
  /** How many slices. */
  readonly slices: number;
  /** Seconds per slice. */
  readonly sliceSeconds: number;
}

async function signFor(key: CryptoKey, ms: number): Promise<number> {
  const started = performance.now();
  const until = started + ms;
  let count = 0;
  do {
    await crypto.subtle.sign(RSA_ALGORITHM, key, SIGNING_STRING);
    count++;
  } while (performance.now() < until);
  return count / ((performance.now() - started) / 1000);
}

if (import.meta.main) {
  try {
    const spec = readSpec<SignRateSpec>();
    const key = await rsaSigningKey();
    const sliceMs = spec.sliceSeconds * 1000;
    await signFor(key, sliceMs / 5);
    const perSecond: number[] = [];
    for (let i = 0; i < spec.slices; i++) {
      perSecond.push(await signFor(key, sliceMs));
    }
    emit({
      type: "signRate",
      runtime: { name: appRuntime.name, version: appRuntime.version },
      perSecond,
    });
    appRuntime.exit(0);
  } catch (error) {
    emit({ type: "error", message: String(error) });
    appRuntime.exit(1);
  }
}
