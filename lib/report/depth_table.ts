/**
 * The "Queue depth" section of `latest.md`: for each configuration run
 * with `--sample-depth`, how far its queue's `getDepth()` was from the
 * bench's own count (docs/methodology.md defines the error), or that the
 * installed version has no `getDepth()`.
 *
 * @module
 */
import { count } from "./cells.ts";
import {
  type Column,
  columnTable,
  figureColumn,
  textColumn,
} from "./columns.ts";
import { label } from "./label.ts";
import type { ConfigurationResult } from "../results/mod.ts";
import type { ResultsDocument } from "../results/mod.ts";

/** Messages with two decimals (a mean error). */
const messages = () => ({ scale: 1, suffix: "", digits: 2 });

const COLUMNS: readonly Column<ConfigurationResult>[] = [
  textColumn("Configuration", label),
  textColumn(
    "getDepth()",
    (r) => r.depth!.supported ? "yes" : "not in the installed version",
  ),
  figureColumn("Samples", count, (r) => r.depth!.samples),
  figureColumn("Max error", count, (r) => r.depth!.maxAbsError),
  figureColumn("Mean error", messages, (r) => r.depth!.meanAbsError),
  figureColumn("Peak depth", count, (r) => r.depth!.peakTrueDepth),
];

/**
 * The section (ending in a blank line), or `""` when no configuration
 * sampled its depth.
 */
export function depthSection(document: ResultsDocument): string {
  const rows = document.results.filter((r) => r.depth != null);
  if (rows.length === 0) return "";
  const summary = depthSummary(rows);
  return `## Queue depth

${columnTable(COLUMNS, rows)}
${summary === "" ? "" : `\n${summary}\n`}
- **getDepth()**: whether the installed queue has Fedify 2.3's
  \`getDepth()\`; without it there is nothing to judge.
- **Samples**: \`getDepth()\` calls judged, one every 250 ms from the start
  of sending to the end of the run, by the process that consumes the queue.
- **Max error**, **Mean error**: how many messages a sample was off the
  truth (messages enqueued minus messages handed to a handler, counted by
  the bench in every process); a sample inside the range the truth took
  while the call ran counts as 0 (docs/methodology.md).
- **Peak depth**: the largest true depth at a sample, for scale.

`;
}

/**
 * The section read for the user, from its figures only: which
 * configurations' `getDepth()` matched the bench's count at every sample,
 * which were off and by how much at most, and which have none.
 */
export function depthSummary(rows: readonly ConfigurationResult[]): string {
  const judged = rows.filter((r) =>
    r.depth!.supported && (r.depth!.samples ?? 0) > 0 &&
    r.depth!.maxAbsError != null
  );
  const exact = judged.filter((r) => r.depth!.maxAbsError === 0);
  const off = judged.filter((r) => r.depth!.maxAbsError! > 0)
    .sort((a, b) => b.depth!.maxAbsError! - a.depth!.maxAbsError!);
  const without = rows.filter((r) => !r.depth!.supported);
  const sentences: string[] = [];
  if (exact.length > 0) {
    sentences.push(
      `\`getDepth()\` agreed with the bench's count at every sample in ${
        exact.map(label).join(", ")
      }.`,
    );
  }
  if (off.length > 0) {
    sentences.push(
      `It was off in ${
        off.map((r) =>
          `${label(r)} (at most ${r.depth!.maxAbsError} of a peak ${
            r.depth!.peakTrueDepth ?? "—"
          })`
        ).join(", ")
      }.`,
    );
  }
  if (without.length > 0) {
    sentences.push(
      `${
        without.map(label).join(", ")
      } have no \`getDepth()\` in the installed version: an operator ` +
        "cannot read their depth through Fedify.",
    );
  }
  return sentences.join(" ");
}
