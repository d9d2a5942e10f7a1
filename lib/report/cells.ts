/**
 * The cells of the report's tables: a figure in its unit, followed by its
 * min–max over the runs when a configuration ran more than once, the way
 * hyperfine prints a mean and its range; and the counts every table shares.
 *
 * @module
 */
import type { ConfigurationResult, RunResult, Spread } from "../results/mod.ts";

/** Integers with thousands separators. */
export const integer = new Intl.NumberFormat("en-US");

/** A unit of a column: how to print a median and, bare, its min and max. */
export interface Unit {
  /** What the value is divided by. */
  readonly scale: number;
  /** Printed after the value, e.g. ` ms`. */
  readonly suffix: string;
  /** Decimals. */
  readonly digits: number;
  /** Whether to separate thousands (`3,990`). */
  readonly grouping?: boolean;
}

/**
 * A figure in its unit with, when there is one, its min–max in parentheses:
 * `3.00 s (2.50–3.20)`; a dash for a missing figure.
 *
 * @param spread The figure's min and max over the runs, if known.
 */
export function figureCell(
  value: number | null | undefined,
  pickUnit: (value: number) => Unit,
  spread?: Spread,
): string {
  if (value == null) return "—";
  const unit = pickUnit(value);
  const bare = (n: number) =>
    unit.grouping
      ? (n / unit.scale).toLocaleString("en-US", {
        minimumFractionDigits: unit.digits,
        maximumFractionDigits: unit.digits,
      })
      : (n / unit.scale).toFixed(unit.digits);
  const range = spread == null
    ? ""
    : ` (${bare(spread.min)}–${bare(spread.max)})`;
  return `${bare(value)}${unit.suffix}${range}`;
}

/** A figure of a result with the spread the result records under `key`. */
export function cell(
  result: ConfigurationResult,
  key: string,
  value: number | null | undefined,
  pickUnit: (value: number) => Unit,
): string {
  return figureCell(value, pickUnit, result.spread?.[key]);
}

/**
 * The min and max of a figure over a configuration's runs, when at least two
 * runs have it and they differ; `undefined` otherwise.
 */
export function spreadOver(
  result: ConfigurationResult,
  pick: (run: RunResult) => number | null | undefined,
): Spread | undefined {
  const values = (result.runs ?? []).map(pick).filter((v) => v != null);
  if (values.length < 2) return undefined;
  const min = Math.min(...values);
  const max = Math.max(...values);
  return min === max ? undefined : { min, max };
}

/** Seconds with two decimals. */
export const seconds = (): Unit => ({ scale: 1, suffix: " s", digits: 2 });

/** Milliseconds below a second, seconds from there on. */
export const latency = (ms: number): Unit =>
  ms >= 1000
    ? { scale: 1000, suffix: " s", digits: 2 }
    : { scale: 1, suffix: " ms", digits: ms >= 100 ? 0 : 1 };

/** A rate with one decimal. */
export const perSecond = (): Unit => ({ scale: 1, suffix: "/s", digits: 1 });

/** A rate with three significant digits at most: `0.52/s`, `8.1/s`, `640/s`. */
export const rateUnit = (value: number): Unit => ({
  scale: 1,
  suffix: "/s",
  digits: value >= 100 ? 0 : value >= 10 ? 1 : 2,
  grouping: true,
});

/** A whole count with thousands separators. */
export const count = (): Unit => ({
  scale: 1,
  suffix: "",
  digits: 0,
  grouping: true,
});

/** Milliseconds, three significant digits at most (`384`, `31.0`, `3.34`). */
export const msFigure = (value: number): Unit => ({
  scale: 1,
  suffix: "",
  digits: value >= 100 ? 0 : value >= 10 ? 1 : 2,
});

/** A long time in the largest unit it fills: `50.0 s`, `3.5 min`, `2.6 h`. */
export function duration(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** CPU milliseconds with two decimals. */
export const cpuMs = (): Unit => ({ scale: 1, suffix: " ms", digits: 2 });

/** A share in percent, one decimal (two below 1%). */
export const percent = (value: number): Unit => ({
  scale: 1,
  suffix: "%",
  digits: value < 1 ? 2 : 1,
});

/** Bytes in MiB, one decimal. */
export const mebibytes = (): Unit => ({
  scale: 1024 * 1024,
  suffix: " MiB",
  digits: 1,
});

/**
 * `delivered / expected`, with the share when they differ; a dash for a
 * skipped configuration.
 */
export function deliveredCell(result: RunResult): string {
  if (result.status === "skipped") return "—";
  const share = result.expected > 0
    ? ` (${(100 * result.delivered / result.expected).toFixed(1)}%)`
    : "";
  return `${integer.format(result.delivered)} / ${
    integer.format(result.expected)
  }${result.delivered === result.expected ? "" : share}`;
}
