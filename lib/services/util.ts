/**
 * Internal helpers shared by the service definitions: URL redaction, the
 * "cannot reach" error, bounded waits, and child processes whose output goes
 * to a log file.
 *
 * Not part of the folder's public face; import from `./mod.ts` instead.
 *
 * @module
 */
import { leftovers } from "../system/leftovers.ts";

const URL_PARTS = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#]*)(.*)$/s;

/**
 * Splits a URL's authority into user info and the rest, without requiring
 * the URL to be valid.  Returns `undefined` when there is no password.
 */
function splitPassword(
  url: string,
): { before: string; password: string; after: string } | undefined {
  const match = URL_PARTS.exec(url);
  if (match == null) return undefined;
  const [, scheme, authority, rest] = match;
  const at = authority.lastIndexOf("@");
  if (at < 0) return undefined;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(":");
  if (colon < 0 || colon === userinfo.length - 1) return undefined;
  return {
    before: scheme + userinfo.slice(0, colon + 1),
    password: userinfo.slice(colon + 1),
    after: authority.slice(at) + rest,
  };
}

/**
 * Replaces the password of a URL with `***`.  Strings that are not URLs, or
 * URLs without a password, are returned unchanged.
 *
 * @param url A URL, possibly invalid.
 * @returns The URL without its password.
 */
export function redactUrl(url: string): string {
  const parts = splitPassword(url);
  return parts == null ? url : `${parts.before}***${parts.after}`;
}

/**
 * Returns the password of a URL as written (possibly percent-encoded), or
 * `undefined` when it has none.
 *
 * @param url A URL, possibly invalid.
 */
export function urlPassword(url: string): string | undefined {
  return splitPassword(url)?.password;
}

/**
 * Removes the password of `url` from `text`, in both its written and its
 * percent-decoded forms.  Used to clean a driver's error message before it is
 * put into our own.
 */
export function stripPassword(text: string, url: string): string {
  const password = urlPassword(url);
  if (password == null) return text;
  let result = text.replaceAll(password, "***");
  try {
    const decoded = decodeURIComponent(password);
    if (decoded !== password) result = result.replaceAll(decoded, "***");
  } catch {
    // Malformed percent-encoding: the written form is all there is.
  }
  return result;
}

/** A server could not be reached or used; the message says why. */
export class UnreachableError extends Error {
  /**
   * An error whose message names the server and what to do.
   * @param message Names the redacted URL and the cause.
   */
  constructor(message: string) {
    super(message);
    this.name = "UnreachableError";
  }
}

/**
 * The error of a probe that cannot reach its server or use it:
 * `cannot reach NAME at URL (CAUSE)`.  The URL's password is hidden in both
 * the URL and the cause's message; the cause itself is not attached, since
 * it may hold the password.
 *
 * @param server The server's name for a reader, e.g. `PostgreSQL`.
 * @param url The URL the probe used, possibly with a password.
 * @param cause What went wrong: an error, or words such as
 *   `no answer within 2000 ms`.
 */
export function unreachableError(
  server: string,
  url: string,
  cause: unknown,
): UnreachableError {
  return new UnreachableError(
    `cannot reach ${server} at ${redactUrl(url)} (${
      stripPassword(errorMessage(cause), url)
    })`,
  );
}

/** The message of an error, or the string form of anything else thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(errorMessage))].join("; ");
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || (typeof code === "string" ? code : "");
    return message || error.name;
  }
  return String(error);
}

/**
 * Waits for `promise`, but rejects with `onTimeout()` after `ms`
 * milliseconds.  A later rejection of `promise` is swallowed.
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  promise.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

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
    child = new Deno.Command(command, {
      args: [...args],
      cwd: options.cwd,
      uid: options.uid,
      gid: options.gid,
      env: options.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // Its own process group: a Ctrl-C in the terminal reaches the bench,
      // which stops its servers itself.
      detached: true,
    }).spawn();
  } catch (error) {
    file.close();
    throw error;
  }
  let chain: Promise<void> = Promise.resolve();
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  // Keep reading even when writing fails (disk full): the child must never
  // block on a full pipe.
  const drain = async (stream: ReadableStream<Uint8Array>): Promise<void> => {
    const reader = stream.getReader();
    readers.push(reader);
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        chain = chain.then(() => writeAll(file, value)).catch(() => {});
      }
    } catch {
      // Cancelled, or the pipe broke: nothing more to log.
    } finally {
      reader.releaseLock();
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)])
    .then(() => chain);
  let exited = false;
  leftovers.trackProcess(child.pid, child.status);
  const childStatus = child.status.then((status) => {
    exited = true;
    return status;
  });
  let closed = false;
  const closeLog = async (waitMs: number): Promise<void> => {
    // Grandchildren (PostgreSQL backends) may hold the pipes a little
    // longer than the main process lives; do not wait for them forever.
    const done = await withTimeout(
      drained.then(() => true),
      waitMs,
      () => new Error("log drain timeout"),
    ).catch(() => false);
    if (!done) {
      await Promise.allSettled(readers.map((reader) => reader.cancel()));
      await chain;
    }
    if (!closed) {
      closed = true;
      file.close();
    }
  };
  const status = childStatus.then(async (status) => {
    await closeLog(5000);
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

/** The last `lines` lines of a log file, or `""` if it cannot be read. */
export async function logTail(path: string, lines = 20): Promise<string> {
  try {
    const text = await Deno.readTextFile(path);
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Builds an error for a server that failed to start, with its log tail. */
export async function startError(
  what: string,
  reason: string,
  logPath: string,
): Promise<Error> {
  const tail = await logTail(logPath);
  return new Error(
    `${what} failed to start: ${reason}` +
      (tail ? `\n--- ${logPath} (last lines) ---\n${tail}` : ""),
  );
}

/**
 * Finds an executable on `PATH`, or else in the newest
 * `/usr/lib/postgresql/VERSION/bin` (where Debian keeps PostgreSQL's server
 * binaries, off `PATH`).
 *
 * @param name The executable's name.
 * @returns Its full path, or `undefined` when it is nowhere to be found.
 */
export function findBinary(name: string): string | undefined {
  let path = "";
  try {
    path = Deno.env.get("PATH") ?? "";
  } catch {
    // No env permission: only the fallback folders.
  }
  for (const folder of [...path.split(":"), ...postgresBinFolders()]) {
    if (!folder) continue;
    const candidate = `${folder}/${name}`;
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) {
        return candidate;
      }
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function postgresBinFolders(): string[] {
  try {
    return [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => `/usr/lib/postgresql/${version}/bin`);
  } catch {
    return [];
  }
}
