/**
 * `deno task report DIR`: renders `DIR/latest.md` and `DIR/charts/` again
 * from `DIR/latest.json`, after a change to the report (nothing is measured;
 * the figures are the file's own).
 *
 * @module
 */
import { join } from "node:path";
import { writeResults } from "../report/markdown.ts";
import { readResultsDocument, ResultsFileError } from "../results/read.ts";

/**
 * Rewrites the report of the results folder `dir` from its `latest.json`.
 * @throws {ResultsFileError} If `latest.json` is missing or not a results
 *   file.
 */
export async function rerender(dir: string): Promise<void> {
  const document = await readResultsDocument(join(dir, "latest.json"));
  await writeResults(dir, document);
}

if (import.meta.main) {
  const [dir, ...rest] = Deno.args;
  if (dir == null || rest.length > 0 || dir === "-h" || dir === "--help") {
    console.error(
      "usage: deno task report DIR  (renders DIR/latest.md and DIR/charts/ " +
        "again from DIR/latest.json)",
    );
    Deno.exit(2);
  }
  try {
    await rerender(dir);
    console.log(
      `rendered ${join(dir, "latest.md")} and ${join(dir, "charts")}`,
    );
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    console.error(`error: ${error.message}; run the bench with --out ${dir}`);
    Deno.exit(2);
  }
}
