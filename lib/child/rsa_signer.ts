/**
 * A worker thread of the all-cores calibration (`lib/run/calibrate.ts`):
 * it makes an RSA-2048 key, says `ready`, and then, for each `{ ms }` it is
 * sent, signs a signing-string-sized payload one signature at a time for
 * that long and answers with how many it made and in how many seconds.
 * Run as many at once as the machine has cores, their rates add up to the
 * parallelism a row of the suite could get.
 *
 * @module
 */

/** What the calibration sends: sign for this many milliseconds. */
export interface SignRequest {
  /** How long to sign, in milliseconds. */
  readonly ms: number;
}

/** What the worker answers: first `ready`, then one count per request. */
export type SignReply =
  | { readonly type: "ready" }
  | { readonly type: "count"; readonly count: number; readonly seconds: number }
  | { readonly type: "error"; readonly message: string };

/** The worker's side of `postMessage`, typed without the worker lib. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<SignRequest>) => void) | null;
  postMessage(message: SignReply): void;
}

/**
 * What an HTTP Signature signs: a few headers, a couple of hundred bytes
 * (the one-thread calibration signs it too).
 */
export const SIGNING_STRING: Uint8Array<ArrayBuffer> = new TextEncoder().encode(
  [
    "(request-target): post /users/calibration/inbox",
    "host: 127.0.0.1",
    "date: Thu, 01 Jan 2026 00:00:00 GMT",
    "digest: SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    "content-type: application/activity+json",
  ].join("\n"),
);

/** The signing algorithm Fedify's RSA keys use. */
export const RSA_ALGORITHM = "RSASSA-PKCS1-v1_5";

/** A fresh RSA-2048 private key, as the calibration signs with. */
export async function rsaSigningKey(): Promise<CryptoKey> {
  const { privateKey } = await crypto.subtle.generateKey(
    {
      name: RSA_ALGORITHM,
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    false,
    ["sign", "verify"],
  );
  return privateKey;
}

if (import.meta.main) {
  const scope = globalThis as unknown as WorkerScope;
  const algorithm = RSA_ALGORITHM;
  try {
    const privateKey = await rsaSigningKey();
    scope.onmessage = async ({ data }) => {
      try {
        const started = performance.now();
        const until = started + data.ms;
        let count = 0;
        do {
          await crypto.subtle.sign(algorithm, privateKey, SIGNING_STRING);
          count++;
        } while (performance.now() < until);
        const seconds = (performance.now() - started) / 1000;
        scope.postMessage({ type: "count", count, seconds });
      } catch (error) {
        scope.postMessage({ type: "error", message: String(error) });
      }
    };
    scope.postMessage({ type: "ready" });
  } catch (error) {
    scope.postMessage({ type: "error", message: String(error) });
  }
}
