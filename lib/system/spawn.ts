/**
 * The one way this project starts a child process: in its own process group
 * (a Ctrl-C in the terminal reaches the bench, which stops its children
 * itself), with stdout and stderr piped, and recorded with the leftovers
 * registry so that a forced exit kills it.
 *
 * @module
 */
import { leftovers } from "./leftovers.ts";

/** Options for {@link spawnProcess}. */
export interface SpawnOptions {
  /** The arguments. */
  readonly args: readonly string[];
  /** `"piped"` to write commands to the child, `"null"` otherwise. */
  readonly stdin: "piped" | "null";
  /** The working folder of the child. */
  readonly cwd?: string;
  /** Run the child as this user id (needs root). */
  readonly uid?: number;
  /** Run the child as this group id (needs root). */
  readonly gid?: number;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
}

/**
 * Starts `command` detached in its own process group, with stdout and stderr
 * piped (the caller must read both, or a full pipe blocks the child), and
 * tracks it until it exits.
 *
 * @param command The executable, e.g. `Deno.execPath()`.
 * @param options Its arguments, stdin, folder, user and environment.
 * @returns The running process.
 */
export function spawnProcess(
  command: string,
  options: SpawnOptions,
): Deno.ChildProcess {
  const child = new Deno.Command(command, {
    args: [...options.args],
    cwd: options.cwd,
    uid: options.uid,
    gid: options.gid,
    env: options.env,
    stdin: options.stdin,
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  leftovers.trackProcess(child.pid, child.status);
  return child;
}
