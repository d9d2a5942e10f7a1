/**
 * The sender app: a real Fedify federation with one actor, `sender`, and the
 * activities and recipients the benchmark sends.
 *
 * @module
 */
import {
  createFederation,
  type Federation,
  MemoryKvStore,
  type MessageQueue,
} from "@fedify/fedify";
import type { TracerProvider } from "@opentelemetry/api";
import { Create, Note, Person, PUBLIC_COLLECTION } from "@fedify/vocab";
import { activityId, inboxUrl, recipientId } from "../../fake_inbox/ledger.ts";

/** The identifier of the one actor that sends every activity. */
export const SENDER = "sender";

/** The sender's key pairs: RSA for HTTP signatures, Ed25519 for proofs. */
export interface SenderKeys {
  /** RSASSA-PKCS1-v1_5 with SHA-256. */
  readonly rsa: CryptoKeyPair;
  /** Ed25519, for Object Integrity Proofs. */
  readonly ed25519: CryptoKeyPair;
  /** The RSA modulus length in bits. */
  readonly rsaBits: number;
}

/** Generates the sender's keys (extractable, as Fedify's queue needs). */
export async function generateSenderKeys(rsaBits = 2048): Promise<SenderKeys> {
  const rsa = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: rsaBits,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  ) as CryptoKeyPair;
  const ed25519 = await crypto.subtle.generateKey(
    "Ed25519",
    true,
    ["sign", "verify"],
  ) as CryptoKeyPair;
  return { rsa, ed25519, rsaBits };
}

/** Options for {@link createSenderFederation}. */
export interface SenderFederationOptions {
  /** The outbox queue, or none for synchronous delivery. */
  readonly queue?: MessageQueue;
  /** The sender's keys; a worker process that only delivers needs none. */
  readonly keys?: SenderKeys;
  /**
   * Receives Fedify's OpenTelemetry spans (stage timing); Fedify's default,
   * the global provider (none registered: no spans), when absent.
   */
  readonly tracerProvider?: TracerProvider;
}

/**
 * Creates the federation of the sender app.  Its queue is never started
 * automatically: the caller starts it with `startQueue` where the deployment
 * it models would.
 */
export function createSenderFederation(
  options: SenderFederationOptions,
): Federation<void> {
  const federation = createFederation<void>({
    kv: new MemoryKvStore(),
    queue: options.queue,
    manuallyStartQueue: true,
    allowPrivateAddress: true,
    ...(options.tracerProvider == null
      ? {}
      : { tracerProvider: options.tracerProvider }),
  });
  const keys = options.keys;
  federation
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
      if (identifier !== SENDER) return null;
      const pairs = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        inbox: ctx.getInboxUri(identifier),
        publicKey: pairs[0]?.cryptographicKey,
        assertionMethods: pairs.map((pair) => pair.multikey),
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => {
      if (identifier !== SENDER || keys == null) return [];
      return [keys.rsa, keys.ed25519];
    });
  federation.setInboxListeners("/users/{identifier}/inbox", "/inbox");
  return federation;
}

/** Where the activities of a run go. */
export interface Audience {
  /** Origin of the fake inbox server, e.g. `http://127.0.0.1:8000`. */
  readonly inboxOrigin: string;
  /** Number of recipients. */
  readonly recipients: number;
}

/** A recipient as Fedify's `sendActivity` takes it. */
export interface BenchRecipient {
  /** The actor id. */
  readonly id: URL;
  /** The actor's personal inbox. */
  readonly inboxId: URL;
  /** No shared inbox: every delivery is addressed to one recipient. */
  readonly endpoints: null;
}

/** The recipients of a run, with explicit inbox ids (no lookups). */
export function makeRecipients(audience: Audience): BenchRecipient[] {
  return Array.from({ length: audience.recipients }, (_, n) => ({
    id: recipientId(audience.inboxOrigin, n),
    inboxId: inboxUrl(audience.inboxOrigin, n),
    endpoints: null,
  }));
}

/** Builds activity number `index`: a `Create(Note)` with a unique id. */
export function makeActivity(
  senderOrigin: string,
  actor: URL,
  runId: string,
  index: number,
  audience: Audience,
): Create {
  const id = activityId(senderOrigin, runId, index);
  const to = [PUBLIC_COLLECTION];
  return new Create({
    id,
    actor,
    tos: to,
    object: new Note({
      id: new URL(`/notes/${runId}/${index}`, senderOrigin),
      attribution: actor,
      tos: to,
      content:
        `Benchmark note ${index} of run ${runId} to ${audience.recipients} recipients.`,
      published: Temporal.Now.instant(),
    }),
  });
}
