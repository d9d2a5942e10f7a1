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
import type { ConfigurationResult } from "../results/types.ts";
import type { ResultsDocument } from "../results/types.ts";

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
  return `## Queue depth

${columnTable(COLUMNS, rows)}

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
