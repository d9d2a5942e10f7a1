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
import type { ResultsDocument } from "../results/types.ts";

const STATUSES = new Set(["ok", "incomplete", "failed", "skipped"]);

/** A results file that cannot be read or is not schema version 1. */
export class ResultsFileError extends Error {
  /** Creates the error; `message` names the file and the problem. */
  constructor(message: string) {
    super(message);
    this.name = "ResultsFileError";
  }
}

/**
 * Checks that parsed JSON has the shape of a schema-version-1 results file.
 * @throws {ResultsFileError} Naming `source` and what is wrong.
 */
export function validateResultsDocument(
  value: unknown,
  source: string,
): ResultsDocument {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v != null && !Array.isArray(v);
  if (!isObject(value)) {
    throw new ResultsFileError(`${source}: not a results file (no object)`);
  }
  if (value.schemaVersion !== 1) {
    throw new ResultsFileError(
      `${source}: unsupported schemaVersion ${
        JSON.stringify(value.schemaVersion)
      } (expected 1)`,
    );
  }
  if (!isObject(value.params)) {
    throw new ResultsFileError(`${source}: missing "params"`);
  }
  if (!Array.isArray(value.results)) {
    throw new ResultsFileError(`${source}: missing "results" array`);
  }
  for (const [i, result] of value.results.entries()) {
    if (
      !isObject(result) || typeof result.id !== "string" ||
      typeof result.status !== "string" || !STATUSES.has(result.status)
    ) {
      throw new ResultsFileError(
        `${source}: results[${i}] has no valid "id" and "status"`,
      );
    }
  }
  return value as unknown as ResultsDocument;
}

/**
 * Reads and validates a results file.
 * @throws {ResultsFileError} If it is missing, unreadable, not JSON, or not
 *   schema version 1.
 */
export async function readResultsDocument(
  path: string,
): Promise<ResultsDocument> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    const cause = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new ResultsFileError(`${path}: cannot read (${cause})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ResultsFileError(
      `${path}: invalid JSON (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
  return validateResultsDocument(parsed, path);
}

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
    const message = error instanceof Error ? error.message : String(error);
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
      console.error(`compare: ${error.message}`);
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
