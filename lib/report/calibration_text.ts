/**
 * Calibrations in words: a rate with its noise, a change between two, and
 * the calibration's lines in the report's "Machine" section, with a warning
 * when the machine's speed drifted during the suite; and the rows' own
 * calibrations: their spread over the suite, and the notice above the table
 * naming the rows measured more than 10 % from the median.
 *
 * @module
 */
import {
  CALIBRATION_RATES,
  type CalibrationRate,
  DRIFT_LIMIT,
  driftOf,
  rateOf,
  type RateRange,
  type RateShift,
  type RowDrift,
  rowDrift,
} from "../results/calibration_drift.ts";
import type { Calibration, CalibrationPoint } from "../results/mod.ts";

/** What each rate is, for prose. */
export const RATE_LABELS: Readonly<Record<CalibrationRate, string>> = {
  rsaSignsPerSecond: "RSA-2048 signatures",
  rsaSignsPerSecondAllCores: "RSA-2048 signatures on every core",
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
    }${
      p.rsaSignsPerSecondAllCores == null ||
        p.spread.rsaSignsPerSecondAllCores == null
        ? ""
        : `; RSA-2048 signatures on ${p.threads ?? "all"} threads ${
          formatRange({
            value: p.rsaSignsPerSecondAllCores,
            ...p.spread.rsaSignsPerSecondAllCores,
          })
        }`
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
        }). Either something else was using this host or its own speed ` +
        "changed (a virtual machine's neighbours, its clock): figures from " +
        "early and late in the suite are not comparable at face value; check " +
        "what else ran (`ps`) and run it again on a quiet host.",
    );
  }
  return lines.join("\n");
}

/** What each row rate is, for prose: `RSA-2048 signatures on 2 threads`. */
function rowRateLabel(drift: RowDrift): string {
  return drift.rate === "rsaSignsPerSecond"
    ? "RSA-2048 signatures on one thread"
    : `RSA-2048 signatures on ${drift.threads} threads (every core)`;
}

/** `480–600/s (median 580/s, a range of 20.7%)`. */
function driftRange(drift: RowDrift): string {
  const values = drift.rows.map((r) => r.value);
  return `${whole.format(Math.min(...values))}–${
    whole.format(Math.max(...values))
  }/s (median ${whole.format(drift.median)}/s, a range of ${
    (100 * drift.range).toFixed(1)
  }%)`;
}

/**
 * The notice above the report's table when the host's speed moved by more
 * than {@link DRIFT_LIMIT} across the suite: how far, and which rows sat
 * that far from the median.  `null` when no row did (or fewer than two
 * rows were calibrated).
 */
export function renderDriftNotice(
  results: readonly { id: string; calibration?: CalibrationPoint }[],
): string | null {
  const drifts = rowDrift(results);
  const affected = new Map<string, string[]>();
  for (const drift of drifts) {
    for (const row of drift.affected) {
      const what = `${formatRatio(row.ratio)} ${
        drift.rate === "rsaSignsPerSecond"
          ? "on one thread"
          : `on ${drift.threads} threads`
      }`;
      affected.set(row.id, [...affected.get(row.id) ?? [], what]);
    }
  }
  if (affected.size === 0) return null;
  const limit = `${(100 * DRIFT_LIMIT).toFixed(0)}%`;
  const rows = [...affected].map(([id, whats]) =>
    `\`${id}\` (${whats.join(", ")})`
  );
  return `> **The host's speed drifted by more than ${limit} during this ` +
    `suite.** Each row's calibration, taken just before it: ${
      drifts.map((d) => `${rowRateLabel(d)} ${driftRange(d)}`).join("; ")
    }. Measured more than ${limit} from the median: ${rows.join(", ")}. ` +
    "These rows ran on a slower or faster host than the others: their " +
    "figures are not comparable with the rest at face value. No figure " +
    "corrected by the calibration is given (see docs/methodology.md); " +
    "run the suite again on a quiet host, or with `--runs 3` so that each " +
    "configuration is measured at different moments.";
}

/**
 * The rows' own calibrations for the report's "Machine" section: the range
 * over the suite and each row's rates against the median, as Markdown; `null`
 * when fewer than two rows were calibrated.
 */
export function renderRowCalibrations(
  results: readonly { id: string; calibration?: CalibrationPoint }[],
): string | null {
  const drifts = rowDrift(results);
  if (drifts.length === 0) return null;
  const first = results.find((r) => r.calibration != null)!.calibration!;
  const cell = (drift: RowDrift | undefined, id: string) => {
    const row = drift?.rows.find((r) => r.id === id);
    return row == null
      ? "—"
      : `${whole.format(row.value)}/s (${formatRatio(row.ratio)})`;
  };
  const [one, all] = [
    drifts.find((d) => d.rate === "rsaSignsPerSecond"),
    drifts.find((d) => d.rate === "rsaSignsPerSecondAllCores"),
  ];
  const calibrated = results.filter((r) => r.calibration != null);
  const table = [
    `| Configuration | Measured at | One thread | ${
      all == null ? "All cores" : `${all.threads} threads`
    } |`,
    "| :-- | :-- | --: | --: |",
    ...calibrated.map((r) =>
      `| ${r.id} | ${r.calibration!.measuredAt} | ${cell(one, r.id)} | ${
        cell(all, r.id)
      } |`
    ),
  ];
  return [
    `- **Calibration before each row** (RSA-2048 signatures per second, ` +
    `median of ${first.slices} slices of ${first.sliceSeconds} s, against ` +
    `the median over the rows): ${
      drifts.map((d) => `${rowRateLabel(d)} ${driftRange(d)}`).join("; ")
    }.`,
    "",
    ...table,
  ].join("\n");
}
