/**
 * The comparison of two results files for people: the line on the machines'
 * speeds, the table of changes with each median's min–max, and the CI
 * gate's verdict.
 *
 * @module
 */
import {
  formatRange,
  formatRatio,
  formatShift,
  RATE_LABELS,
} from "./calibration_text.ts";
import { alignedTable } from "./markdown_table.ts";
import {
  type CalibrationComparison,
  type ComparedFigure,
  type Comparison,
  type ComparisonRow,
  type FigureChange,
  type FigureRange,
  MIN_RUNS,
  type Regression,
} from "../analysis/mod.ts";

/**
 * The gate's verdict for people: which configurations fail it, or that none
 * does, and how many figures could not be judged.
 */
export function renderGate(
  comparison: Comparison,
  thresholdPercent: number,
  regressions: readonly Regression[],
): string {
  const changes = comparison.rows.flatMap((r) => r.changes);
  const unjudged =
    changes.filter((c) =>
      c.verdict === "too few runs" || c.verdict === "unclear"
    ).length;
  const mild =
    changes.filter((c) =>
      c.verdict === "worse" && !regressions.some((r) => r.figure === c.figure)
    ).length;
  const name = `Regression gate (--fail-on-regression ${thresholdPercent}%)`;
  const lines = regressions.length > 0
    ? [
      `${name}: FAILED, ${regressions.length} regression${
        regressions.length === 1 ? "" : "s"
      } beyond the noise:`,
      ...regressions.map((r) => `- ${r.id}: ${regressionText(r)}`),
    ]
    : [
      `${name}: passed; no configuration is worse beyond the noise by more ` +
      `than ${thresholdPercent}%.`,
    ];
  if (mild > 0 && regressions.length === 0) {
    lines.push(
      `${mild} figure${mild === 1 ? " is" : "s are"} worse beyond the noise ` +
        `but by ${thresholdPercent}% or less.`,
    );
  }
  if (unjudged > 0) {
    lines.push(
      `Not judged: ${unjudged} figure${unjudged === 1 ? "" : "s"} with ` +
        `fewer than ${MIN_RUNS} runs on a side or unclear after ` +
        `normalising; run both suites with --runs ${MIN_RUNS} to judge them.`,
    );
  }
  return lines.join("\n") + "\n";
}

const FIGURE_LABELS: Readonly<Record<ComparedFigure, string>> = {
  receiveSeconds: "receive (s)",
  deliveriesPerSecond: "deliveries/s",
  latencyP99Ms: "p99 latency (ms)",
};

/** Fraction digits for about four significant digits. */
function digitsFor(value: number): number {
  const magnitude = Math.abs(value);
  return magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
}

/** A number with `digits` fraction digits, thousands separated. */
function formatNumber(value: number, digits = digitsFor(value)): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** `10.00 (9.500–11.00)` → `10.00 (9.50–11.00)`: the median's digits throughout. */
function figureRange(range: FigureRange | null): string {
  if (range == null) return "—";
  const digits = digitsFor(range.value);
  const median = formatNumber(range.value, digits);
  return range.min === range.max
    ? median
    : `${median} (${formatNumber(range.min, digits)}–${
      formatNumber(range.max, digits)
    })`;
}

function signed(text: string, value: number): string {
  return value > 0 ? `+${text}` : text;
}

function percentCell(percent: number | null): string {
  return percent == null ? "—" : signed(`${percent.toFixed(1)}%`, percent);
}

/** The verdict for people. */
function verdictText(change: FigureChange): string {
  switch (change.verdict) {
    case null:
      return "—";
    case "too few runs": {
      const fewest = Math.min(change.oldRuns, change.newRuns);
      const which = change.oldRuns === change.newRuns
        ? ""
        : change.oldRuns < change.newRuns
        ? " in old"
        : " in new";
      return `${fewest === 1 ? "single run" : `${fewest} runs`}${which}: ` +
        `noise unknown (use --runs ${MIN_RUNS})`;
    }
    case "unclear":
      return `unclear: raw ${change.raw}, normalised ${change.normalized?.verdict}`;
    default:
      return change.verdict;
  }
}

function figureCells(change: FigureChange, normalizing: boolean): string[] {
  return [
    FIGURE_LABELS[change.figure],
    `${change.oldRuns} / ${change.newRuns}`,
    figureRange(change.oldRange),
    figureRange(change.newRange),
    change.delta == null
      ? "—"
      : signed(formatNumber(change.delta), change.delta),
    percentCell(change.percent),
    ...(normalizing
      ? [
        figureRange(change.normalized?.new ?? null),
        percentCell(change.normalized?.percent ?? null),
      ]
      : []),
    verdictText(change),
  ];
}

function rowLines(row: ComparisonRow, normalizing: boolean): string[][] {
  const blanks = normalizing ? ["", "", "", "", "", ""] : ["", "", "", ""];
  if (row.presence !== "both") {
    return [[
      row.id,
      "",
      "",
      row.oldStatus ?? "—",
      row.newStatus ?? "—",
      ...blanks.slice(2),
      row.presence,
    ]];
  }
  if (row.changes.length === 0) {
    return [[
      row.id,
      "status",
      "",
      row.oldStatus ?? "—",
      row.newStatus ?? "—",
      ...blanks.slice(2),
      row.statusVerdict ?? `still ${row.newStatus}`,
    ]];
  }
  return row.changes.map((change, i) => [
    i === 0 ? row.id : "",
    ...figureCells(change, normalizing),
  ]);
}

const FILE = { old: "old", new: "new" } as const;

/** The one line at the top about the machines' speeds, and drift warnings. */
function calibrationLines(c: CalibrationComparison): string[] {
  const lines: string[] = [];
  if (c.shifts == null) {
    const which = c.unknownIn.length === 2
      ? "both files"
      : `the ${FILE[c.unknownIn[0]]} file`;
    lines.push(
      `Calibration: unknown in ${which} (written before the bench recorded ` +
        "the machine's speed): a change in the host's speed or load cannot " +
        "be told from a change in the queues.",
    );
  } else if (!c.shifts.some((s) => s.beyondNoise)) {
    lines.push(
      `Calibration: no change beyond its noise (${
        c.shifts.map(formatShift).join("; ")
      }).`,
    );
  } else {
    const beyond = c.shifts.filter((s) => s.beyondNoise);
    lines.push(
      `Calibration differs beyond its noise (${
        beyond.map(formatShift).join("; ")
      }): ${
        c.scale == null
          ? `${RATE_LABELS[c.normalizingRate!]}, which dominate a delivery's ` +
            "cost, do not, so nothing is normalised."
          : "the machine's speed changed; each figure is also shown " +
            "normalised to the old file's speed."
      }`,
    );
  }
  for (const side of ["old", "new"] as const) {
    if (c.drift[side].length === 0) continue;
    lines.push(
      `Warning: the ${side} file's calibration drifted during its own suite ` +
        `(${c.drift[side].map(formatShift).join("; ")}): its figures mix ` +
        "two machine speeds.",
    );
  }
  for (const side of ["old", "new"] as const) {
    if (c.noisy[side].length === 0) continue;
    lines.push(
      `Warning: the ${side} file's calibration is itself noisy (${
        c.noisy[side].map(({ rate, range }) =>
          `${RATE_LABELS[rate]} ${formatRange(range)}`
        ).join("; ")
      }): the host was busy during its suite, and its figures are likely ` +
        "as noisy; run it again on a quiet host.",
    );
  }
  return lines;
}

/** A parameter's value in one line: `100`, `none`, or JSON. */
function paramText(value: unknown): string {
  if (value == null) return "none";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * `Measured at commit 1a2b3c4d5e6f (old) and 0f9e8d7c6b5a with uncommitted
 * changes (new).`, or `null` when neither file records its commit.
 */
function commitLine(commits: Comparison["commits"]): string | null {
  if (commits.old == null && commits.new == null) return null;
  const one = (commit: Comparison["commits"]["old"]) =>
    commit == null
      ? "an unknown commit"
      : `\`${commit.sha.slice(0, 12)}\`${
        commit.dirty ? " with uncommitted changes" : ""
      }`;
  return `Measured at ${one(commits.old)} (old) and ${one(commits.new)} (new).`;
}

/**
 * Renders a comparison as a Markdown table (readable as plain text), after a
 * line on the machines' speeds and a warning when the suites' parameters
 * differ.
 */
export function renderComparison(c: Comparison): string {
  const parts: string[] = [];
  const top = calibrationLines(c.calibration);
  if (c.paramDifferences.length > 0) {
    const list = c.paramDifferences
      .map((d) => `${d.name} ${paramText(d.old)} → ${paramText(d.new)}`)
      .join(", ");
    top.unshift(
      `Warning: the suites' parameters differ (${list}); ` +
        "the figures are not directly comparable.",
    );
  }
  const commits = commitLine(c.commits);
  if (commits != null) top.unshift(commits);
  parts.push(top.join("\n") + "\n");
  const normalizing = c.calibration.scale != null;
  const header = [
    "Configuration",
    "Figure",
    "Runs",
    "Old",
    "New",
    "Change",
    "Change %",
    ...(normalizing ? ["New, normalised", "Change %, normalised"] : []),
    "Verdict",
  ];
  const rows = c.rows.flatMap((row) => rowLines(row, normalizing));
  if (rows.length === 0) {
    parts.push("No configurations in either file.\n");
    return parts.join("\n");
  }
  parts.push(
    alignedTable(header, rows, [0, 1, header.length - 1]) + "\n",
  );
  const notes = [
    "Medians over the runs, min–max in parentheses; Runs: old / new.  " +
    `A verdict needs at least ${MIN_RUNS} runs on each side ` +
    `(\`--runs ${MIN_RUNS}\`) and min–max ranges that do not overlap; ` +
    "noise: they overlap.",
  ];
  if (c.calibration.scale != null) {
    const scale = c.calibration.scale;
    notes.push(
      "Normalised: the new figure at the old file's machine speed, by the " +
        `ratio of the files' ${
          RATE_LABELS[c.calibration.normalizingRate!]
        } per second ` +
        `(new ÷ old = ${scale.toFixed(3)}, ${formatRatio(scale)}): times ` +
        "and latencies × it, deliveries/s ÷ it.  A delivery's cost is " +
        "mostly the sender's CPU, dominated by its RSA signature; a " +
        "loopback POST is a small part of it, so the loopback rate " +
        "normalises nothing.  A verdict needs the raw and normalised " +
        "figures to agree; unclear: they do not.",
    );
  }
  const limits = c.rows.filter((row) => row.limitChange != null);
  if (limits.length > 0) {
    notes.push(
      "What limits a configuration changed (its stages, " +
        "docs/methodology.md): " +
        limits.map((row) =>
          `${row.id} ${row.limitChange!.old} → ${row.limitChange!.new}`
        ).join(", ") + ".",
    );
  }
  parts.push(notes.join("\n") + "\n");
  return parts.join("\n");
}

/** `receive (s) 10.00 (9.80–10.20) → 12.50 (12.40–12.60), 25.0% worse`. */
function regressionText(r: Regression): string {
  if (r.figure === "missing") {
    return `missing from the new file (${r.oldStatus} in the old one)`;
  }
  if (r.change == null) return `status ${r.oldStatus} → ${r.newStatus}`;
  return `${FIGURE_LABELS[r.change.figure]} ${
    figureRange(r.change.oldRange)
  } → ${figureRange(r.change.newRange)}, ${r.percent?.toFixed(1)}% worse`;
}
