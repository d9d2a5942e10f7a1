/**
 * `deno task report DIR`: renders a results folder's report again from its
 * JSON, after a change to the report (nothing is measured; the figures are
 * the file's own): `DIR/latest.md` and `DIR/charts/` from
 * `DIR/latest.json`, or, in a folder of `deno task dequeue-cost`,
 * `dequeue-cost.md` and `dequeue-cost.svg` from `dequeue-cost.json`.
 *
 * @module
 */
import { join } from "node:path";
import { writeDequeueCostReport } from "../report/dequeue_cost.ts";
import { writeResults } from "../report/markdown.ts";
import {
  DEQUEUE_COST_FILE,
  readDequeueCostDocument,
} from "../results/dequeue_cost.ts";
import { readResultsDocument, ResultsFileError } from "../results/read.ts";

/**
 * Rewrites the report of the results folder `dir` from its `latest.json`,
 * or from its `dequeue-cost.json` when it has no `latest.json`.
 * @returns The files and folders rendered, for the user.
 * @throws {ResultsFileError} If the folder has neither file, or the one it
 *   has is not a results file.
 */
export async function rerender(dir: string): Promise<string[]> {
  let document;
  try {
    document = await readResultsDocument(join(dir, "latest.json"));
  } catch (error) {
    if (!(error instanceof ResultsFileError && error.missing)) throw error;
    const dequeueCost = await readDequeueCostDocument(
      join(dir, DEQUEUE_COST_FILE),
    ).catch((other) => {
      // Neither file: the error names the bench's.
      throw other instanceof ResultsFileError && other.missing ? error : other;
    });
    await writeDequeueCostReport(dir, dequeueCost);
    return [join(dir, "dequeue-cost.md"), join(dir, "dequeue-cost.svg")];
  }
  await writeResults(dir, document);
  return [join(dir, "latest.md"), join(dir, "charts")];
}

if (import.meta.main) {
  const [dir, ...rest] = Deno.args;
  if (dir == null || rest.length > 0 || dir === "-h" || dir === "--help") {
    console.error(
      "usage: deno task report DIR  (renders DIR/latest.md and DIR/charts/ " +
        "again from DIR/latest.json, or DIR/dequeue-cost.md and .svg from " +
        "DIR/dequeue-cost.json)",
    );
    Deno.exit(2);
  }
  try {
    const rendered = await rerender(dir);
    console.log(`rendered ${rendered.join(" and ")}`);
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    console.error(`error: ${error.message}; run the bench with --out ${dir}`);
    Deno.exit(2);
  }
}
