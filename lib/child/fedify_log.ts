/**
 * Fedify's own log as evidence: the sender and worker processes route the
 * records of Fedify's LogTape loggers (failed deliveries, retries, permanent
 * failures, errors of the queue) to one file per run, one line per record,
 * and the runner counts its warnings and errors.
 *
 * The `@logtape/logtape` this module configures is the exact version Fedify
 * 2.3.6 itself depends on (deno.json maps it), so Fedify's loggers see it.
 *
 * A line: `2026-05-01T12:00:00.000Z WARNING worker/4242 fedify·federation·outbox: …`;
 * the lines of a multi-line message (an error's stack) that follow are
 * indented by two spaces.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { closeSync, openSync, writeSync } from "node:fs";
import { inspect } from "node:util";
import { configure, type LogLevel, type LogRecord } from "@logtape/logtape";

import { LOG_LEVELS } from "../params/mod.ts";
import { appRuntime } from "../runtime/mod.ts";

/** What a child process needs to write Fedify's log. */
export interface LogSpec {
  /** The file to append to; the runner's, shared by the run's processes. */
  readonly path: string;
  /** The lowest level written. */
  readonly level: LogLevel;
}

/** Warnings and errors (with fatal) counted in a log. */
export interface LogCounts {
  /** Records at level `warning`. */
  readonly warnings: number;
  /** Records at level `error` or `fatal`. */
  readonly errors: number;
}

/** Whether `text` names a LogTape level. */
export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/**
 * Appends one record per call to a file with a single synchronous write, so
 * that a process killed with SIGKILL loses no line it logged and processes
 * sharing the file never interleave within a line.
 *
 * A log must not cost a run: when the file cannot be opened (its folder was
 * deleted) or written, the sink says so in one line on stderr and drops the
 * records from then on.
 */
export class FileLogSink {
  /** The file's descriptor, opened for appending. */
  #file: number | null = null;
  #path: string;
  #prefix: string;
  #encoder = new TextEncoder();

  /**
   * Opens `path` for appending.
   * @param path The log file (created when missing).
   * @param source What names the writer on each line, e.g. `worker/4242`.
   */
  constructor(path: string, source: string) {
    this.#path = path;
    this.#prefix = source;
    try {
      this.#file = openSync(path, "a");
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Writes `record` as one line (continuation lines indented). */
  write(record: LogRecord): void {
    if (this.#file == null) return;
    const line = `${
      new Date(record.timestamp).toISOString()
    } ${record.level.toUpperCase()} ${this.#prefix} ${
      record.category.join("·")
    }: ${renderMessage(record.message)}`.replaceAll("\n", "\n  ");
    try {
      const bytes = this.#encoder.encode(line + "\n");
      // One write: O_APPEND keeps lines of processes sharing the file whole.
      writeSync(this.#file, bytes);
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Closes the file. */
  close(): void {
    if (this.#file != null) closeSync(this.#file);
    this.#file = null;
  }

  /** Gives up on the file (later records are dropped), saying so. */
  #fail(error: unknown): void {
    try {
      if (this.#file != null) closeSync(this.#file);
    } catch { /* already unusable */ }
    this.#file = null;
    console.error(
      `${this.#prefix}: cannot write Fedify's log to ${this.#path} ` +
        `(${error}); going on without it`,
    );
  }
}

function renderMessage(parts: readonly unknown[]): string {
  return parts.map((part, i) =>
    i % 2 === 0
      ? String(part)
      : typeof part === "string"
      ? part
      : inspect(part, { depth: 4, colors: false })
  ).join("");
}

/**
 * Routes Fedify's log (every `fedify` category, at `spec.level` and up) and
 * LogTape's own warnings (a misconfiguration) to `spec.path`, each line naming `role` and this
 * process's id.  Call once, before creating the federation.
 */
export async function configureFedifyLog(
  spec: LogSpec,
  role: string,
): Promise<void> {
  const sink = new FileLogSink(spec.path, `${role}/${appRuntime.pid}`);
  await configure({
    sinks: { file: (record) => sink.write(record) },
    // Fedify adds context (e.g. the activity id) with withContext().
    contextLocalStorage: new AsyncLocalStorage(),
    loggers: [
      { category: ["fedify"], sinks: ["file"], lowestLevel: spec.level },
      {
        category: ["logtape", "meta"],
        sinks: ["file"],
        lowestLevel: "warning",
      },
    ],
  });
}

const RECORD = /^\S+ (TRACE|DEBUG|INFO|WARNING|ERROR|FATAL) /;

/** Counts the warnings and errors among the records of a log's text. */
export function countLog(text: string): LogCounts {
  let warnings = 0;
  let errors = 0;
  for (const line of text.split("\n")) {
    const level = RECORD.exec(line)?.[1];
    if (level === "WARNING") warnings++;
    else if (level === "ERROR" || level === "FATAL") errors++;
  }
  return { warnings, errors };
}
