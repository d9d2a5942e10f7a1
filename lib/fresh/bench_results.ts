/**
 * What the check reports of the bench's results file: where the bench's
 * output says it wrote it ({@link resultsPathFromOutput}), and its rows
 * with their status, reason and server record, beside what its environment
 * recorded ({@link summariseResults}); both at once, with copies of the
 * file beside the report ({@link readBenchResults}).
 *
 * @module
 */
import { join } from "node:path";
import { errorMessage } from "../results/error_message.ts";
import { readResultsDocument } from "../results/read.ts";
import type { ResultsDocument } from "../results/mod.ts";

/** One row of the bench's results, as the report shows it. */
export interface BenchRow {
  /** The configuration's id, e.g. `redis-x4`. */
  readonly id: string;
  /** `ok`, `incomplete`, `failed` or `skipped`. */
  readonly status: string;
  /** Why it is not `ok`. */
  readonly reason: string | null;
  /** Distinct deliveries that arrived. */
  readonly delivered: number;
  /** Deliveries expected. */
  readonly expected: number;
  /** Arrivals beyond the first. */
  readonly duplicates: number;
  /** First send to last delivery, seconds; `null` unless `ok`. */
  readonly totalSeconds: number | null;
  /** The queue server's record, as the results file holds it. */
  readonly server: ResultsDocument["results"][number]["server"];
}

/** What the check reports of a results file. */
export interface BenchSummary {
  /** The results file, relative to the clone. */
  readonly file: string;
  /** `total × recipients` of the suite. */
  readonly size: string;
  /** The suite's wall time, seconds. */
  readonly suiteSeconds: number | null;
  /** The commit the results record (`environment.commit`), as recorded. */
  readonly commit: unknown;
  /** Why no commit is recorded (`environment.noCommitReason`), if it says. */
  readonly noCommitReason: string | null;
  /** Deno's version the bench ran on (`environment.runtime.deno`). */
  readonly deno: string | null;
  /** The OS the bench saw (`environment.os.name`). */
  readonly os: string | null;
  /** The queue servers' versions it recorded (`environment.servers`). */
  readonly servers: Readonly<Record<string, string>>;
  /** The command line it recorded (`environment.command`). */
  readonly recordedCommand: readonly string[] | null;
  /** Every row. */
  readonly rows: readonly BenchRow[];
}

/**
 * The rows of a results document, for the report.
 *
 * @param document The results document.
 * @param file Its path, relative to the clone.
 */
export function summariseResults(
  document: ResultsDocument,
  file: string,
): BenchSummary {
  const environment = document.environment;
  return {
    file,
    size: `${document.params.total} × ${document.params.recipients}`,
    suiteSeconds: document.suiteSeconds ?? null,
    commit: document.environment?.commit ?? null,
    noCommitReason: environment?.noCommitReason ?? null,
    deno: environment?.runtime.deno ?? null,
    os: environment?.os.name ?? null,
    servers: environment?.servers ?? {},
    recordedCommand: environment?.command ?? null,
    rows: document.results.map((r) => ({
      id: r.id,
      status: r.status,
      reason: r.reason,
      delivered: r.delivered,
      expected: r.expected,
      duplicates: r.duplicates,
      totalSeconds: r.totalSeconds,
      server: r.server,
    })),
  };
}

/**
 * The lines in which the bench said it downloaded a server (`fetched …`,
 * from `lib/services/fetched.ts`).
 *
 * @param output What the bench printed on its standard error.
 */
export function fetchedServers(output: string): string[] {
  return output.split("\n").filter((line) => line.startsWith("fetched "));
}

/**
 * The results file a bench's output names (`Results: OUT/latest.json, …`),
 * relative to its working folder; `null` when it names none.
 */
export function resultsPathFromOutput(output: string): string | null {
  return /^Results: (\S+\.json),/m.exec(output)?.[1] ?? null;
}

/**
 * The results the bench wrote in the clone, summarised, with copies in
 * `out` (`bench-results.json`, and `bench-results.md` when there is one):
 * the file its output names, else `runs/latest/latest.json`.
 *
 * @param clone The clone's folder.
 * @param output What the bench printed on its standard output.
 * @param out The report's folder.
 * @returns The summary, or why the results could not be read.
 */
export async function readBenchResults(
  clone: string,
  output: string,
  out: string,
): Promise<BenchSummary | { readonly error: string }> {
  const file = resultsPathFromOutput(output) ?? "runs/latest/latest.json";
  const path = join(clone, file);
  try {
    const document = await readResultsDocument(path);
    await Deno.copyFile(path, join(out, "bench-results.json"));
    await Deno.copyFile(
      path.replace(/\.json$/, ".md"),
      join(out, "bench-results.md"),
    ).catch(() => {});
    return summariseResults(document, file);
  } catch (error) {
    return { error: errorMessage(error) };
  }
}
