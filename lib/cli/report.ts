/**
 * `deno task report DIR`: renders a results folder's report again from its
 * JSON, after a change to the report (nothing is measured; the figures are
 * the file's own): `DIR/latest.md`, `DIR/charts/` and `DIR/report.html`
 * from `DIR/latest.json`, whether it holds a suite's results or those of
 * `deno task dequeue-cost` (and from `DIR/dequeue-cost.json`, that
 * command's older file name, when there is no `latest.json`).
 *
 * @module
 */
import { join } from "node:path";
import { REPORT_HTML } from "../report/html/mod.ts";
import {
  isDequeueCostValue,
  OLD_DEQUEUE_COST_FILE,
  validateDequeueCostDocument,
} from "../results/dequeue_cost_record.ts";
import {
  readJsonFile,
  ResultsFileError,
  validateResultsDocument,
} from "../results/read.ts";
import { writeDequeueCostReport, writeResults } from "./write.ts";

/**
 * Rewrites the report of the results folder `dir` from its `latest.json`,
 * or from its `dequeue-cost.json` when it has no `latest.json`.
 * @returns The files and folders rendered, for the user.
 * @throws {ResultsFileError} If the folder has neither file, or the one it
 *   has is not a results file.
 */
export async function rerender(dir: string): Promise<string[]> {
  let path = join(dir, "latest.json");
  let value: unknown;
  try {
    value = await readJsonFile(path);
  } catch (error) {
    if (!(error instanceof ResultsFileError && error.missing)) throw error;
    path = join(dir, OLD_DEQUEUE_COST_FILE);
    value = await readJsonFile(path).catch((other) => {
      // Neither file: the error names latest.json.
      throw other instanceof ResultsFileError && other.missing ? error : other;
    });
  }
  if (isDequeueCostValue(value)) {
    const document = validateDequeueCostDocument(value, path);
    const written = await writeDequeueCostReport(dir, document);
    return written.map((file) => join(dir, file));
  }
  await writeResults(dir, validateResultsDocument(value, path));
  return [
    join(dir, "latest.md"),
    join(dir, "charts"),
    join(dir, REPORT_HTML),
  ];
}

if (import.meta.main) {
  const [dir, ...rest] = Deno.args;
  if (dir == null || rest.length > 0 || dir === "-h" || dir === "--help") {
    console.error(
      "usage: deno task report DIR  (renders DIR/latest.md, DIR/charts/ and " +
        "DIR/report.html again from DIR/latest.json, the bench's or " +
        "dequeue-cost's)",
    );
    Deno.exit(2);
  }
  try {
    const rendered = await rerender(dir);
    console.log(`rendered ${rendered.join(", ")}`);
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    console.error(`error: ${error.message}; run the bench with --out ${dir}`);
    Deno.exit(2);
  }
}
