/**
 * Fedify's own OpenTelemetry spans as stage timings: a tracer provider
 * (the SDK's `BasicTracerProvider`, given to `createFederation()`) whose one
 * span processor turns every ended span that a stage is read from
 * (`activitypub.outbox`, `activitypub.send_activity`,
 * `http_signatures.sign`, `activitypub.fanout`; see `STAGES`) into a
 * timing of that stage.  The handlers' spans count only as consumer spans:
 * Fedify gives `sendActivity`'s own span the same names.  Nothing is
 * exported or kept beyond the duration.
 *
 * @module
 */
import {
  type Context,
  SpanKind,
  type TracerProvider,
} from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { type StageName, STAGES } from "../results/stages.ts";
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

/** Turns ended spans into stage timings. */
class StageSpanProcessor implements SpanProcessor {
  readonly #samples: StageSamples;

  constructor(samples: StageSamples) {
    this.#samples = samples;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    const read = STAGE_OF_SPAN.get(span.name);
    if (read == null) return;
    if (read.consumer && span.kind !== SpanKind.CONSUMER) return;
    const [seconds, nanos] = span.duration;
    this.#samples.add(read.stage, seconds * 1000 + nanos / 1e6);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A tracer provider for `createFederation({ tracerProvider })` that records
 * the stages Fedify's spans time into `samples`.
 */
export function stageTracerProvider(samples: StageSamples): TracerProvider {
  return new BasicTracerProvider({
    spanProcessors: [new StageSpanProcessor(samples)],
  });
}
