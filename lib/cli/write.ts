/**
 * The one place results folders are written: a suite's (`latest.json` and
 * its report, by the bench's command line, `runBenchmark`'s `outDir` and
 * `deno task report`) and the dequeue-cost command's.  The report's files
 * come rendered from `lib/report/` (which writes nothing); each file is
 * written atomically, in the order the report gives them.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { dequeueCostReportFiles } from "../report/dequeue_cost_report.ts";
import type { ReportFiles } from "../report/files.ts";
import { resultsReportFiles } from "../report/markdown.ts";
import {
  DEQUEUE_COST_FILE,
  type DequeueCostDocument,
} from "../results/dequeue_cost_record.ts";
import type { ResultsDocument } from "../results/mod.ts";

/**
 * Writes through a temporary file and a rename, so a failed write (disk
 * full) leaves the previous file whole, and removes the temporary file.
 */
export async function writeAtomically(
  path: string,
  text: string,
): Promise<void> {
  const temp = `${path}.tmp-${Deno.pid}`;
  try {
    await Deno.writeTextFile(temp, text);
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/** A results document as its file holds it. */
function jsonText(document: ResultsDocument | DequeueCostDocument): string {
  return JSON.stringify(document, null, 2) + "\n";
}

/**
 * Writes a report's files into `dir` as they come, each atomically, making
 * the folders they go in.
 * @returns The files written, relative to `dir`, in the order written.
 */
export async function writeReportFiles(
  dir: string,
  files: ReportFiles,
): Promise<string[]> {
  const written: string[] = [];
  for await (const file of files) {
    const path = join(dir, file.path);
    await Deno.mkdir(dirname(path), { recursive: true });
    await writeAtomically(path, file.text);
    written.push(file.path);
  }
  return written;
}

/**
 * Writes `latest.json`, `charts/*.svg`, `latest.md` and `report.html` into
 * `dir`, each file atomically (the reports last, once their charts exist).
 */
export async function writeResults(
  dir: string,
  document: ResultsDocument,
): Promise<void> {
  await Deno.mkdir(join(dir, "charts"), { recursive: true });
  await writeAtomically(join(dir, "latest.json"), jsonText(document));
  await writeReportFiles(dir, resultsReportFiles(document));
}

/**
 * Writes `latest.md`, `report.html` and, when there is a time to draw,
 * `charts/dequeue-cost.svg` into `dir` from a dequeue-cost document
 * (nothing is measured).
 * @returns The files written, relative to `dir`: `latest.md` first, as the
 *   report lists them.
 */
export async function writeDequeueCostReport(
  dir: string,
  document: DequeueCostDocument,
): Promise<string[]> {
  const written = await writeReportFiles(dir, dequeueCostReportFiles(document));
  return [
    ...written.filter((file) => file === "latest.md"),
    ...written.filter((file) => file !== "latest.md"),
  ];
}

/**
 * Writes a dequeue-cost document's `latest.json`, then its Markdown, chart
 * and HTML report, into `dir` (created when missing), each file atomically.
 */
export async function writeDequeueCost(
  dir: string,
  document: DequeueCostDocument,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomically(join(dir, DEQUEUE_COST_FILE), jsonText(document));
  await writeDequeueCostReport(dir, document);
}
