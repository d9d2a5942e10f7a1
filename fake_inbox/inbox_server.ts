/**
 * The fake inbox server: accepts every recipient's inbox POST and records
 * each (activity, recipient) attempt and arrival in a {@link DeliveryLedger}.
 * By default it answers 202 at once; an {@link InboxProfile} makes it slow,
 * failing, gone, connection-dropping or signature-verifying on purpose.
 * Run as its own process by the runner, or embedded with {@link serveInbox}.
 *
 * Control endpoints (GET, at the paths of {@link INBOX_PATHS}, read with
 * `InboxClient`): `stats` returns {@link InboxStats}; `arrivals` returns
 * first-arrival times, acceptances and attempts per pair.
 *
 * @module
 */
import http from "node:http";
import { verifyRequest } from "@fedify/fedify";
import type { CryptographicKey, Multikey } from "@fedify/vocab";
import { getDocumentLoader } from "@fedify/vocab-runtime";
import { control, emit, now, readSpec } from "../lib/ipc/child_io.ts";
import { sleep } from "../lib/system/sleep.ts";
import type { InboxProfile } from "../lib/results/mod.ts";
import { Behaviour, needsDrops } from "./behaviour.ts";
import { INSTANT_INBOX } from "../lib/params/mod.ts";
import { DeliveryLedger, type Expectation } from "./ledger.ts";
import { OrderLedger } from "./arrival_order.ts";
import { DeadInboxes, deadRecipients, serveDeadInboxes } from "./dead.ts";
import {
  INBOX_PATHS,
  type InboxArrivals,
  type InboxStats,
} from "./protocol.ts";

/** Options for {@link serveInbox}. */
export interface InboxOptions extends Expectation {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** How to misbehave; answers 202 at once when absent. */
  readonly profile?: InboxProfile;
  /**
   * Activities per note of the ordered workload (3: Create, Update,
   * Delete); arrival order is checked ({@link OrderLedger}) when above 1.
   */
  readonly stepsPerObject?: number;
}

/** A running inbox server. */
export interface RunningInbox {
  /** The port it listens on. */
  readonly port: number;
  /** The ledger it fills. */
  readonly ledger: DeliveryLedger;
  /** The port of the dead inboxes, when the profile has any. */
  readonly deadPort?: number;
  /** Stops the server; resolves once it is closed. */
  shutdown(): Promise<void>;
}

/** The answer to one request: a status, or a dropped connection. */
type Answer = { status: number; json?: unknown } | "drop";

/** Request handling, independent of the HTTP server underneath. */
class Inbox {
  readonly ledger: DeliveryLedger;
  readonly #order: OrderLedger | undefined;
  readonly #behaviour: Behaviour;
  readonly #profile: InboxProfile;
  readonly #transport: "deno" | "node";
  readonly #keys = new Map<string, CryptographicKey | Multikey | null>();
  readonly #documentLoader = getDocumentLoader({ allowPrivateAddress: true });
  /** The dead inboxes' counters, when the profile has dead recipients. */
  readonly dead: DeadInboxes | undefined;
  readonly #deadDeliveries: number;

  constructor(options: InboxOptions, transport: "deno" | "node") {
    this.ledger = new DeliveryLedger(options);
    const steps = options.stepsPerObject ?? 1;
    this.#order = steps > 1
      ? new OrderLedger(options.total, options.recipients, steps)
      : undefined;
    this.#profile = options.profile ?? INSTANT_INBOX;
    this.#behaviour = new Behaviour(
      this.#profile,
      options.total,
      options.recipients,
    );
    this.#transport = transport;
    const dead = deadRecipients(this.#profile, options.recipients).length;
    this.dead = dead > 0 ? new DeadInboxes() : undefined;
    this.#deadDeliveries = dead * options.total;
  }

  control(path: string): Answer | undefined {
    if (path === INBOX_PATHS.stats) {
      const stats: InboxStats = {
        ...this.ledger.stats(),
        rejections: this.ledger.rejections(),
        goneDeliveries: this.#behaviour.goneDeliveries,
        transport: this.#transport,
        ...(this.#order == null
          ? {}
          : { orderViolations: this.#order.violations }),
        ...(this.dead == null
          ? {}
          : { deadDeliveries: this.#deadDeliveries, ...this.dead.counts() }),
      };
      return { status: 200, json: stats };
    }
    if (path === INBOX_PATHS.arrivals) {
      const body: InboxArrivals = {
        firstArrival: Array.from(
          this.ledger.arrivals(),
          (t) => Number.isNaN(t) ? null : t,
        ),
        counts: Array.from(this.ledger.counts()),
        attempts: Array.from(this.ledger.attemptCounts()),
      };
      return { status: 200, json: body };
    }
    return undefined;
  }

  async deliver(
    path: string,
    body: string,
    at: number,
    request: () => Request,
  ): Promise<Answer> {
    let id: string | undefined;
    try {
      const parsed = JSON.parse(body);
      if (typeof parsed?.id === "string") id = parsed.id;
    } catch {
      // counted as a bad body by the ledger
    }
    const pair = this.ledger.locate(path, id, at);
    if (typeof pair !== "number") return { status: 202 };
    const attempt = this.ledger.attempt(pair);
    // An instant inbox answers without a timer: no wait, no event-loop turn.
    const delayMs = this.#behaviour.delayMs();
    if (delayMs > 0) await sleep(delayMs);
    if (this.#profile.verifySignatures && !(await this.#verify(request()))) {
      this.ledger.refuse(pair, "unverified");
      return { status: 401 };
    }
    const verdict = this.#behaviour.verdict(pair, attempt);
    switch (verdict) {
      case "accept":
        // Arrival is when the request came in, not when we answered; order
        // is the order of acceptance (the same for an instant inbox).
        if (this.ledger.deliver(pair, at) === "delivered") {
          this.#order?.accept(pair);
        }
        return { status: 202 };
      case "error":
        this.ledger.refuse(pair, "error");
        return { status: 503 };
      case "gone":
        this.ledger.refuse(pair, "gone");
        return { status: 410 };
      case "drop":
        this.ledger.refuse(pair, "drop");
        return "drop";
    }
  }

  async #verify(request: Request): Promise<boolean> {
    const keys = this.#keys;
    try {
      const key = await verifyRequest(request, {
        documentLoader: this.#documentLoader,
        contextLoader: this.#documentLoader,
        spec: request.headers.has("signature-input")
          ? "rfc9421"
          : "draft-cavage-http-signatures-12",
        keyCache: {
          get: (keyId) => Promise.resolve(keys.get(keyId.href)),
          set: (keyId, key) => {
            keys.set(keyId.href, key);
            return Promise.resolve();
          },
        },
      });
      return key != null;
    } catch {
      return false;
    }
  }
}

function serveWithDeno(inbox: Inbox, port: number): Promise<RunningInbox> {
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: ({ port }) => resolve(port),
  }, async (request) => {
    const at = now();
    const path = new URL(request.url).pathname;
    let answer: Answer | undefined;
    if (request.method === "GET") answer = inbox.control(path);
    if (answer == null && request.method === "POST") {
      const body = await request.text();
      answer = await inbox.deliver(
        path,
        body,
        at,
        () =>
          new Request(request.url, {
            method: "POST",
            headers: request.headers,
            body,
          }),
      );
    }
    if (answer == null) {
      inbox.ledger.locate(path, undefined, at);
      return new Response(null, { status: 405 });
    }
    if (answer === "drop") throw new Error("unreachable: drops need node");
    return answer.json === undefined
      ? new Response(null, { status: answer.status })
      : Response.json(answer.json, { status: answer.status });
  });
  return promise.then((port) => ({
    port,
    ledger: inbox.ledger,
    shutdown: () => server.shutdown(),
  }));
}

function serveWithNode(inbox: Inbox, port: number): Promise<RunningInbox> {
  const server = http.createServer((req, res) => {
    const at = now();
    const path = new URL(req.url ?? "/", "http://inbox").pathname;
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    req.on("end", async () => {
      let answer: Answer | undefined;
      if (req.method === "GET") answer = inbox.control(path);
      if (answer == null && req.method === "POST") {
        const body = new TextDecoder().decode(
          new Uint8Array(Buffer.concat(chunks)),
        );
        answer = await inbox.deliver(path, body, at, () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(req.headers)) {
            if (typeof value === "string") headers.set(name, value);
            else if (Array.isArray(value)) headers.set(name, value.join(", "));
          }
          return new Request(`http://${req.headers.host}${req.url}`, {
            method: "POST",
            headers,
            body,
          });
        });
      }
      if (answer == null) {
        inbox.ledger.locate(path, undefined, at);
        answer = { status: 405 };
      }
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      if (answer.json === undefined) {
        res.writeHead(answer.status).end();
      } else {
        res.writeHead(answer.status, { "content-type": "application/json" })
          .end(JSON.stringify(answer.json));
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address != null
          ? address.port
          : port,
        ledger: inbox.ledger,
        shutdown: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * Starts a fake inbox on 127.0.0.1.  It runs on `Deno.serve` (about 12,000
 * deliveries/s here) unless the profile drops connections, which needs
 * `node:http` (about 3,000/s).
 */
export async function serveInbox(
  options: InboxOptions,
): Promise<RunningInbox> {
  const drops = options.profile != null && needsDrops(options.profile);
  const inbox = new Inbox(options, drops ? "node" : "deno");
  const running = drops
    ? await serveWithNode(inbox, options.port ?? 0)
    : await serveWithDeno(inbox, options.port ?? 0);
  if (inbox.dead == null) return running;
  const dead = await serveDeadInboxes(inbox.dead);
  return {
    ...running,
    deadPort: dead.port,
    shutdown: async () => {
      await dead.shutdown();
      await running.shutdown();
    },
  };
}

if (import.meta.main) {
  const spec = readSpec<InboxOptions>();
  const stop = control();
  const inbox = await serveInbox(spec);
  emit({
    type: "ready",
    port: inbox.port,
    pid: Deno.pid,
    ...(inbox.deadPort == null ? {} : { deadPort: inbox.deadPort }),
  });
  await stop.done;
  await inbox.shutdown();
  Deno.exit(0);
}
