/**
 * The fake inbox server: accepts every recipient's inbox POST, answers 202 at
 * once, and records each (activity, recipient) arrival in a
 * {@link DeliveryLedger}.  Run as its own process by the runner, or embedded
 * with {@link serveInbox}.
 *
 * Control endpoints (GET): `/_bench/stats` returns {@link InboxStats};
 * `/_bench/arrivals` returns first-arrival times and counts per pair.
 *
 * @module
 */
import { emit, now, readSpec, stopRequested } from "../lib/child_io.ts";
import {
  DeliveryLedger,
  type Expectation,
  type LedgerStats,
  type Rejection,
} from "./ledger.ts";

/** Options for {@link serveInbox}. */
export interface InboxOptions extends Expectation {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
}

/** What `/_bench/stats` returns. */
export interface InboxStats extends LedgerStats {
  /** Unexpected requests by reason. */
  readonly rejections: Readonly<Record<Rejection, number>>;
}

/** What `/_bench/arrivals` returns. */
export interface InboxArrivals {
  /** First-arrival epoch ms per pair (`activity × recipients + recipient`), `null` if none. */
  readonly firstArrival: (number | null)[];
  /** Arrival count per pair. */
  readonly counts: number[];
}

/** A running inbox server. */
export interface RunningInbox {
  /** The port it listens on. */
  readonly port: number;
  /** The ledger it fills. */
  readonly ledger: DeliveryLedger;
  /** Stops the server; resolves once it is closed. */
  shutdown(): Promise<void>;
}

/** Starts a fake inbox on 127.0.0.1. */
export function serveInbox(options: InboxOptions): Promise<RunningInbox> {
  const ledger = new DeliveryLedger(options);
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: ({ port }) => resolve(port),
  }, async (request) => {
    const at = now();
    const path = new URL(request.url).pathname;
    if (request.method === "GET") {
      if (path === "/_bench/stats") {
        const stats: InboxStats = {
          ...ledger.stats(),
          rejections: ledger.rejections(),
        };
        return Response.json(stats);
      }
      if (path === "/_bench/arrivals") {
        const body: InboxArrivals = {
          firstArrival: Array.from(
            ledger.arrivals(),
            (t) => Number.isNaN(t) ? null : t,
          ),
          counts: Array.from(ledger.counts()),
        };
        return Response.json(body);
      }
    }
    if (request.method !== "POST") {
      ledger.record(path, undefined, at);
      return new Response(null, { status: 405 });
    }
    let id: string | undefined;
    try {
      const body = await request.json();
      if (typeof body?.id === "string") id = body.id;
    } catch {
      // counted as a bad body below
    }
    ledger.record(path, id, at);
    return new Response(null, { status: 202 });
  });
  return promise.then((port) => ({
    port,
    ledger,
    shutdown: () => server.shutdown(),
  }));
}

if (import.meta.main) {
  const spec = readSpec<InboxOptions>();
  const stop = stopRequested();
  const inbox = await serveInbox(spec);
  emit({ type: "ready", port: inbox.port, pid: Deno.pid });
  await stop.done;
  await inbox.shutdown();
  Deno.exit(0);
}
