/**
 * The command line that compares two results files (see `lib/analysis/comparison.ts`),
 * and optionally gates CI on regressions:
 *
 * `deno task compare [[OLD] NEW] [--fail-on-regression 10%]`
 *
 * OLD defaults to the published results (`results/latest.json`), NEW to the
 * latest plain run (`runs/latest`), so that `deno task compare` after
 * `deno task bench` compares that run with the published one.  A folder
 * stands for its `latest.json`.
 *
 * Exit codes: 0, 1 when the gate finds a configuration worse beyond the
 * noise by more than the threshold (or missing from NEW), 2 for bad
 * arguments, unreadable files, or any other error (never 1, which CI would
 * read as a regression).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { compareResults, findRegressions } from "../analysis/mod.ts";
import { renderComparison, renderGate } from "../report/changes_table.ts";
import { errorMessage } from "../results/error_message.ts";
import { readResultsDocument, ResultsFileError } from "../results/read.ts";
import {
  LATEST,
  latestRun,
  PUBLISHED_DIR,
  resultsFile,
  RUNS_DIR,
} from "./paths.ts";

const USAGE = "Usage: deno task compare [[OLD] NEW] " +
  "[--fail-on-regression PERCENT]\n" +
  `OLD: default ${PUBLISHED_DIR}/latest.json (the published results); ` +
  `NEW: default ${RUNS_DIR}/${LATEST} (the latest \`deno task bench\`); ` +
  "a folder stands for its latest.json";

/** A command line the compare tool cannot act on. */
class UsageError extends Error {}

/**
 * `10%` or `10` → 10.
 * @throws {UsageError} Naming the fix.
 */
function parseThreshold(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (match == null) {
    throw new UsageError(
      `--fail-on-regression needs a percentage such as 10% (got ${
        JSON.stringify(text)
      })`,
    );
  }
  return Number(match[1]);
}

/**
 * The command line: prints the comparison, and with `--fail-on-regression`
 * the gate's verdict; returns the exit code: 0, 1 when the gate fails, 2 for
 * bad arguments, unreadable files, or an unexpected error.
 */
export async function main(args: readonly string[]): Promise<number> {
  let paths: string[];
  let threshold: number | null = null;
  let defaulted = false;
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: {
        "fail-on-regression": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length > 2) {
      throw new UsageError(
        `expected at most two results files, got ${positionals.length}`,
      );
    }
    defaulted = positionals.length < 2;
    paths = positionals.length === 2
      ? positionals
      : [PUBLISHED_DIR, positionals[0] ?? await newest()];
    const gate = values["fail-on-regression"];
    if (gate != null) threshold = parseThreshold(gate);
  } catch (error) {
    const message = errorMessage(error);
    console.error(`compare: ${message}\n${USAGE}`);
    return 2;
  }
  try {
    const files = await Promise.all(paths.map(resultsFile));
    if (defaulted) {
      console.error(`Comparing ${files[0]} (old) with ${files[1]} (new)`);
    }
    const [oldDoc, newDoc] = await Promise.all(files.map(readResultsDocument));
    const comparison = compareResults(oldDoc, newDoc);
    console.log(renderComparison(comparison).trimEnd());
    if (threshold == null) return 0;
    const regressions = findRegressions(comparison, threshold);
    console.log(
      "\n" + renderGate(comparison, threshold, regressions).trimEnd(),
    );
    return regressions.length > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof ResultsFileError) {
      const fix = error.missing
        ? ""
        : "; give the latest.json that `deno task bench` writes";
      console.error(`compare: ${error.message}${fix}`);
      return 2;
    }
    console.error(
      "compare: internal error (a results file with fields of an unexpected " +
        "shape?); please report it with both files:",
      error,
    );
    return 2;
  }
}

/**
 * The latest plain run's folder.
 * @throws {UsageError} When there is none, naming the fix.
 */
async function newest(): Promise<string> {
  const run = await latestRun();
  if (run == null) {
    throw new UsageError(
      `no run in ${RUNS_DIR}/ to compare (${RUNS_DIR}/${LATEST} is missing): ` +
        "run `deno task bench` first, or name the results file",
    );
  }
  return run;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
