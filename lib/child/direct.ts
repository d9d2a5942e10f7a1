/**
 * The floor: every delivery signed and POSTed directly, with the sender's
 * keys, to the same inbox, by a pool of concurrent deliveries as large as a
 * queue worker's parallelism, and no queue at all.  What no queue
 * configuration can beat on this machine.
 *
 * @module
 */
import { signObject, signRequest } from "@fedify/fedify";
import type { Activity } from "@fedify/vocab";
import { now } from "../ipc/child_io.ts";
import type { SenderKeys } from "./federation.ts";
import type { BenchRecipient } from "./federation.ts";

/** Attempts per delivery, as Fedify's default retry policy allows. */
const MAX_ATTEMPTS = 10;

/** Options for {@link sendDirect}. */
export interface DirectOptions {
  /** The sender's keys. */
  readonly keys: SenderKeys;
  /** The sender actor's id; key ids hang off it. */
  readonly actor: URL;
  /** Number of activities. */
  readonly total: number;
  /** Builds activity `index`. */
  readonly activity: (index: number) => Activity;
  /** Where each activity goes. */
  readonly recipients: readonly BenchRecipient[];
  /** Deliveries in flight at once. */
  readonly concurrency: number;
  /** Stops early. */
  readonly signal: AbortSignal;
}

/** Timings of {@link sendDirect}, per activity. */
export interface DirectTimings {
  /** Epoch ms when each activity was prepared (its "call" began). */
  readonly callStarts: number[];
  /** Ms to sign and serialize each activity once. */
  readonly callMs: number[];
  /** Deliveries that failed (non-2xx or network error). */
  readonly errors: number;
  /** The first failure, if any. */
  readonly firstError: string | null;
}

/**
 * Delivers every activity to every recipient: one Object Integrity Proof
 * and one JSON-LD serialization per activity (as Fedify does once per
 * `sendActivity`), one RFC 9421 HTTP signature and POST per delivery.
 */
export async function sendDirect(
  options: DirectOptions,
): Promise<DirectTimings> {
  const { keys, actor, recipients } = options;
  const rsaKeyId = new URL(`${actor.href}#main-key`);
  const edKeyId = new URL(`${actor.href}#key-2`);
  const callStarts: number[] = [];
  const callMs: number[] = [];
  const bodies = new Map<number, Promise<string>>();
  let errors = 0;
  let firstError: string | null = null;
  const prepare = (index: number): Promise<string> => {
    let body = bodies.get(index);
    if (body == null) {
      body = (async () => {
        const started = now();
        callStarts[index] = started;
        const signed = await signObject(
          options.activity(index),
          keys.ed25519.privateKey,
          edKeyId,
        );
        const json = JSON.stringify(
          await signed.toJsonLd({ format: "compact" }),
        );
        callMs[index] = now() - started;
        return json;
      })();
      bodies.set(index, body);
    }
    return body;
  };
  const count = options.total * recipients.length;
  let next = 0;
  const deliver = async () => {
    while (next < count && !options.signal.aborted) {
      const k = next++;
      const index = Math.floor(k / recipients.length);
      const body = await prepare(index);
      if (k % recipients.length === recipients.length - 1) bodies.delete(index);
      const inbox = recipients[k % recipients.length].inboxId;
      // Refused with 5xx or a broken connection: retried at once (the
      // cheapest retry), up to Fedify's default of 10 attempts; a 4xx is
      // final, as Fedify treats 404 and 410.
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        let status: number | undefined;
        try {
          const request = await signRequest(
            new Request(inbox, {
              method: "POST",
              headers: { "content-type": "application/activity+json" },
              body,
            }),
            keys.rsa.privateKey,
            rsaKeyId,
            { spec: "rfc9421" },
          );
          const response = await fetch(request);
          await response.body?.cancel();
          status = response.status;
          if (response.ok) break;
          throw new Error(`HTTP ${response.status} from ${inbox}`);
        } catch (error) {
          if (attempt === MAX_ATTEMPTS || (status != null && status < 500)) {
            errors++;
            firstError ??= String(error);
            break;
          }
        }
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, options.concurrency) }, deliver),
  );
  return { callStarts, callMs, errors, firstError };
}
