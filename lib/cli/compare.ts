/**
 * The command line that compares two results files (see `comparison.ts`),
 * and optionally gates CI on regressions:
 *
 * `deno task compare OLD.json NEW.json [--fail-on-regression 10%]`
 *
 * Exit codes: 0, 1 when the gate finds a configuration worse beyond the
 * noise by more than the threshold (or missing from NEW), 2 for bad
 * arguments, unreadable files, or any other error (never 1, which CI would
 * read as a regression).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { compareResults, findRegressions } from "../report/comparison.ts";
import { renderComparison, renderGate } from "../report/comparison_report.ts";
import { errorMessage } from "../results/error_message.ts";
import { readResultsDocument, ResultsFileError } from "../results/read.ts";

const USAGE = "Usage: deno task compare OLD.json NEW.json " +
  "[--fail-on-regression PERCENT]";

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
    if (positionals.length !== 2) {
      throw new UsageError(
        `expected two results files, got ${positionals.length}`,
      );
    }
    paths = positionals;
    const gate = values["fail-on-regression"];
    if (gate != null) threshold = parseThreshold(gate);
  } catch (error) {
    const message = errorMessage(error);
    console.error(`compare: ${message}\n${USAGE}`);
    return 2;
  }
  try {
    const [oldDoc, newDoc] = await Promise.all(paths.map(readResultsDocument));
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

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
