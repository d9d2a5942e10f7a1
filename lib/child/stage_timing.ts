/**
 * Stage timing in the sender and the workers: where a delivery's time
 * goes, from Fedify's spans (a tracer provider given to the federation) and
 * from the bench's wrapper at the queue seam (`lib/queue/timing_queue.ts`),
 * sent to the runner as `stages` messages about every
 * {@link STAGES_INTERVAL_MS}, and once more when the runner asks
 * (`flush-stages`) before it reads a run's figures.
 *
 * @module
 */
import type { TracerProvider } from "@opentelemetry/api";
import { type Control, emit, now } from "../ipc/child_io.ts";
import { StageSamples } from "../measure/stage_samples.ts";
import { stageTracerProvider } from "../measure/span_stages.ts";
import { StageTiming } from "../queue/timing_queue.ts";

/** How often a child sends its stage timings, in ms. */
export const STAGES_INTERVAL_MS = 500;

/** What a child times its stages with. */
export interface ChildStages {
  /** Where the timings go until they are sent. */
  readonly samples: StageSamples;
  /** The wrappers at the queue seam. */
  readonly timing: StageTiming;
  /** For `createFederation({ tracerProvider })`. */
  readonly tracerProvider: TracerProvider;
}

/** The stage timing of this process, or `null` when it is off. */
export function openStages(on: boolean | undefined): ChildStages | null {
  if (on !== true) return null;
  const samples = new StageSamples();
  return {
    samples,
    timing: new StageTiming(samples, now),
    tracerProvider: stageTracerProvider(samples),
  };
}

/**
 * Sends the timings every {@link STAGES_INTERVAL_MS} until the child is
 * asked to stop, and everything left when the runner sends
 * `flush-stages`, followed by `flushed`.
 */
export function reportStages(
  stages: ChildStages | null,
  control: Control,
): void {
  if (stages == null) return;
  let sentPeak = -1;
  const send = (always: boolean) => {
    const samples = stages.samples.take();
    const peakInFlight = stages.samples.peakInFlight;
    if (
      !always && Object.keys(samples).length === 0 && peakInFlight === sentPeak
    ) {
      return;
    }
    sentPeak = peakInFlight;
    emit({ type: "stages", samples, peakInFlight });
  };
  const timer = setInterval(() => send(false), STAGES_INTERVAL_MS);
  control.signal.addEventListener("abort", () => clearInterval(timer), {
    once: true,
  });
  control.command("flush-stages").then(() => {
    send(true);
    emit({ type: "flushed" });
  }, () => {/* stopped first: nothing was asked */});
}
