/**
 * What the send and receive chart draws for each configuration that is not
 * skipped, as data: a measured bar per phase (send; receive once finished),
 * a stopped row's estimated total with its bounds, or, when it has neither,
 * a few words on why (`stalled — no estimate`, `failed`).
 *
 * @module
 */
import type { Context, Entry } from "./context.ts";
import { short } from "./format.ts";
import { ESTIMATE_PHASE } from "./theme.ts";
import type { ConfigurationResult, Spread } from "../../results/mod.ts";

/** What a datum of the chart draws. */
export type MarkKind = "measured" | "estimate" | "none";

/** One datum of the chart: a bar and its label, or words alone. */
export interface SendReceiveDatum {
  /** The configuration's label, as {@link Entry} has it. */
  readonly configuration: string;
  /** Which of the configuration's two rows the mark takes (send: `first`). */
  readonly slot: "first" | "second";
  /** `Send`, `Receive`, {@link ESTIMATE_PHASE}, or `none` for words alone. */
  readonly phase: string;
  /** A measured bar, an estimate, or words alone. */
  readonly kind: MarkKind;
  /** The measured seconds a solid bar ends at; `null` for the other kinds. */
  readonly seconds: number | null;
  /** The estimated total a hollow bar ends at; `null` for the other kinds. */
  readonly estimate: number | null;
  /** The fastest run of a measured figure, when its runs differ. */
  readonly min: number | null;
  /** The slowest run of a measured figure, when its runs differ. */
  readonly max: number | null;
  /** An estimate's low bound, seconds. */
  readonly low: number | null;
  /** An estimate's high bound, seconds. */
  readonly high: number | null;
  /** Where the label starts, seconds. */
  readonly textAt: number;
  /** The label: `0.60 s (0.50–0.80)`, `~2,247 s (estimate)`, `failed`. */
  readonly text: string;
  /** The figure as the tooltip says it. */
  readonly detail: string;
}

/** A measured bar: a phase's seconds, with the spread of its runs. */
function measured(
  configuration: string,
  phase: "Send" | "Receive",
  seconds: number,
  spread: Spread | undefined,
): SendReceiveDatum {
  const hasSpread = spread != null && spread.max > spread.min;
  return {
    configuration,
    slot: phase === "Send" ? "first" : "second",
    phase,
    kind: "measured",
    seconds,
    estimate: null,
    min: hasSpread ? spread.min : null,
    max: hasSpread ? spread.max : null,
    low: null,
    high: null,
    textAt: hasSpread ? Math.max(seconds, spread.max) : seconds,
    text: hasSpread
      ? `${short(seconds)} s (${short(spread.min)}–${short(spread.max)})`
      : `${short(seconds)} s`,
    detail: hasSpread
      ? `${short(seconds)} s (runs from ${short(spread.min)} to ${
        short(spread.max)
      } s)`
      : `${short(seconds)} s`,
  };
}

/** The estimated total of a stopped row: a hollow bar and its bounds. */
function estimated(
  configuration: string,
  result: ConfigurationResult,
): SendReceiveDatum | null {
  const e = result.estimate;
  if (e == null) return null;
  return {
    configuration,
    slot: "second",
    phase: ESTIMATE_PHASE,
    kind: "estimate",
    seconds: null,
    estimate: e.totalSeconds,
    min: null,
    max: null,
    low: e.lowSeconds,
    high: e.highSeconds,
    textAt: Math.max(e.totalSeconds, e.highSeconds),
    text: `~${short(e.totalSeconds)} s (estimate)`,
    detail: `~${short(e.totalSeconds)} s, between ${short(e.lowSeconds)} ` +
      `and ${short(e.highSeconds)} s: an estimate, not a measurement ` +
      `(stopped by the ${e.stoppedBy})`,
  };
}

/**
 * Why a configuration has no second bar, in a few words: `failed`, `stalled
 * — no estimate` (the reason's first clause, when short), `no receive time
 * recorded`.
 */
export function missingFigure(result: ConfigurationResult): string {
  if (result.status === "failed") return "failed";
  if (result.status === "ok") return "no receive time recorded";
  const cause = (/^[^:;(]*/.exec(result.reason ?? "")?.[0] ?? "").trim();
  return `${
    cause === "" || cause.length > 32 ? result.status : cause
  } — no estimate`;
}

/** The marks of one configuration, in slot order. */
function entryData({ result, label }: Entry): SendReceiveDatum[] {
  const data: SendReceiveDatum[] = [];
  if (result.sendSeconds != null) {
    data.push(
      measured(label, "Send", result.sendSeconds, result.spread?.sendSeconds),
    );
  }
  const second = result.status === "ok" && result.receiveSeconds != null
    ? measured(
      label,
      "Receive",
      result.receiveSeconds,
      result.spread?.receiveSeconds,
    )
    : estimated(label, result);
  data.push(
    second ?? {
      configuration: label,
      slot: "second",
      phase: "none",
      kind: "none",
      seconds: null,
      estimate: null,
      min: null,
      max: null,
      low: null,
      high: null,
      // Placed at the start of the axis once the axis is known.
      textAt: 0,
      text: missingFigure(result),
      detail: missingFigure(result),
    },
  );
  return data;
}

/**
 * The data of the chart: a datum or two for every configuration that is not
 * skipped, in document order.  Words alone start at `0`.
 */
export function sendReceiveData(context: Context): SendReceiveDatum[] {
  return context.entries
    .filter(({ result }) => result.status !== "skipped")
    .flatMap(entryData);
}
