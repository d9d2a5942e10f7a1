/**
 * Runs a short-lived program to its end (an installer, a `--version`), with
 * a time limit and an abort signal, and hands back what it printed.
 *
 * @module
 */
import { spawnProcess } from "./spawn.ts";

/** Options for {@link runToEnd}. */
export interface RunToEndOptions {
  /** Its working folder. */
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
  /** How long it may take, in ms, before it is killed. */
  readonly timeoutMs: number;
  /** Kills it. */
  readonly signal?: AbortSignal;
}

/** What a program run by {@link runToEnd} did. */
export interface RunToEndResult {
  /** Its exit code; `null` when it was killed (time limit or abort). */
  readonly code: number | null;
  /** Its standard output. */
  readonly stdout: string;
  /** Its standard error. */
  readonly stderr: string;
}

/**
 * Runs `command` with `args` to its end, killing it (SIGKILL) when it takes
 * longer than `timeoutMs` or `signal` aborts.
 *
 * @param command The program: a name on `PATH` or a path.
 * @param args Its arguments.
 * @param options Folder, environment, time limit and abort signal.
 * @returns Its exit code and output.
 * @throws {Error} When it cannot be started (e.g. not found), or the
 *   signal's reason when aborted.
 */
export async function runToEnd(
  command: string,
  args: readonly string[],
  options: RunToEndOptions,
): Promise<RunToEndResult> {
  options.signal?.throwIfAborted();
  const child = spawnProcess(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
  });
  let killed = false;
  const kill = () => {
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
  };
  const timer = setTimeout(kill, options.timeoutMs);
  options.signal?.addEventListener("abort", kill, { once: true });
  try {
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    options.signal?.throwIfAborted();
    return { code: killed ? null : status.code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
  }
}

/**
 * The last lines of what a program printed, for an error message.
 *
 * @param result What {@link runToEnd} returned.
 * @param lines How many lines at most.
 */
export function outputTail(result: RunToEndResult, lines = 8): string {
  return (result.stderr.trim() || result.stdout.trim())
    .split("\n").slice(-lines).join("\n");
}
