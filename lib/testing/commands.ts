/**
 * Running the project's command lines from a test: a `deno` child process
 * whose exit code and output the test reads, at the end or as it runs.
 *
 * @module
 */
import { sleep } from "../system/sleep.ts";

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

/** Options for {@link spawnDeno}. */
export interface SpawnDenoOptions extends RunDenoOptions {
  /** `"piped"` (the default) to read its standard output, `"null"` to drop it. */
  readonly stdout?: "piped" | "null";
}

/**
 * Starts the `deno` that runs the tests with `args` and `NO_COLOR=1`, and
 * returns it running: its standard error piped, its standard input the
 * test's.  The test must wait for its `status` (and read or cancel its
 * pipes).
 *
 * @param args The arguments after `deno`.
 * @param options More environment variables, the working folder, and
 *   whether to pipe its standard output.
 */
export function spawnDeno(
  args: readonly string[],
  options: SpawnDenoOptions = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: options.stdout ?? "piped",
    stderr: "piped",
  }).spawn();
}

/** A child's output, read as it comes. */
export class Output {
  /** What it wrote so far. */
  text = "";
  /** Resolves once the stream ended. */
  readonly done: Promise<void>;

  /** Reads `stream` as it comes. */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = (async () => {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        this.text += chunk;
      }
    })();
  }

  /**
   * Waits until the text so far matches `pattern`.
   * @throws {Error} After `ms` without a match, with the text.
   */
  async waitFor(pattern: RegExp, ms = 120_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pattern.test(this.text)) {
      if (Date.now() > deadline) {
        throw new Error(`no ${pattern} within ${ms} ms:\n${this.text}`);
      }
      await sleep(100);
    }
  }
}
