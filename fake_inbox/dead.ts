/**
 * Dead inboxes (`--inbox-dead-rate`): a share of the recipients whose inbox
 * fails every request, served on a port of their own so that, as on the
 * real network, they are another remote host than the healthy inboxes:
 * Fedify 2.3 keeps its retry policy and its circuit breaker per host
 * (`URL.host`), and a dead host opening its circuit must not hold the
 * healthy deliveries.  Every request is answered 503 (no `Retry-After`)
 * and counted; none is a delivery.
 *
 * Which recipients are dead is drawn from the profile's seed among those
 * that are not gone, so both the inbox and the sender (which addresses them
 * to the dead port) know them.
 *
 * @module
 */
import type { InboxProfile } from "../lib/results/mod.ts";
import { pick, seededRandom } from "./behaviour.ts";

/** What a dead inbox answers to every request. */
export const DEAD_STATUS = 503;

/** Salt of the dead recipients' draw, so the other draws stay as they were. */
const DEAD_SALT = 0x0dead;

/**
 * The dead recipients of a run, ascending: `round(deadRate × healthy)` of
 * the recipients that are not gone (`goneRate`'s draw, as the inbox makes
 * it).
 */
export function deadRecipients(
  profile: InboxProfile,
  recipients: number,
): number[] {
  const rate = profile.deadRate ?? 0;
  if (rate <= 0) return [];
  const gone = pick(recipients, profile.goneRate, seededRandom(profile.seed));
  const alive = [...gone.keys()].filter((n) => gone[n] === 0);
  const chosen = pick(
    alive.length,
    rate * recipients / Math.max(1, alive.length),
    seededRandom(profile.seed ^ DEAD_SALT),
  );
  return alive.filter((_, i) => chosen[i] === 1);
}

/** What the dead inboxes saw. */
export interface DeadCounts {
  /** Requests to dead inboxes, retries included. */
  readonly deadAttempts: number;
  /** Distinct (path, activity) pairs attempted at least once. */
  readonly deadAttempted: number;
}

/** Counts the requests to dead inboxes. */
export class DeadInboxes {
  #attempts = 0;
  readonly #pairs = new Set<string>();

  /** Counts one request to `path` with activity `id`. */
  record(path: string, id: string | undefined): void {
    this.#attempts++;
    this.#pairs.add(`${path} ${id}`);
  }

  /** The counts so far. */
  counts(): DeadCounts {
    return { deadAttempts: this.#attempts, deadAttempted: this.#pairs.size };
  }
}

/**
 * Serves the dead inboxes on 127.0.0.1 (`port` 0 picks a free one): every
 * POST is counted and answered {@link DEAD_STATUS}.
 */
export function serveDeadInboxes(
  dead: DeadInboxes,
  port = 0,
): Promise<{ port: number; shutdown(): Promise<void> }> {
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: ({ port }) => resolve(port),
  }, async (request) => {
    let id: string | undefined;
    try {
      const parsed = JSON.parse(await request.text());
      if (typeof parsed?.id === "string") id = parsed.id;
    } catch { /* counted all the same */ }
    dead.record(new URL(request.url).pathname, id);
    return new Response(null, { status: DEAD_STATUS });
  });
  return promise.then((port) => ({ port, shutdown: () => server.shutdown() }));
}
