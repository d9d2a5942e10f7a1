/**
 * Measures how many deliveries per second the fake inbox accepts on this
 * machine: `deno task inbox-capacity [--deliveries N] [--concurrency C]`.
 * The inbox runs as its own process, exactly as in a benchmark run; this
 * process posts activity-sized bodies to it as fast as it can and then checks
 * that the inbox counted every one.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { InboxClient } from "./inbox_client.ts";
import { Child } from "../lib/system/process.ts";
import { activityId, inboxUrl } from "./ledger.ts";

/** Result of {@link measureInboxCapacity}. */
export interface CapacityResult {
  /** Requests sent. */
  readonly deliveries: number;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Wall time of the load, seconds. */
  readonly seconds: number;
  /** `deliveries / seconds`. */
  readonly perSecond: number;
  /** What the inbox counted. */
  readonly delivered: number;
}

/** Posts `deliveries` activities to a fresh inbox process and times it. */
export async function measureInboxCapacity(
  deliveries: number,
  concurrency: number,
): Promise<CapacityResult> {
  const recipients = 100;
  const total = Math.ceil(deliveries / recipients);
  const inbox = Child.spawn({
    role: "inbox",
    script: new URL("./inbox_server.ts", import.meta.url),
    spec: { runId: "capacity", total, recipients },
  });
  try {
    const client = InboxClient.fromReady(await inbox.waitFor("ready", 30_000));
    const origin = client.origin;
    const padding = "x".repeat(2500); // about the size of a signed Create(Note)
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < deliveries) {
        const k = next++;
        const i = Math.floor(k / recipients);
        const n = k % recipients;
        const response = await fetch(inboxUrl(origin, n), {
          method: "POST",
          headers: { "content-type": "application/activity+json" },
          body: JSON.stringify({
            id: activityId("http://sender.test", "capacity", i).href,
            type: "Create",
            content: padding,
          }),
        });
        await response.body?.cancel();
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    const stats = await client.stats();
    return {
      deliveries,
      concurrency,
      seconds,
      perSecond: deliveries / seconds,
      delivered: stats.delivered,
    };
  } finally {
    await inbox.stop();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      deliveries: { type: "string", default: "20000" },
      concurrency: { type: "string", default: "16" },
    },
  });
  const deliveries = Number(values.deliveries);
  const concurrency = Number(values.concurrency);
  if (!(deliveries > 0 && concurrency > 0)) {
    console.error("error: --deliveries and --concurrency must be positive");
    Deno.exit(2);
  }
  const result = await measureInboxCapacity(deliveries, concurrency);
  console.log(
    `${result.deliveries} deliveries, ${result.concurrency} in flight: ` +
      `${result.seconds.toFixed(2)} s, ${result.perSecond.toFixed(0)} ` +
      `deliveries/s; inbox counted ${result.delivered}`,
  );
  Deno.exit(result.delivered === result.deliveries ? 0 : 1);
}
