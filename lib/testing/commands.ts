/**
 * Running the project's command lines from a test: a `deno` child process
 * whose exit code and output the test reads.
 *
 * @module
 */

/** How a finished command exited and what it printed. */
export interface CommandOutput {
  /** The exit code. */
  readonly code: number;
  /** Its standard output, decoded. */
  readonly stdout: string;
  /** Its standard error, decoded. */
  readonly stderr: string;
}

/** Options for {@link runDeno}. */
export interface RunDenoOptions {
  /** Added to the inherited environment (after `NO_COLOR=1`, so they win). */
  readonly env?: Record<string, string>;
  /** The working folder; the test's own when absent. */
  readonly cwd?: string;
}

/**
 * Runs the `deno` that runs the tests with `args` (e.g.
 * `["run", "-A", "bench.ts", "--list"]`) and `NO_COLOR=1`, waits for it to
 * end, and returns its exit code and output.
 *
 * @param args The arguments after `deno`.
 * @param options More environment variables, and the working folder.
 */
export async function runDeno(
  args: readonly string[],
  options: RunDenoOptions = {},
): Promise<CommandOutput> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
