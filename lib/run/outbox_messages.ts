/**
 * Outbox messages shaped like Fedify's, for filling a queue without
 * Fedify: what `deno task dequeue-cost` enqueues, so that a queue reads
 * messages of the size and shape it reads in the bench.
 *
 * @module
 */

/** `bytes` random bytes in base64url, as a JWK's fields are written. */
function base64url(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Makes outbox messages shaped like Fedify's: the activity (a `Create` of a
 * `Note`), the sender's RSA-2048 and Ed25519 private keys as JWKs, and the
 * inbox, each message about `bytes` of JSON and every one distinct
 * (100 inboxes per activity).
 */
export function outboxMessages(
  bytes: number,
): (index: number) => Record<string, unknown> {
  const rsa = {
    kty: "RSA",
    alg: "RS256",
    e: "AQAB",
    n: base64url(256),
    d: base64url(256),
    p: base64url(128),
    q: base64url(128),
    dp: base64url(128),
    dq: base64url(128),
    qi: base64url(128),
    key_ops: ["sign"],
    ext: true,
  };
  const ed25519 = {
    kty: "OKP",
    crv: "Ed25519",
    x: base64url(32),
    d: base64url(32),
    key_ops: ["sign"],
    ext: true,
  };
  const actor = "https://sender.example/users/alice";
  const make = (index: number, content: string) => {
    const activity = Math.floor(index / 100);
    const id = `https://sender.example/activities/${activity}`;
    return {
      type: "outbox",
      id: crypto.randomUUID(),
      baseUrl: "https://sender.example",
      keys: [
        { keyId: `${actor}#main-key`, privateKey: rsa },
        { keyId: `${actor}#ed25519-key`, privateKey: ed25519 },
      ],
      activity: {
        "@context": [
          "https://www.w3.org/ns/activitystreams",
          "https://w3id.org/security/data-integrity/v1",
        ],
        type: "Create",
        id,
        actor,
        to: "https://www.w3.org/ns/activitystreams#Public",
        object: {
          type: "Note",
          id: `https://sender.example/notes/${activity}`,
          attributedTo: actor,
          content,
          published: "2025-01-01T00:00:00Z",
        },
      },
      activityId: id,
      activityType: "https://www.w3.org/ns/activitystreams#Create",
      inbox: `https://recipient${index % 100}.example/inbox`,
      sharedInbox: false,
      started: new Date(0).toISOString(),
      attempt: 0,
      headers: {},
      traceContext: {},
    };
  };
  const bare = JSON.stringify(make(0, "")).length;
  const content = "<p>" + "lorem ipsum ".repeat(
    Math.max(0, Math.ceil((bytes - bare - 7) / 12)),
  ).slice(0, Math.max(0, bytes - bare - 7)) + "</p>";
  return (index) => make(index, content);
}
