/**
 * The check's report: its shape ({@link FreshCheckReport}, written as
 * `fresh-check.json`) and its Markdown ({@link renderMarkdown},
 * `fresh-check.md`): the clone, the image and the cache, then each
 * command's exit, time and cache sizes, with the bench's rows and the
 * tests' summary, servers, notes, failures and ignored tests.
 *
 * @module
 */
import type { BenchSummary } from "./bench_results.ts";
import type { CacheSizes } from "./cache_sizes.ts";
import type { CloneRecord } from "./clone.ts";
import type { ImageRecord } from "./image.ts";
import type { FailedTest, IgnoredTest, TestReport } from "./test_output.ts";

/** One command's part of the report. */
export interface CommandReport {
  /** The command line as run. */
  readonly command: string;
  /** Its exit code; `null` when stopped. */
  readonly code: number | null;
  /** Whether its time limit stopped it. */
  readonly timedOut: boolean;
  /** Whether a Ctrl-C stopped it. */
  readonly interrupted: boolean;
  /** Wall seconds. */
  readonly seconds: number;
  /** Its whole output, in the report's folder. */
  readonly log: string;
  /** The home's cache folders' sizes before it ran, bytes. */
  readonly cacheBefore: CacheSizes;
  /** …and after. */
  readonly cacheAfter: CacheSizes;
}

/** The bench command's part of the report. */
export type BenchReport = CommandReport & {
  /** Its results, or why they could not be read. */
  readonly results: BenchSummary | { readonly error: string };
  /**
   * What it downloaded of its servers, as it said (`fetched …` lines); none
   * when every server came from its cache. Absent in older reports.
   */
  readonly fetched?: readonly string[];
};

/** The test command's part of the report. */
export type TestCommandReport = CommandReport & {
  /** What it printed, read. */
  readonly report: TestReport;
};

/** The whole report (`fresh-check.json`). */
export interface FreshCheckReport {
  /** ISO 8601. */
  readonly startedAt: string;
  /** ISO 8601. */
  readonly finishedAt: string;
  /** Whether both commands exited 0. */
  readonly ok: boolean;
  /** The clone. */
  readonly clone: Omit<CloneRecord, "dir">;
  /** The image. */
  readonly image: ImageRecord;
  /** The Docker daemon's version. */
  readonly dockerVersion: string;
  /** The cache folder on the host, and whether it was emptied first. */
  readonly cache: { readonly dir: string; readonly cleaned: boolean };
  /** The user the container ran as. */
  readonly user: { readonly uid: number; readonly gid: number };
  /** The bench command; absent when not run (`--only test`). */
  readonly bench?: BenchReport;
  /** The test command; absent when not run (`--only bench`). */
  readonly test?: TestCommandReport;
}

/** Whether a command passed. */
export function commandPassed(c: Pick<CommandReport, "code">): boolean {
  return c.code === 0;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The report in Markdown (`fresh-check.md`). */
export function renderMarkdown(report: FreshCheckReport): string {
  return [
    ...headLines(report),
    ...(report.bench == null ? [] : benchLines(report.bench)),
    ...(report.test == null ? [] : testLines(report.test)),
  ].join("\n");
}

/** The title, the verdict, and the clone, image and cache it ran on. */
function headLines(report: FreshCheckReport): string[] {
  const out: string[] = [
    "# Fresh check",
    "",
    `${report.ok ? "Passed" : "FAILED"}: the README's ${
      report.bench == null
        ? "test command"
        : report.test == null
        ? "bench command"
        : "two commands"
    } on a fresh ` +
    `Debian 12 (minbase) with Node.js ${report.image.nodeVersion} and npm ` +
    `${report.image.npmVersion} only, ${report.startedAt} to ` +
    `${report.finishedAt}.`,
    "",
    `- Commit: \`${
      report.clone.commit.slice(0, 12)
    }\` ${report.clone.subject}` +
    (report.clone.gitDir ? " (a clone, with its .git)" : " (without .git)"),
  ];
  if (report.clone.uncommitted.length > 0) {
    out.push(
      `- Not checked: ${report.clone.uncommitted.length} uncommitted ` +
        `change${report.clone.uncommitted.length === 1 ? "" : "s"} of the ` +
        `working tree (${report.clone.uncommitted.slice(0, 8).join(", ")}${
          report.clone.uncommitted.length > 8 ? ", …" : ""
        })`,
    );
  }
  out.push(
    `- Image: \`${report.image.name}\` (${report.image.how}, ` +
      `${Math.round(report.image.seconds)} s; root file system kept in ` +
      `\`${report.image.rootfs}\`), Docker ${report.dockerVersion}`,
    `- Cache: \`${report.cache.dir}\` (${
      report.cache.cleaned ? "emptied first" : "reused"
    }); user ${report.user.uid}:${report.user.gid}`,
    "",
  );
  return out;
}

/** A command's line: passed or not, how it ended, its time, its caches. */
function commandHead(c: CommandReport): string[] {
  const how = c.timedOut
    ? "stopped by its time limit"
    : c.interrupted
    ? "stopped by Ctrl-C"
    : `exit code ${c.code}`;
  const caches = Object.keys(c.cacheAfter).map((k) =>
    `\`~/${k}\` ${mb(c.cacheBefore[k] ?? 0)} → ${mb(c.cacheAfter[k])}`
  ).join(", ");
  return [
    `\`${c.command}\`: **${
      commandPassed(c) ? "passed" : "FAILED"
    }** (${how}, ` +
    `${Math.round(c.seconds)} s; output in \`${c.log}\`)`,
    "",
    `Caches: ${caches}.`,
    "",
  ];
}

/** The bench's section: its command, and its results' rows. */
function benchLines(bench: BenchReport): string[] {
  const out = ["## Bench", "", ...commandHead(bench)];
  if ("error" in bench.results) {
    out.push(`No results: ${bench.results.error}`, "");
    return out;
  }
  const r = bench.results;
  out.push(
    `Results: \`${r.file}\` (${r.size}, ${
      r.suiteSeconds == null ? "?" : Math.round(r.suiteSeconds)
    } s, Deno ${r.deno ?? "?"}, ${r.os ?? "OS ?"}); commit recorded: \`${
      JSON.stringify(r.commit)
    }\`${
      r.noCommitReason == null ? "" : ` (${r.noCommitReason})`
    }; servers recorded: \`${JSON.stringify(r.servers)}\``,
    "",
    ...(bench.fetched == null ? [] : [
      bench.fetched.length === 0
        ? "Servers fetched by this run: none (each server came from the " +
          "cache or the machine)"
        : `Servers fetched by this run:\n\n${
          bench.fetched.map((line) => `- ${cell(line)}`).join("\n")
        }`,
      "",
    ]),
    "| Row | Status | Delivered | Total | Server | Reason |",
    "| --- | --- | ---: | ---: | --- | --- |",
    ...r.rows.map((row) =>
      `| ${row.id} | ${row.status} | ${row.delivered} of ${row.expected}${
        row.duplicates > 0 ? ` (+${row.duplicates})` : ""
      } | ${
        row.totalSeconds == null ? "—" : `${row.totalSeconds.toFixed(1)} s`
      } | ${
        row.server == null ? "null" : `\`${cell(JSON.stringify(row.server))}\``
      } | ${cell(row.reason ?? "")} |`
    ),
    "",
  );
  return out;
}

/**
 * The tests' section: their command and summary, what was said before
 * them, the files with failures, the failed and the ignored tests.
 */
function testLines(test: TestCommandReport): string[] {
  const t = test.report;
  return [
    "## Tests",
    "",
    ...commandHead(test),
    `Summary: \`${
      t.summary ?? "none (the run ended before it)"
    }\`, ${t.files} files`,
    "",
    ...saidLines(t),
    ...failedLines(t.failed),
    ...ignoredLines(t.ignored),
  ];
}

/** The runner's servers, the test files' notes and the broken files. */
function saidLines(t: TestReport): string[] {
  const out: string[] = [];
  if (t.servers.length > 0) {
    out.push(
      "Servers, as the runner said before the tests:",
      "",
      ...t.servers.map((line) => `- ${line}`),
      "",
    );
  }
  if (t.notes.length > 0) {
    out.push(
      "What the test files said before their tests (each once):",
      "",
      ...t.notes.map((n) =>
        n.includes("\n")
          ? `- ${n.split("\n")[0]}\n\n  \`\`\`\n${
            n.split("\n").slice(1).map((l) => `  ${l}`).join("\n")
          }\n  \`\`\``
          : `- ${n}`
      ),
      "",
    );
  }
  if (t.brokenFiles.length > 0) {
    out.push(
      "Files with failures:",
      "",
      ...t.brokenFiles.map((f) => `- ${f}`),
      "",
    );
  }
  return out;
}

/** Each failed test with the first lines of its error. */
function failedLines(failed: readonly FailedTest[]): string[] {
  if (failed.length === 0) return [];
  const out = [`### Failed (${failed.length})`, ""];
  for (const f of failed) {
    out.push(
      `- **${f.name}** (${f.location})`,
      "",
      "  ```",
      ...f.error.map((l) => `  ${l}`),
      "  ```",
      "",
    );
  }
  return out;
}

/** Each ignored test with the condition that ignored it. */
function ignoredLines(ignored: readonly IgnoredTest[]): string[] {
  if (ignored.length === 0) return [];
  return [
    `### Ignored (${ignored.length})`,
    "",
    "| Test | File | Ignored when |",
    "| --- | --- | --- |",
    ...ignored.map((i) =>
      `| ${cell(i.name)} | ${i.file} | ${
        i.condition == null ? "not told" : `\`${cell(i.condition)}\``
      } |`
    ),
    "",
  ];
}
