/**
 * `deno task stage-overhead [MESSAGES] [ROUNDS]`: the stage timing's own CPU
 * cost per delivery, apart from everything else a delivery costs.
 *
 * The bench's rows are too noisy on a shared 2-core host to resolve a cost
 * of a few percent from deliveries/s with and without `--no-stages` alone;
 * this measures what the timing adds directly.  It pushes MESSAGES
 * outbox-shaped messages (default 5,000) through the same wrappers a
 * worker uses (`StageTiming.inner` around Fedify's `InProcessMessageQueue`,
 * Fedify's `ParallelMessageQueue` ×4, `StageTiming.outer`) to a handler
 * that opens the spans Fedify opens for one delivery (`activitypub.outbox`
 * as a consumer span, `activitypub.send_activity`, `http_signatures.sign`)
 * on the stage tracer, and sends each batch as JSON as a child does; and
 * the same without timing (no wrappers, the OpenTelemetry API's no-op
 * tracer that Fedify uses when given none).  The two alternate for ROUNDS
 * rounds (default 7); it prints the median CPU µs per message of each and
 * the difference: the timing's cost per delivery, to set against a row's
 * CPU ms per delivery.  Signing and the POST are left out on purpose:
 * they are the same with and without timing.  It measures CPU time, not
 * wall time: with no I/O between them, the wrapper's `setTimeout(0)`s
 * nest and are clamped to 4 ms each, so a round takes about 1 ms per
 * message of wall time whatever the CPU.
 *
 * @module
 */
import { cpuUsage } from "node:process";
import {
  InProcessMessageQueue,
  type MessageQueue,
  ParallelMessageQueue,
} from "@fedify/fedify";
import { SpanKind, trace, type TracerProvider } from "@opentelemetry/api";
import { StageSamples } from "../measure/stage_samples.ts";
import { stageTracerProvider } from "../measure/span_stages.ts";
import { StageTiming } from "../queue/timing_queue.ts";
import { now } from "../ipc/child_io.ts";
import { median } from "../measure/stats.ts";

/** An outbox message as Fedify 2.3 enqueues one (its shape and size). */
function outboxMessage(i: number): Record<string, unknown> {
  return {
    type: "outbox",
    id: crypto.randomUUID(),
    baseUrl: "http://127.0.0.1:8000",
    keys: [{
      keyId: "http://127.0.0.1:8000/users/bench#main-key",
      privateKey: {
        kty: "RSA",
        n: "x".repeat(342),
        e: "AQAB",
        d: "y".repeat(342),
      },
    }],
    activity: {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `http://127.0.0.1:8000/activities/${i}`,
      type: "Create",
      actor: "http://127.0.0.1:8000/users/bench",
      object: {
        id: `http://127.0.0.1:8000/notes/${i}`,
        type: "Note",
        content: "z".repeat(200),
      },
    },
    activityId: `http://127.0.0.1:8000/activities/${i}`,
    activityType: "https://www.w3.org/ns/activitystreams#Create",
    inbox: `http://127.0.0.1:9000/inbox/${i % 100}`,
    sharedInbox: false,
    actorIds: [`http://127.0.0.1:9000/users/${i % 100}`],
    started: new Date().toISOString(),
    attempt: 0,
    headers: {},
    traceContext: {},
  };
}

/** One round: `count` messages through `queue`, spans on `provider`. */
async function round(
  count: number,
  provider: TracerProvider,
  wrap: (queue: MessageQueue) => MessageQueue,
  samples: StageSamples | null,
): Promise<number> {
  const tracer = provider.getTracer("overhead");
  const queue = wrap(new InProcessMessageQueue());
  const controller = new AbortController();
  const done = Promise.withResolvers<void>();
  let handled = 0;
  const start = cpuUsage();
  const listening = queue.listen(async () => {
    await tracer.startActiveSpan(
      "activitypub.outbox",
      { kind: SpanKind.CONSUMER },
      async (outbox) => {
        await tracer.startActiveSpan(
          "activitypub.send_activity",
          { kind: SpanKind.CLIENT },
          async (post) => {
            await tracer.startActiveSpan("http_signatures.sign", (sign) => {
              sign.end();
              return Promise.resolve();
            });
            post.end();
          },
        );
        outbox.end();
      },
    );
    if (++handled === count) done.resolve();
  }, { signal: controller.signal });
  const batch = 100;
  for (let i = 0; i < count; i += batch) {
    const messages = [];
    for (let j = i; j < Math.min(count, i + batch); j++) {
      messages.push(outboxMessage(j));
    }
    await queue.enqueueMany!(messages);
  }
  await done.promise;
  if (samples != null) JSON.stringify(samples.take());
  const used = cpuUsage(start);
  controller.abort();
  await listening;
  return (used.user + used.system) / count;
}

/** The CPU cost per message with and without the stage timing, µs. */
export interface Overhead {
  /** Median over the rounds, without timing. */
  readonly withoutUs: number;
  /** Median over the rounds, with timing. */
  readonly withUs: number;
}

/**
 * Measures the timing's cost: `rounds` rounds of `count` messages in each
 * mode, alternating, after one round of each to warm the JIT up.
 */
export async function measureOverhead(
  count: number,
  rounds: number,
): Promise<Overhead> {
  const off: number[] = [];
  const on: number[] = [];
  for (let r = 0; r < rounds + 1; r++) {
    const plain = await round(
      count,
      trace.getTracerProvider(),
      (q) => new ParallelMessageQueue(q, 4),
      null,
    );
    const samples = new StageSamples();
    const timing = new StageTiming(samples, now);
    const timed = await round(
      count,
      stageTracerProvider(samples),
      (q) => timing.outer(new ParallelMessageQueue(timing.inner(q), 4), true),
      samples,
    );
    if (r > 0) {
      off.push(plain);
      on.push(timed);
    }
  }
  return { withoutUs: median(off), withUs: median(on) };
}

/** The command: prints the medians and the difference; the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  const count = Number(args[0] ?? 5_000);
  const rounds = Number(args[1] ?? 7);
  if (
    !Number.isInteger(count) || count < 100 || !Number.isInteger(rounds) ||
    rounds < 1
  ) {
    console.error(
      "usage: deno task stage-overhead [MESSAGES ≥ 100] [ROUNDS ≥ 1]",
    );
    return 2;
  }
  const { withoutUs: a, withUs: b } = await measureOverhead(count, rounds);
  console.log(
    `${count} messages × ${rounds} rounds, CPU µs per message (median): ` +
      `without timing ${a.toFixed(1)}, with ${b.toFixed(1)}; the timing ` +
      `costs ${(b - a).toFixed(1)} µs per delivery`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
