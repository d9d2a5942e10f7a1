/**
 * A report as the files to write: each renderer of a folder's report
 * (`markdown.ts`'s for a suite's results, `dequeue_cost_report.ts`'s for the
 * dequeue-cost command's) yields its files one at a time, in the order they
 * are to be written, and writes none; `lib/cli/write.ts` writes them.
 *
 * @module
 */

/** One file of a report. */
export interface ReportFile {
  /** Where it goes, relative to the results folder (`charts/x.svg`). */
  readonly path: string;
  /** Its text. */
  readonly text: string;
}

/** A report's files, each rendered when it is asked for. */
export type ReportFiles = AsyncIterable<ReportFile>;
