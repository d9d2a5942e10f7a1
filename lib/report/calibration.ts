/**
 * Calibrations in words: a rate with its noise, a change between two, and
 * the calibration's lines in the report's "Machine" section, with a warning
 * when the machine's speed drifted during the suite.
 *
 * @module
 */
import {
  CALIBRATION_RATES,
  type CalibrationRate,
  driftOf,
  rateOf,
  type RateRange,
  type RateShift,
} from "../results/calibration.ts";
import type { Calibration, CalibrationPoint } from "../results/types.ts";

/** What each rate is, for prose. */
export const RATE_LABELS: Readonly<Record<CalibrationRate, string>> = {
  rsaSignsPerSecond: "RSA-2048 signatures",
  loopbackRequestsPerSecond: "loopback POSTs",
};

const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** `612/s (600–620)`: a rate with its noise. */
export function formatRange(range: RateRange): string {
  return `${whole.format(range.value)}/s (${whole.format(range.min)}–${
    whole.format(range.max)
  })`;
}

/** `-21.6%` or `+3.0%`: a ratio as a signed percentage change. */
export function formatRatio(ratio: number): string {
  const percent = 100 * (ratio - 1);
  return `${percent > 0 ? "+" : ""}${percent.toFixed(1)}%`;
}

/** `RSA-2048 signatures 612/s (600–620) → 480/s (470–490), -21.6%`. */
export function formatShift(shift: RateShift): string {
  return `${RATE_LABELS[shift.rate]} ${formatRange(shift.from)} → ${
    formatRange(shift.to)
  }, ${formatRatio(shift.ratio)}`;
}

/**
 * The calibration as Markdown list items for the report's "Machine"
 * section, with a warning when a rate drifted beyond noise during the suite.
 */
export function renderCalibration(calibration: Calibration): string {
  const point = (name: string, p: CalibrationPoint) =>
    `  - ${name} (${p.measuredAt}): ${
      CALIBRATION_RATES.map((rate) =>
        `${RATE_LABELS[rate]} ${formatRange(rateOf(p, rate))}`
      ).join("; ")
    }`;
  const { start, end } = calibration;
  const lines = [
    `- **Calibration** (median of ${start.slices} slices of ${start.sliceSeconds} s, ` +
    "min–max in parentheses; RSA-2048 signatures on one core, loopback " +
    "POSTs of 2 KB to a trivial server process, 8 in flight):",
    point("start", start),
    end == null
      ? "  - end: not measured (the suite is running or was stopped)"
      : point("end", end),
  ];
  const drifted = (driftOf(calibration) ?? []).filter((s) => s.beyondNoise);
  if (drifted.length > 0) {
    lines.push(
      "",
      `> **Warning**: the machine's speed changed during the suite by more ` +
        `than the calibration's own noise (${
          drifted.map(formatShift).join("; ")
        }). Something else was using this host: figures from early and late ` +
        "in the suite are not comparable at face value; run it again on a " +
        "quiet host.",
    );
  }
  return lines.join("\n");
}
