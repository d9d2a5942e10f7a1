/**
 * How the check fails when it cannot go on: {@link FreshCheckError}, whose
 * message names the cause and the fix, and {@link must}, which runs a short
 * command that has to succeed and throws one when it does not.
 *
 * @module
 */
import { errorMessage } from "../results/error_message.ts";
import { outputTail, runToEnd } from "../system/run_to_end.ts";

/** The check cannot go on; the message names the cause and the fix. */
export class FreshCheckError extends Error {
  /** @param message Names the cause and the fix. */
  constructor(message: string) {
    super(message);
    this.name = "FreshCheckError";
  }
}

/** Options for {@link must}. */
export interface MustOptions {
  /** How long it may take, in ms. */
  readonly timeoutMs: number;
  /** Kills it; its reason is thrown as it is. */
  readonly signal?: AbortSignal;
  /** What failed, the error's first words. */
  readonly what: string;
  /** What to do about it, the error's last words. */
  readonly fix: string;
}

/**
 * Runs a short command to its end and throws, naming it, when it fails.
 *
 * @param command The program: a name on `PATH` or a path.
 * @param args Its arguments.
 * @param options Time limit, abort signal, and the words of the error.
 * @returns Its standard output, trimmed.
 * @throws {FreshCheckError} When it cannot start, exits with a code other
 *   than 0 or takes longer than its time limit.
 */
export async function must(
  command: string,
  args: readonly string[],
  options: MustOptions,
): Promise<string> {
  let result;
  try {
    result = await runToEnd(command, args, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new FreshCheckError(
      `${options.what}: cannot run ${command}: ${errorMessage(error)}; ` +
        options.fix,
    );
  }
  if (result.code !== 0) {
    throw new FreshCheckError(
      `${options.what}: ${command} ${
        result.code == null
          ? `took longer than ${Math.round(options.timeoutMs / 1000)} s`
          : `exited with code ${result.code}`
      }:\n${outputTail(result)}\n${options.fix}`,
    );
  }
  return result.stdout.trim();
}
