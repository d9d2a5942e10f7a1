/**
 * The project as the check sees it: a `git clone` of its HEAD, made on the
 * host (the container has no git), with the working tree's uncommitted
 * changes named as not part of the check.
 *
 * @module
 */
import { join } from "node:path";
import { findBinary } from "../services/binaries.ts";
import { runToEnd } from "../system/run_to_end.ts";
import { FreshCheckError, must } from "./error.ts";

/** What {@link cloneProject} cloned. */
export interface CloneRecord {
  /** The clone's folder on the host. */
  readonly dir: string;
  /** The commit checked out (the project's HEAD). */
  readonly commit: string;
  /** Its subject line. */
  readonly subject: string;
  /**
   * Paths changed or added in the project's working tree and so not part
   * of the check (`git status --porcelain`).
   */
  readonly uncommitted: readonly string[];
  /** Whether the clone keeps its `.git` folder. */
  readonly gitDir: boolean;
}

/**
 * `git clone` of the project at its HEAD into `dest` (on the host: the
 * container has no git).  The clone keeps its `.git`, as a user's clone
 * does, unless `keepGitDir` is false (a downloaded archive).
 *
 * @param root The project's folder.
 * @param dest A folder that does not exist yet.
 * @param keepGitDir Whether the clone keeps its `.git`.
 * @param signal Stops it.
 * @throws {FreshCheckError} Naming what failed and the fix.
 */
export async function cloneProject(
  root: string,
  dest: string,
  keepGitDir: boolean,
  signal: AbortSignal,
): Promise<CloneRecord> {
  if (findBinary("git") == null) {
    throw new FreshCheckError(
      "the host needs git to clone the project: apt-get install -y git",
    );
  }
  const git = (args: string[], what: string) =>
    must("git", args, {
      timeoutMs: 120_000,
      signal,
      what,
      fix: `check that ${root} is a git repository with a commit`,
    });
  await git(["clone", "--quiet", "--no-hardlinks", root, dest], "git clone");
  const [commit, subject, status] = await Promise.all([
    git(["-C", dest, "rev-parse", "HEAD"], "git rev-parse"),
    git(["-C", dest, "log", "-1", "--format=%s"], "git log"),
    runToEnd("git", ["-C", root, "status", "--porcelain"], {
      timeoutMs: 60_000,
      signal,
    }),
  ]);
  if (!keepGitDir) {
    await Deno.remove(join(dest, ".git"), { recursive: true });
  }
  return {
    dir: dest,
    commit,
    subject,
    uncommitted: status.stdout.split("\n").filter((l) => l.trim() !== "")
      .map((l) => l.slice(3)),
    gitDir: keepGitDir,
  };
}
