/**
 * The `delayed` record of a run with dead inboxes (`--inbox-dead-rate`):
 * the delayed backlog's peak and mean from the start of sending to the
 * run's end, from `getDepth()`'s `delayed` where the driver's queue reports
 * it and from the bench's counting wrapper otherwise (messages enqueued
 * with a delay not yet due), beside the healthy deliveries' throughput and
 * latency.  Pure: the runner gathers the observations.
 *
 * @module
 */
import { delayedBacklog } from "../measure/depth_error.ts";
import { roundTo } from "../measure/stats.ts";
import type { DelayedRecord, RunResult, Series } from "../results/mod.ts";
import type { DepthObservations } from "./depth_outcome.ts";

/** The most points of the bench-counted `series`: one a second up to this. */
const MAX_POINTS = 600;

/** What a run with dead inboxes observed besides the inbox's counters. */
export interface DelayedObservations {
  /** `--inbox-dead-rate`. */
  readonly deadRate: number;
  /** How many recipients were dead. */
  readonly deadRecipients: number;
  /** Requests the dead inboxes answered. */
  readonly deadAttempts: number;
  /** Whether the driver's `getDepth()` reports delayed messages apart. */
  readonly reportsDelayed: boolean;
  /** The counting wrapper's logs and the `getDepth()` samples. */
  readonly queue: DepthObservations;
}

/**
 * The `delayed` record, over `[from, queue.to]` (`from`: the start of
 * sending), with the healthy figures taken from the run's result.
 */
export function delayedRecord(
  observed: DelayedObservations,
  from: number | undefined,
  result: Pick<RunResult, "deliveriesPerSecond" | "latencyMs">,
): DelayedRecord {
  const to = observed.queue.to;
  const start = from ?? to;
  const bench = delayedBacklog(observed.queue.enqueues);
  const benchPeak = bench.range(start, to)[1];
  const inWindow = observed.queue.samples
    .filter((s) => s.start >= start && s.end <= to && s.delayed != null);
  const sampled = inWindow.map((s) => s.delayed!);
  const fromDepth = observed.reportsDelayed && sampled.length > 0;
  const seconds = (at: number) => Math.round(at - start) / 1000;
  let series: Series;
  if (fromDepth) {
    series = inWindow.map((s) => [seconds(s.end), s.delayed!]);
  } else {
    const step = Math.max(
      1000,
      Math.ceil((to - start) / MAX_POINTS / 1000) * 1000,
    );
    series = [];
    for (let at = start; at <= to; at += step) {
      series.push([seconds(at), bench.at(at)]);
    }
  }
  return {
    inboxDeadRate: observed.deadRate,
    deadRecipients: observed.deadRecipients,
    deadAttempts: observed.deadAttempts,
    peakDelayedBacklog: fromDepth ? Math.max(...sampled) : benchPeak,
    meanDelayedBacklog: roundTo(
      fromDepth
        ? sampled.reduce((a, b) => a + b, 0) / sampled.length
        : bench.mean(start, to),
      2,
    ),
    delayedSource: fromDepth ? "getDepth" : "bench",
    peakDelayedBacklogBench: benchPeak,
    healthyDeliveriesPerSecond: result.deliveriesPerSecond ?? null,
    healthyLatencyMs: result.latencyMs ?? null,
    series,
  };
}
