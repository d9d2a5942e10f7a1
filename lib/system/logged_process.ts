/**
 * Long-running child processes (the throwaway servers) whose stdout and
 * stderr are drained into a log file, so that a full pipe can never block
 * them, and the tail of such a log for an error message.
 *
 * @module
 */
import { withTimeout } from "./sleep.ts";
import { spawnProcess } from "./spawn.ts";

/** Writes all of `data` to `writer`, looping over partial writes. */
export async function writeAll(
  writer: { write(p: Uint8Array): Promise<number> },
  data: Uint8Array,
): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    offset += await writer.write(data.subarray(offset));
  }
}

/** Options for {@link spawnLogged}. */
export interface SpawnLoggedOptions {
  /** The file that receives the child's stdout and stderr (appended). */
  readonly logPath: string;
  /** The working folder of the child. */
  readonly cwd?: string;
  /** Run the child as this user id (needs root). */
  readonly uid?: number;
  /** Run the child as this group id (needs root). */
  readonly gid?: number;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
}

/** A child process whose output is drained into a log file. */
export interface LoggedProcess {
  /** The child's process id. */
  readonly pid: number;
  /** The log file. */
  readonly logPath: string;
  /** Whether the child has exited. */
  readonly exited: boolean;
  /**
   * Resolves with the exit status once the child has exited and its output
   * has been written to the log file.
   */
  readonly status: Promise<Deno.CommandStatus>;
  /** Sends a signal; does nothing if the child has already exited. */
  kill(signal: Deno.Signal): void;
  /**
   * Stops the child: sends `signal`, waits up to `graceMs`, then SIGKILL.
   * Resolves once the child has exited and the log file is closed.
   */
  stop(signal: Deno.Signal, graceMs: number): Promise<void>;
}

/**
 * Spawns a long-running child process (not daemonized) with its stdout and
 * stderr drained into a log file, so a full pipe can never block it.  The
 * child runs in its own process group, so a terminal's Ctrl-C does not reach
 * it, and a forced exit of the bench kills it.
 *
 * @param command The executable.
 * @param args Its arguments.
 * @param options Where to log, and as whom to run.
 */
export async function spawnLogged(
  command: string,
  args: readonly string[],
  options: SpawnLoggedOptions,
): Promise<LoggedProcess> {
  const file = await Deno.open(options.logPath, {
    write: true,
    create: true,
    append: true,
  });
  let child: Deno.ChildProcess;
  try {
    child = spawnProcess(command, { ...options, args, stdin: "null" });
  } catch (error) {
    file.close();
    throw error;
  }
  const log = new LogDrain(file, [child.stdout, child.stderr]);
  let exited = false;
  const childStatus = child.status.then((status) => {
    exited = true;
    return status;
  });
  const status = childStatus.then(async (status) => {
    await log.close(5000);
    return status;
  });
  status.catch(() => {});
  const kill = (signal: Deno.Signal): void => {
    if (exited) return;
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid,
    logPath: options.logPath,
    get exited() {
      return exited;
    },
    status,
    kill,
    stop(signal: Deno.Signal, graceMs: number): Promise<void> {
      stopping ??= (async () => {
        kill(signal);
        const done = await withTimeout(
          childStatus.then(() => true),
          graceMs,
          () => new Error("stop timeout"),
        ).catch(() => false);
        if (!done) {
          kill("SIGKILL");
          await childStatus;
        }
        await status;
      })();
      return stopping;
    },
  };
}

/**
 * A child's stdout and stderr appended to its log file as they come, kept
 * read even when writing fails (disk full): the child must never block on
 * a full pipe.
 */
class LogDrain {
  readonly #file: Deno.FsFile;
  #chain: Promise<void> = Promise.resolve();
  readonly #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  readonly #drained: Promise<void>;
  #closed = false;

  constructor(file: Deno.FsFile, streams: ReadableStream<Uint8Array>[]) {
    this.#file = file;
    this.#drained = Promise.all(streams.map((stream) => this.#drain(stream)))
      .then(() => this.#chain);
  }

  async #drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#chain = this.#chain.then(() => writeAll(this.#file, value))
          .catch(() => {});
      }
    } catch {
      // Cancelled, or the pipe broke: nothing more to log.
    } finally {
      reader.releaseLock();
    }
  }

  /** Waits up to `waitMs` for the pipes to end, then closes the file. */
  async close(waitMs: number): Promise<void> {
    // Grandchildren (PostgreSQL backends) may hold the pipes a little
    // longer than the main process lives; do not wait for them forever.
    const done = await withTimeout(
      this.#drained.then(() => true),
      waitMs,
      () => new Error("log drain timeout"),
    ).catch(() => false);
    if (!done) {
      await Promise.allSettled(this.#readers.map((reader) => reader.cancel()));
      await this.#chain;
    }
    if (!this.#closed) {
      this.#closed = true;
      this.#file.close();
    }
  }
}

/** The last `lines` lines of a log file, or `""` if it cannot be read. */
export async function logTail(path: string, lines = 20): Promise<string> {
  try {
    const text = await Deno.readTextFile(path);
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
