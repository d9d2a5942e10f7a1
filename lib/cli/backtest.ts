/**
 * `deno task backtest [DIR]`: how well the estimator of unfinished rows
 * does on recorded timelines, and how long a default run takes with each
 * time limit.  Reads `DIR/latest.json` and every `DIR/*\/latest.json`
 * (default `results`); prints the back-test (each finished burst row cut at
 * 25 % and 50 % of its deliveries, where the default's stop rule could
 * first judge it, and where the default's time limit stops it, its
 * estimate against its measured total; each row the time limit cut off,
 * cut at 25 % and 50 % of what it delivered, against when it did; each row
 * stopped before its end against a finish, or the run that got furthest,
 * of the same configuration in another of the files) and the simulation of
 * `DIR/latest.json` under several time limits.  Exit codes: 0 printed; 2
 * bad input or nothing to read.
 *
 * @module
 */
import { resolve } from "node:path";
import { REST_HIGH, REST_LOW } from "../measure/estimate.ts";
import { nearestRank } from "../measure/stats.ts";
import { DEFAULT_TIMEOUT_SECONDS } from "../params/mod.ts";
import {
  backTest,
  type BackTestCase,
  BOUNDS_TARGETS,
  type BoundsCheck,
  checkBounds,
  CUTS,
  defaultLimitsOf,
  type EstimateAgainstFinish,
  median,
  projectionTest,
  simulateSuite,
  type Source,
  stoppedAgainstFinishes,
} from "../analysis/mod.ts";
import { readSources } from "./advise.ts";

const USAGE = `Usage: deno task backtest [DIR]

Back-tests the estimate of unfinished rows on the timelines in DIR/latest.json
and DIR/*/latest.json (default: results), and simulates how long the suite in
DIR/latest.json takes with each per-row time limit.`;

/** Time limits in seconds the simulation tries. */
const LIMITS: readonly number[] = [
  ...new Set([600, 900, DEFAULT_TIMEOUT_SECONDS, 1_800, 3_600]),
].sort((a, b) => a - b);

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
  return `\nThe bounds where the default judges a row (its first judgement, or its stop), against their targets (${
    check.met ? "all met" : "not all met"
  }): ${check.cases} cases from ${check.rows} rows of ${check.queues} ` +
    `queues (targets: ${t.rows} rows, ${t.queues} queues); actual within ` +
    `bounds ${pct(check.coverage)} (≥ ${pct(t.coverage)}); median |error| ` +
    `${pct(check.medianAbsError)} (≤ ${pct(t.medianAbsError)}); widest ` +
    `(high − low) ÷ estimate ${check.maxWidth.toFixed(2)} (≤ ` +
    `${t.maxWidth}).\nActual rest ÷ estimated rest after the cut ` +
    `(what the bounds, the rest taking ${REST_LOW}–${REST_HIGH} of its ` +
    `estimate, rest on): min ${at(0)} (≥ ${t.fastestRest}, the fastest ` +
    `rest the stop rule believes), 5th ` +
    `percentile ${at(0.05)}, median ${at(0.5)}, 95th ${at(0.95)}, max ` +
    `${at(1)}.`;
}

function cutLabel(cut: BackTestCase["cut"]): string {
  return typeof cut === "string" ? cut : `${cut * 100} %`;
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

/** The back-tests of every file: finished rows and rows cut off. */
function runBackTests(sources: readonly Source[]): {
  cases: BackTestCase[];
  projections: BackTestCase[];
} {
  const cases = sources.flatMap((s) =>
    backTest(
      s.path,
      s.document.results,
      defaultLimitsOf(s.document),
      CUTS,
      s.document.environment?.packages,
      s.document.params.total,
    )
  );
  const projections = sources.flatMap((s) =>
    projectionTest(
      s.path,
      s.document.results,
      CUTS,
      s.document.environment?.packages,
      s.document.params.total,
    )
  );
  return { cases, projections };
}

/** The summary lines of the cases, cut by cut. */
function printSummaries(
  cases: readonly BackTestCase[],
  projections: readonly BackTestCase[],
): void {
  console.log("\nSummary (error = estimate / actual − 1):");
  for (const cut of CUTS) {
    const label = `${cut * 100} %`;
    console.log(
      summary(cases.filter((c) => c.cut === cut), `finished, at ${label}`),
    );
  }
  console.log(
    summary(
      cases.filter((c) => c.cut === "judged"),
      "finished, where the default first judges them",
    ),
  );
  const stops = cases.filter((c) => c.cut === "stop");
  console.log(summary(stops, "finished, at the default's stop"));
  for (const cut of CUTS) {
    console.log(
      summary(
        projections.filter((c) => c.cut === cut),
        `cut off, at ${cut * 100} %`,
      ),
    );
  }
}

/** The bounds' check over the cases where the default judges a row. */
function printBounds(
  sources: readonly Source[],
  cases: readonly BackTestCase[],
): void {
  const drivers = new Map(
    sources.flatMap((s) =>
      s.document.results.map((r) => [`${s.path}\n${r.id}`, r.driver] as const)
    ),
  );
  console.log(boundsReport(checkBounds(
    cases.filter((c) => c.cut === "judged" || c.cut === "stop").map((c) => ({
      ...c,
      driver: drivers.get(`${c.file}\n${c.id}`) ?? c.id,
    })),
  )));
}

/** The rows the default stops, each against its own finish. */
function printStops(stops: readonly BackTestCase[]): void {
  console.log(
    "\nRows the default stops, against their own finishes (each one's " +
      "estimate at the default's stop and its error):",
  );
  for (const c of stops) {
    const e = c.estimate;
    console.log(
      `${c.file} ${c.id}: stopped at ${c.atSeconds} s, estimate ` +
        `${e.totalSeconds} s (${e.lowSeconds}–${e.highSeconds}), finished ` +
        `in ${c.actualSeconds.toFixed(1)} s: ${percent(c.error)}${
          c.withinBounds ? ", within its bounds" : ", outside its bounds"
        }`,
    );
  }
  if (stops.length === 0) console.log("none in these files");
}

/** Rows stopped before their end, against a longer run in another file. */
function printFinishes(sources: readonly Source[]): void {
  console.log(
    "\nRows stopped before their end, against a longer run of the same " +
      "configuration in another file: a finish (the estimate as the run " +
      "recorded it, and as the estimator now makes it where the default " +
      "stops the recording), else the run that got furthest (when the " +
      "estimator now says the row reaches as many deliveries as that run " +
      "made, against when it made them):",
  );
  const finishes = stoppedAgainstFinishes(sources);
  for (const f of finishes) {
    const said = (label: string, e: EstimateAgainstFinish | null) =>
      e == null
        ? `${label}: none`
        : `${label} at ${Math.round(e.atSeconds)} s, ` +
          `${e.totalSeconds} s (${e.lowSeconds}–${e.highSeconds}): ` +
          `${percent(e.error)}, ${e.withinBounds ? "within" : "outside"} ` +
          "its bounds";
    console.log(
      `${f.file} ${f.id} (${f.delivered} delivered): ${
        f.finished ? `${said("as recorded", f.recorded)}; ` : ""
      }${said("now", f.now)}; ${
        f.finished ? "finished" : `${f.target} delivered`
      } in ${f.actualSeconds.toFixed(1)} s in ${f.finishFile}`,
    );
  }
  if (finishes.length === 0) console.log("none in these files");
}

/** The suite of `DIR/latest.json` replayed under each time limit. */
function printSuite(suite: Source): void {
  const { document } = suite;
  console.log(
    `\nThe suite of ${suite.path} replayed under each time limit (recorded ` +
      `wall time ${
        minutes(
          (Date.parse(document.finishedAt ?? document.startedAt) -
            Date.parse(document.startedAt)) / 1000,
        )
      }, its own limit ${document.params.timeoutSeconds} s; a row cut off ` +
      "in the recording stops there at the latest):",
  );
  for (const limit of LIMITS) {
    const all = simulateSuite(document, {
      budgetSeconds: null,
      timeoutSeconds: limit,
    });
    const finished = all.rows.filter((r) => r.finished).length;
    console.log(
      `time limit ${limit} s${
        limit === DEFAULT_TIMEOUT_SECONDS ? " (default)" : ""
      }: ${minutes(all.totalSeconds)}, ${finished} of ${all.rows.length} ` +
        `rows finish (overhead ${all.overheadSeconds.toFixed(1)} s per row)`,
    );
  }
  const defaults = defaultLimitsOf(document);
  const chosen = simulateSuite(document, defaults);
  console.log(
    `\nRows under the default's time limit (${defaults.timeoutSeconds} s):`,
  );
  for (const row of chosen.rows) {
    const end = row.atRecordedEnd;
    console.log(
      `${row.id}: ${row.seconds.toFixed(0)} s${
        row.finished ? " (finishes)" : `, ${row.reason}`
      }${
        end == null
          ? ""
          : `; estimated there from its recording: ${end.totalSeconds} s (${end.lowSeconds}–${end.highSeconds}), ${
            end.settled ? "settled" : "not settled"
          }: ${end.basis}`
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
  const { cases, projections } = runBackTests(sources);
  printCases(
    "Finished rows, cut at a share of their deliveries, where the default " +
      "could first judge them (judged), and where the default's time limit " +
      `of ${DEFAULT_TIMEOUT_SECONDS} s stops them (stop)`,
    cases,
  );
  printCases(
    "Rows the time limit cut off, cut at a share of what they delivered, " +
      "against when they delivered it",
    projections,
  );
  printSummaries(cases, projections);
  printBounds(sources, cases);
  printStops(cases.filter((c) => c.cut === "stop"));
  printFinishes(sources);
  const suitePath = resolve(dir, "latest.json");
  const suite = sources.find((s) => resolve(s.path) === suitePath);
  if (suite != null) printSuite(suite);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
