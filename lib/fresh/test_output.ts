/**
 * What `deno task test` (`lib/cli/run_tests.ts`) printed, read
 * ({@link parseTestOutput}): its summary line, the servers it named, what
 * the test files printed before their tests, the failed tests with the
 * first lines of their errors, the ignored tests, and the files it listed
 * as failed.
 *
 * @module
 */

/** A test that failed, from the ERRORS section of its file's output. */
export interface FailedTest {
  /** Its name (`parent ... step` for a step). */
  readonly name: string;
  /** Its file, `./…`. */
  readonly file: string;
  /** Where it is declared: `./file.ts:LINE:COL`, or `uncaught error`. */
  readonly location: string;
  /** The first lines of its error, before the stack. */
  readonly error: readonly string[];
}

/** A test that was ignored. */
export interface IgnoredTest {
  /** Its name. */
  readonly name: string;
  /** Its file, `./…`. */
  readonly file: string;
  /**
   * The `ignore:` condition in its source, with the definitions of the
   * names it uses; `null` when it cannot be told (a name built at run time
   * that matches no declaration).
   */
  readonly condition: string | null;
}

/** What `deno task test` (lib/cli/run_tests.ts) printed, read. */
export interface TestReport {
  /** Its last summary line (`ok | 458 passed … (4m41s)`), or `null`. */
  readonly summary: string | null;
  /**
   * Test files that ran (`running N tests from ./FILE`), each once (a file
   * run as shards, `TEST_SHARD`, starts several times).
   */
  readonly files: number;
  /** The tests that failed, with their errors. */
  readonly failed: readonly FailedTest[];
  /** The tests that were ignored (the conditions filled by the caller). */
  readonly ignored: readonly IgnoredTest[];
  /** Its `failed:` list: each file with failures or without a summary. */
  readonly brokenFiles: readonly string[];
  /**
   * What the runner said of each queue server before the tests (its
   * `servers:` list: where each comes from, or why its tests are skipped).
   */
  readonly servers: readonly string[];
  /**
   * What the test files printed before their tests (`deno test`'s
   * pre-test output: why some are skipped), each once.
   */
  readonly notes: readonly string[];
}

/** A line that goes on the note above it: indented, or a tool's error. */
const CONTINUATION = /^(\s|npm (error|ERR!|warn) )/;

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const RUNNING = /^running \d+ tests? from (\.\/\S+)/;
const TEST_SUMMARY = /^(ok|FAILED) \| .*\d+ passed.*\| \d+ failed/;
const ERROR_HEADER = /^(.+) => (\.\/\S+?):(\d+):(\d+)$/;
const UNCAUGHT_HEADER = /^(\.\/\S+) \(uncaught error\)$/;
const PRE_TEST_START = /^-+ pre-test output -+$/;
const PRE_TEST_END = /^-+ pre-test output end -+$/;
/** A shard's line (lib/cli/test_plan.ts's `shardLine`). */
const SHARD_NOTE = /^TEST_SHARD=\d+\/\d+: /;
const LIST_ITEM = /^ {2}\S/;

/**
 * How many lines of a failed test's error (before its stack) the report
 * keeps: all up to this many, else the first and the last half of it
 * (the message, and the assertion's values and source line).
 */
export const ERROR_LINES = 10;

/** An error's lines cut to {@link ERROR_LINES}, `…` between the halves. */
export function errorExcerpt(lines: readonly string[]): string[] {
  const kept: string[] = [];
  for (const line of lines) {
    if (/^\s+at /.test(line)) break;
    const blank = line.trim() === "";
    if (blank && (kept.length === 0 || kept.at(-1)!.trim() === "")) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept.at(-1)!.trim() === "") kept.pop();
  if (kept.length <= ERROR_LINES) return kept;
  const half = ERROR_LINES / 2;
  const head = kept.slice(0, half);
  const tail = kept.slice(-half);
  while (head.at(-1)?.trim() === "") head.pop();
  while (tail[0]?.trim() === "") tail.shift();
  return [...head, "…", ...tail];
}

/**
 * Reads the output of `deno task test`: the summary line, each file's
 * ignored tests (top level; steps are their test's), the failed tests with
 * the first lines of their errors (from each file's ` ERRORS ` section),
 * and the `failed:` list.  Colours must be off (`NO_COLOR`).
 */
export function parseTestOutput(output: string): TestReport {
  const reader = new TestOutputReader();
  for (const line of output.replace(ANSI, "").split("\n")) {
    reader.read(line.replace(/\r$/, ""));
  }
  return reader.report();
}

/**
 * Reads `deno task test`'s output a line at a time; each part of it (the
 * pre-test output, the `servers:` list, a file's sections, its ERRORS, the
 * `failed:` list, an ignored test) has its own step.
 */
class TestOutputReader {
  #file = "";
  readonly #files = new Set<string>();
  #summary: string | null = null;
  #inErrors = false;
  #inFailedList = false;
  #inServers = false;
  #note: string[] | null = null;
  #current: { header: Omit<FailedTest, "error">; lines: string[] } | null =
    null;
  readonly #ignored: IgnoredTest[] = [];
  readonly #failed: FailedTest[] = [];
  readonly #brokenFiles: string[] = [];
  readonly #servers: string[] = [];
  readonly #notes = new Map<string, string>();

  /** Takes the next line, without its line ending. */
  read(line: string): void {
    if (this.#readNote(line)) return;
    if (this.#readServers(line)) return;
    if (this.#readSection(line)) return;
    if (this.#readFailedList(line)) return;
    if (this.#inErrors) {
      this.#readError(line);
      return;
    }
    const ignoredTest = /^(\S.*) \.\.\. ignored \(/.exec(line);
    if (ignoredTest != null) {
      this.#ignored.push({
        name: ignoredTest[1],
        file: this.#file,
        condition: null,
      });
    }
  }

  /** What was read, once every line has been. */
  report(): TestReport {
    this.#finish();
    return {
      summary: this.#summary,
      files: this.#files.size,
      failed: this.#failed,
      ignored: this.#ignored,
      brokenFiles: this.#brokenFiles,
      servers: this.#servers,
      notes: [...this.#notes.values()],
    };
  }

  /** Ends the failed test being read, if any. */
  #finish(): void {
    if (this.#current == null) return;
    this.#failed.push({
      ...this.#current.header,
      error: errorExcerpt(this.#current.lines),
    });
    this.#current = null;
  }

  /** A line of the pre-test output, or its start: whether it was one. */
  #readNote(line: string): boolean {
    if (this.#note != null) {
      if (PRE_TEST_END.test(line.trim())) this.#endNote(this.#note);
      else this.#note.push(line);
      return true;
    }
    if (PRE_TEST_START.test(line.trim())) {
      this.#note = [];
      return true;
    }
    return false;
  }

  /**
   * One note a line, a tool's continuation lines (`npm error …`, indented)
   * with it; the same words from several files once (temporary names
   * aside).
   */
  #endNote(note: readonly string[]): void {
    const split: string[][] = [];
    for (const l of note) {
      // Which shard of its file a process ran is no note on the machine.
      if (l.trim() === "" || SHARD_NOTE.test(l)) continue;
      if (split.length > 0 && CONTINUATION.test(l)) split.at(-1)!.push(l);
      else split.push([l]);
    }
    for (const lines of split) {
      const key = lines[0].replace(/\d+/g, "N");
      if (!this.#notes.has(key)) this.#notes.set(key, lines.join("\n"));
    }
    this.#note = null;
  }

  /** The `servers:` list: whether the line was its head or an item. */
  #readServers(line: string): boolean {
    if (line === "servers:") {
      this.#inServers = true;
      return true;
    }
    if (this.#inServers) {
      if (LIST_ITEM.test(line)) {
        this.#servers.push(line.trim());
        return true;
      }
      if (/^running \d+ test files?/.test(line)) this.#inServers = false;
    }
    return false;
  }

  /**
   * A line that starts a part: a file's tests, a summary, ERRORS,
   * FAILURES, the `failed:` list; whether it was one.
   */
  #readSection(line: string): boolean {
    const running = RUNNING.exec(line);
    if (running != null) {
      this.#finish();
      this.#inErrors = false;
      this.#inFailedList = false;
      this.#file = running[1];
      this.#files.add(running[1]);
    } else if (TEST_SUMMARY.test(line)) {
      this.#finish();
      this.#inErrors = false;
      this.#inFailedList = false;
      this.#summary = line.trim();
    } else if (line.trim() === "ERRORS") {
      this.#inErrors = true;
    } else if (line.trim() === "FAILURES") {
      this.#finish();
      this.#inErrors = false;
    } else if (line === "failed:") {
      this.#inFailedList = true;
    } else return false;
    return true;
  }

  /** An item of the `failed:` list: whether the line was one. */
  #readFailedList(line: string): boolean {
    if (!this.#inFailedList) return false;
    if (LIST_ITEM.test(line)) {
      this.#brokenFiles.push(line.trim());
      return true;
    }
    this.#inFailedList = false;
    return false;
  }

  /** A line of an ERRORS section: a failed test's header, or its error. */
  #readError(line: string): void {
    const header = ERROR_HEADER.exec(line);
    const uncaught = UNCAUGHT_HEADER.exec(line);
    if (header != null) {
      this.#finish();
      this.#current = {
        header: {
          name: header[1],
          file: header[2],
          location: `${header[2]}:${header[3]}:${header[4]}`,
        },
        lines: [],
      };
    } else if (uncaught != null) {
      this.#finish();
      this.#current = {
        header: {
          name: "(uncaught error)",
          file: uncaught[1],
          location: "uncaught error",
        },
        lines: [],
      };
    } else this.#current?.lines.push(line);
  }
}
