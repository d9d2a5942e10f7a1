/**
 * Fedify's own OpenTelemetry spans as stage timings: a tracer provider,
 * given to `createFederation()`, that times only the spans a stage is read
 * from (`activitypub.outbox`, `activitypub.send_activity`,
 * `http_signatures.sign`, `activitypub.fanout`; see `STAGES`) and turns
 * each one that ends into a timing of its stage.  The handlers' spans count
 * only as consumer spans: Fedify gives `sendActivity`'s own span the same
 * names.
 *
 * It is as lean as the API allows, because it runs on every delivery of the
 * plain default run: every span it hands out says it is not recording, so
 * Fedify skips building the attributes and events it would otherwise
 * compute for an exporter (headers, digests, activity ids), and every span
 * carries the invalid span context, so nothing is propagated into queued
 * messages.  A span that no stage reads is the API's shared non-recording
 * span; one that a stage reads keeps two clock readings and nothing else.
 *
 * @module
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type Exception,
  INVALID_SPAN_CONTEXT,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  trace,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import { type StageName, STAGES } from "../results/stages_record.ts";
import type { StageSamples } from "./stage_samples.ts";

/** The stage each span name is read into, and the kind it must have. */
const STAGE_OF_SPAN: ReadonlyMap<
  string,
  { readonly stage: StageName; readonly consumer: boolean }
> = new Map(
  STAGES.flatMap((stage) =>
    "span" in stage
      ? [
        [stage.span, {
          stage: stage.name,
          consumer: "spanKind" in stage && stage.spanKind === "consumer",
        }] as const,
      ]
      : []
  ),
);

/** The span handed out for everything no stage reads. */
const UNTIMED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** A span that times one stage: its start, and its duration once ended. */
class TimedSpan implements Span {
  readonly #samples: StageSamples;
  readonly #stage: StageName;
  readonly #start = performance.now();
  #ended = false;

  constructor(samples: StageSamples, stage: StageName) {
    this.#samples = samples;
    this.#stage = stage;
  }

  spanContext(): SpanContext {
    return INVALID_SPAN_CONTEXT;
  }

  setAttribute(_key: string, _value: AttributeValue): this {
    return this;
  }

  setAttributes(_attributes: Attributes): this {
    return this;
  }

  addEvent(
    _name: string,
    _attributesOrStartTime?: Attributes | TimeInput,
    _startTime?: TimeInput,
  ): this {
    return this;
  }

  addLink(_link: Link): this {
    return this;
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(_status: SpanStatus): this {
    return this;
  }

  updateName(_name: string): this {
    return this;
  }

  /** Records the span's duration into its stage, once. */
  end(_endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#samples.add(this.#stage, performance.now() - this.#start);
  }

  isRecording(): boolean {
    return false;
  }

  recordException(_exception: Exception, _time?: TimeInput): void {}
}

/** Hands out timed spans for the stages' spans, the shared one otherwise. */
class StageTracer implements Tracer {
  readonly #samples: StageSamples;

  constructor(samples: StageSamples) {
    this.#samples = samples;
  }

  startSpan(name: string, options?: SpanOptions, _context?: Context): Span {
    const read = STAGE_OF_SPAN.get(name);
    if (read == null) return UNTIMED;
    if (read.consumer && options?.kind !== SpanKind.CONSUMER) return UNTIMED;
    return new TimedSpan(this.#samples, read.stage);
  }

  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? rest[0] as SpanOptions : undefined;
    const parent = rest.length > 2 ? rest[1] as Context : context.active();
    const span = this.startSpan(name, options, parent);
    return context.with(
      trace.setSpan(parent, span),
      fn as (span: Span) => ReturnType<F>,
      undefined,
      span,
    );
  }
}

/**
 * A tracer provider for `createFederation({ tracerProvider })` that records
 * the stages Fedify's spans time into `samples`.
 */
export function stageTracerProvider(samples: StageSamples): TracerProvider {
  const tracer = new StageTracer(samples);
  return { getTracer: () => tracer };
}
