/**
 * Reading a results file (`latest.json`, as `deno task bench` writes it)
 * back: the one place that parses and checks one, for `--resume` and for
 * `deno task compare`.  A file that cannot be used gives a
 * {@link ResultsFileError} whose message names the file and what is wrong.
 *
 * @module
 */
import { errorMessage } from "./error_message.ts";
import { READABLE_SCHEMA_VERSIONS, type ResultsDocument } from "./document.ts";

const STATUSES = new Set(["ok", "incomplete", "failed", "skipped"]);

/** A results file that cannot be read or has a schema version not read here. */
export class ResultsFileError extends Error {
  /** Whether the file does not exist (rather than being unusable). */
  readonly missing: boolean;

  /**
   * Creates the error.
   * @param message Names the file and the problem.
   * @param missing Whether the file does not exist.
   */
  constructor(message: string, missing = false) {
    super(message);
    this.name = "ResultsFileError";
    this.missing = missing;
  }
}

/**
 * Checks that parsed JSON has the shape of a results file: an object with
 * a readable `schemaVersion` (1 or 2), `params`, and a `results` array whose
 * entries each have an `id` and a known `status`.
 *
 * @param value The parsed JSON.
 * @param source Names the file in errors.
 * @returns The same value, as a results document.
 * @throws {ResultsFileError} Naming `source` and what is wrong.
 */
export function validateResultsDocument(
  value: unknown,
  source: string,
): ResultsDocument {
  assertResultsShape(value, source);
  return value;
}

/** What {@link validateResultsDocument} checks, as an assertion. */
function assertResultsShape(
  value: unknown,
  source: string,
): asserts value is ResultsDocument {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v != null && !Array.isArray(v);
  if (!isObject(value)) {
    throw new ResultsFileError(`${source}: not a results file (no object)`);
  }
  if (!READABLE_SCHEMA_VERSIONS.includes(value.schemaVersion as number)) {
    throw new ResultsFileError(
      `${source}: unsupported schemaVersion ${
        JSON.stringify(value.schemaVersion)
      } (expected ${READABLE_SCHEMA_VERSIONS.join(" or ")}; a newer ` +
        "file needs a newer fedify-queue-bench)",
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
}

/**
 * Reads and validates a results file.
 *
 * @param path The file.
 * @returns Its document.
 * @throws {ResultsFileError} If it is missing ({@link ResultsFileError.missing}
 *   is then `true`), unreadable, not JSON, or not schema version 1; the
 *   message starts with `path`.
 */
export async function readResultsDocument(
  path: string,
): Promise<ResultsDocument> {
  return validateResultsDocument(await readJsonFile(path), path);
}

/**
 * Reads a JSON file of results (any kind).
 *
 * @param path The file.
 * @returns Its parsed JSON.
 * @throws {ResultsFileError} If it is missing ({@link ResultsFileError.missing}
 *   is then `true`), unreadable or not JSON; the message starts with `path`.
 */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    const missing = error instanceof Deno.errors.NotFound;
    const cause = missing
      ? "no such file"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new ResultsFileError(`${path}: cannot read (${cause})`, missing);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ResultsFileError(
      `${path}: invalid JSON (${errorMessage(error)})`,
    );
  }
}
