/**
 * Fedify's spans as stage timings: the handlers' spans count only as
 * consumer spans, the signing and the POST whatever their kind, and other
 * spans not at all.
 */
import assert from "node:assert/strict";
import { SpanKind, trace } from "@opentelemetry/api";
import { stageTracerProvider } from "./span_stages.ts";
import { StageSamples } from "./stage_samples.ts";

Deno.test("spans are read into the stages they time", () => {
  const samples = new StageSamples();
  const tracer = stageTracerProvider(samples).getTracer("test");
  const span = (name: string, kind: SpanKind) =>
    tracer.startActiveSpan(name, { kind }, (s) => s.end());
  span("activitypub.outbox", SpanKind.CONSUMER);
  // sendActivity's own span, without a queue: not a handler.
  span("activitypub.outbox", SpanKind.CLIENT);
  span("activitypub.fanout", SpanKind.PRODUCER);
  span("activitypub.fanout", SpanKind.CONSUMER);
  span("activitypub.send_activity", SpanKind.CLIENT);
  span("http_signatures.sign", SpanKind.INTERNAL);
  span("webfinger.handle", SpanKind.SERVER);
  const batch = samples.take();
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(batch).map(([stage, values]) => [stage, values!.length]),
    ),
    { outbox: 1, fanout: 1, post: 1, sign: 1 },
  );
  for (const values of Object.values(batch)) {
    assert.ok(values!.every((ms) => ms >= 0 && ms < 1000), String(values));
  }
  assert.deepEqual(samples.take(), {});
});

Deno.test("the spans cost Fedify nothing beyond two clock readings", () => {
  const samples = new StageSamples();
  const tracer = stageTracerProvider(samples).getTracer("test");
  for (
    const [name, kind] of [
      ["activitypub.outbox", SpanKind.CONSUMER],
      ["http_signatures.sign", SpanKind.INTERNAL],
      ["webfinger.handle", SpanKind.SERVER],
    ] as const
  ) {
    tracer.startActiveSpan(name, { kind }, (span) => {
      // Not recording: Fedify builds no attributes or events for it.
      assert.equal(span.isRecording(), false, name);
      // An invalid context: nothing is injected into a queued message.
      assert.equal(trace.isSpanContextValid(span.spanContext()), false);
      span.end();
      span.end();
    });
  }
  // Ending twice times once.
  const batch = samples.take();
  assert.equal(batch.outbox?.length, 1);
  assert.equal(batch.sign?.length, 1);
});
