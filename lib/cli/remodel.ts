/**
 * `deno task remodel DIR`: applies the current model (`stage_model.ts`) to
 * a results folder's rows again, from the figures each row recorded (its
 * stages, CPU and processes; nothing is measured), rewrites the model's
 * fields in `DIR/latest.json` (`predictedDeliveriesPerSecond`,
 * `prediction`, `limitedBy`) and renders its report again.  For a folder
 * measured before the model last changed.  A row of several runs keeps what
 * it recorded (its stages are one run's, its rate the runs' median); the
 * document's `remodelled` records when, on which commit, and which rows.
 * The model's application is `remodel` (`lib/analysis/remodel_rows.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { remodel } from "../analysis/mod.ts";
import { readResultsDocument, ResultsFileError } from "../results/read.ts";
import type { ResultsDocument } from "../results/mod.ts";
import { rerender } from "./report.ts";
import { writeAtomically } from "./write.ts";
import { readCommit } from "../measure/provenance.ts";

/** The command line; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  const [dir, ...rest] = args;
  if (dir == null || rest.length > 0 || dir.startsWith("-")) {
    console.error(
      "usage: deno task remodel DIR  (applies the current model to " +
        "DIR/latest.json's rows again and renders its report)",
    );
    return 2;
  }
  const path = join(dir, "latest.json");
  let document: ResultsDocument;
  try {
    document = await readResultsDocument(path);
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    console.error(`error: ${error.message}; give a folder the bench wrote`);
    return 2;
  }
  const { document: model, ids } = remodel(document);
  const next: ResultsDocument = {
    ...model,
    remodelled: {
      at: new Date().toISOString(),
      commit: await readCommit(),
      ids,
    },
  };
  await writeAtomically(path, JSON.stringify(next, null, 2) + "\n");
  await rerender(dir);
  console.log(
    `remodelled ${ids.length} rows of ${path} (${ids.join(", ") || "none"}) ` +
      "and rendered its report",
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
