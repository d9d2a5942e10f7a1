/**
 * `deno task backtest [DIR]`: how well the estimator of unfinished rows
 * does on recorded timelines, and how long a default run takes with each
 * budget.  Reads `DIR/latest.json` and every `DIR/*\/latest.json` (default
 * `results`); prints the back-test (each finished burst row cut at 25 % and
 * 50 % of its deliveries and where the default budget stops it, its
 * estimate against its measured total; each row the time limit cut off,
 * cut at 25 % and 50 % of what it delivered, against when it did) and the
 * simulation of `DIR/latest.json` under several budgets.  Exit codes: 0
 * printed; 2 bad input or nothing to read.
 *
 * @module
 */
import { resolve } from "node:path";
import { REST_HIGH, REST_LOW } from "../measure/estimate.ts";
import { nearestRank } from "../measure/stats.ts";
import {
  DEFAULT_BUDGET_OF_NONE,
  DEFAULT_BUDGET_SECONDS,
} from "../params/mod.ts";
import { NEAR_END, type RunLimits } from "../run/budget.ts";
import {
  backTest,
  type BackTestCase,
  BOUNDS_TARGETS,
  type BoundsCheck,
  checkBounds,
  CUTS,
  defaultLimitsOf,
  median,
  noneMultiples,
  projectionTest,
  simulateSuite,
} from "../run/backtest.ts";
import { readSources } from "./advise.ts";

const USAGE = `Usage: deno task backtest [DIR]

Back-tests the estimate of unfinished rows on the timelines in DIR/latest.json
and DIR/*/latest.json (default: results), and simulates how long the suite in
DIR/latest.json takes with each per-row budget.`;

/** Budgets in seconds the simulation tries. */
const BUDGETS: readonly number[] = [60, 80, 90, 120, 150, 180];
/** Budgets as multiples of the none row the simulation tries. */
const FACTORS: readonly number[] = [
  ...new Set([0.6, DEFAULT_BUDGET_OF_NONE, 1, 1.2, 1.87]),
].sort((a, b) => a - b);
/** Rows the simulation also tries leaving out. */
const OPTIONAL_ROWS: readonly string[] = [
  "deno-kv-single",
  "deno-kv-single-x4",
];

function percent(value: number): string {
  return `${value >= 0 ? "+" : ""}${(value * 100).toFixed(0)} %`;
}

function minutes(seconds: number): string {
  return `${(seconds / 60).toFixed(1)} min`;
}

/** The `q` quantile of some numbers (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function summary(cases: readonly BackTestCase[], label: string): string {
  if (cases.length === 0) return `${label}: no cases`;
  const errors = cases.map((c) => Math.abs(c.error));
  const within = cases.filter((c) => c.withinBounds).length;
  return `${label}: ${cases.length} cases, median |error| ` +
    `${(median(errors) * 100).toFixed(0)} %, signed median ` +
    `${percent(median(cases.map((c) => c.error)))}, 90th percentile ` +
    `${(quantile(errors, 0.9) * 100).toFixed(0)} %, worst ` +
    `${(Math.max(...errors) * 100).toFixed(0)} %; actual within bounds in ` +
    `${within} of ${cases.length}`;
}

/** The bounds' check at the default's stop, against the targets. */
function boundsReport(check: BoundsCheck): string {
  const t = BOUNDS_TARGETS;
  const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
  const ratios = check.restRatios;
  const at = (q: number) =>
    ratios.length === 0 ? "—" : nearestRank(ratios, q).toFixed(2);
  return `\nThe bounds at the default's stop, against their targets (${
    check.met ? "all met" : "not all met"
  }): ${check.cases} cases from ${check.rows} rows of ${check.queues} ` +
    `queues (targets: ${t.rows} rows, ${t.queues} queues); actual within ` +
    `bounds ${pct(check.coverage)} (≥ ${pct(t.coverage)}); median |error| ` +
    `${pct(check.medianAbsError)} (≤ ${pct(t.medianAbsError)}); median ` +
    `width (high − low) ÷ estimate ${check.medianWidth.toFixed(2)} (≤ ` +
    `${t.medianWidth}).\nActual rest ÷ estimated rest after the stop ` +
    `(what the bounds, the rest taking ${REST_LOW}–${REST_HIGH} of its ` +
    `estimate, rest on): min ${at(0)}, 5th ` +
    `percentile ${at(0.05)}, median ${at(0.5)}, 95th ${at(0.95)}, max ` +
    `${at(1)}.`;
}

function cutLabel(cut: number | "stop"): string {
  return cut === "stop" ? "stop" : `${cut * 100} %`;
}

function printCases(title: string, cases: readonly BackTestCase[]): void {
  console.log(`\n${title}:\n`);
  console.log(
    "file | row | cut | at s | target | actual s | estimate s (bounds) | error",
  );
  for (const c of cases) {
    const e = c.estimate;
    console.log(
      `${c.file} | ${c.id} | ${cutLabel(c.cut)} | ${c.atSeconds} | ` +
        `${c.target} | ${c.actualSeconds.toFixed(1)} | ${e.totalSeconds} ` +
        `(${e.lowSeconds}–${e.highSeconds}) | ${percent(c.error)}${
          c.withinBounds ? "" : " (outside bounds)"
        }`,
    );
  }
}

/** The command line; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  if (args.length > 1 || args.some((a) => a.startsWith("-"))) {
    console.error(`error: unexpected ${args.join(" ")}\n\n${USAGE}`);
    return 2;
  }
  const dir = args[0] ?? "results";
  const sources = await readSources(dir);
  if (sources.length === 0) {
    console.error(`error: no results file in ${dir}; give a results folder`);
    return 2;
  }
  const cases = sources.flatMap((s) =>
    backTest(
      s.path,
      s.document.results,
      defaultLimitsOf(s.document),
      CUTS,
      s.document.environment?.packages,
    )
  );
  const projections = sources.flatMap((s) =>
    projectionTest(
      s.path,
      s.document.results,
      CUTS,
      s.document.environment?.packages,
    )
  );
  printCases(
    "Finished rows, cut at a share of their deliveries and where the " +
      `default budget (${DEFAULT_BUDGET_OF_NONE} × the file's none row, or ` +
      `${DEFAULT_BUDGET_SECONDS} s in a file without one) stops them`,
    cases,
  );
  printCases(
    "Rows the time limit cut off, cut at a share of what they delivered, " +
      "against when they delivered it",
    projections,
  );
  console.log("\nSummary (error = estimate / actual − 1):");
  for (const cut of CUTS) {
    const label = `${cut * 100} %`;
    console.log(
      summary(cases.filter((c) => c.cut === cut), `finished, at ${label}`),
    );
  }
  console.log(
    summary(
      cases.filter((c) => c.cut === "stop"),
      "finished, at the default's stop",
    ),
  );
  for (const cut of CUTS) {
    console.log(
      summary(
        projections.filter((c) => c.cut === cut),
        `cut off, at ${cut * 100} %`,
      ),
    );
  }
  const drivers = new Map(
    sources.flatMap((s) =>
      s.document.results.map((r) => [`${s.path}\n${r.id}`, r.driver] as const)
    ),
  );
  console.log(boundsReport(checkBounds(
    cases.filter((c) => c.cut === "stop").map((c) => ({
      ...c,
      driver: drivers.get(`${c.file}\n${c.id}`) ?? c.id,
    })),
  )));

  const suitePath = resolve(dir, "latest.json");
  const suite = sources.find((s) => resolve(s.path) === suitePath);
  if (suite == null) return 0;
  const { document } = suite;
  console.log(
    `\nThe suite of ${suite.path} replayed under each budget (recorded wall time ` +
      `${
        minutes(
          (Date.parse(document.finishedAt ?? document.startedAt) -
            Date.parse(document.startedAt)) / 1000,
        )
      }), time limit ${document.params.timeoutSeconds} s:`,
  );
  const multiples = noneMultiples(document);
  const budgets: { label: string; limits: RunLimits }[] = [
    ...BUDGETS.map((budget) => ({
      label: `budget ${budget} s`,
      limits: {
        budgetSeconds: budget,
        timeoutSeconds: document.params.timeoutSeconds,
      },
    })),
    ...(multiples.length > 0
      ? FACTORS.map((factor) => {
        const limits = defaultLimitsOf(document, factor);
        return {
          label: `budget ${factor} × none (${limits.budgetSeconds} s)${
            factor === DEFAULT_BUDGET_OF_NONE ? " (default)" : ""
          }`,
          limits,
        };
      })
      : []),
  ];
  for (const { label, limits } of budgets) {
    const all = simulateSuite(document, limits);
    const without = simulateSuite(document, limits, OPTIONAL_ROWS);
    const finished = all.rows.filter((r) => r.finished).length;
    console.log(
      `${label}: ` +
        `${minutes(all.totalSeconds)}, ${finished} of ${all.rows.length} ` +
        `rows finish; without ${OPTIONAL_ROWS.join(", ")}: ` +
        `${minutes(without.totalSeconds)} (overhead ` +
        `${all.overheadSeconds.toFixed(1)} s per row)`,
    );
  }
  if (multiples.length > 0) {
    const line = NEAR_END * DEFAULT_BUDGET_OF_NONE;
    console.log(
      `\nEach row's total as a multiple of the none row's (~ an estimate); ` +
        `the default runs a row to its end when its estimate at the budget ` +
        `is within ${NEAR_END} × ${DEFAULT_BUDGET_OF_NONE} = ` +
        `${Number(line.toFixed(2))} ×:\n` +
        multiples.map((m) =>
          `${m.id} ${m.estimated ? "~" : ""}${m.multiple.toFixed(2)}`
        ).join(", "),
    );
  }
  const defaults = defaultLimitsOf(document);
  const chosen = simulateSuite(document, defaults);
  console.log(
    `\nRows with the default budget (${defaults.budgetSeconds} s here):`,
  );
  for (const row of chosen.rows) {
    console.log(
      `${row.id}: ${row.seconds.toFixed(0)} s${
        row.finished ? " (finishes)" : `, ${row.reason}`
      }`,
    );
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
