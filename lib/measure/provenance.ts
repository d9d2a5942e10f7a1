/**
 * Where a results file came from: this project's git commit (and whether
 * its working tree had uncommitted changes, or why no commit could be
 * read) and the command line as run, so that a figure can be traced to the
 * code that measured it.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import {
  type Commit,
  GIT_NOT_FOUND,
  NOT_A_GIT_CHECKOUT,
} from "../results/mod.ts";

/** This project's root: the folder of `deno.json`, two levels up. */
const PROJECT_ROOT = new URL("../../", import.meta.url);

/** How long each git command may take, in ms. */
const GIT_TIMEOUT_MS = 10_000;

/** Why git gave no answer in time. */
const TIMED_OUT = `git failed: no answer within ${GIT_TIMEOUT_MS / 1000} s`;

/**
 * This project's commit as {@link readCommitReading} read it: the commit,
 * or `null` and why none could be read, in words a report prints as they
 * are (`not a git checkout`, `git not found`, `git failed: …`).
 */
export type CommitReading =
  | { readonly commit: Commit; readonly noCommitReason?: undefined }
  | { readonly commit: null; readonly noCommitReason: string };

/**
 * This project's git commit and whether its working tree is dirty
 * (`git status --porcelain` prints anything, untracked files included), or
 * `null` and why it cannot be read: the folder has no `.git` of its own (a
 * downloaded archive, the project imported as a library or vendored inside
 * another repository: {@link NOT_A_GIT_CHECKOUT}), git is missing
 * ({@link GIT_NOT_FOUND}), or git fails or may not run.  Never throws.
 *
 * @param root The project's root; this project's by default.
 */
export async function readCommitReading(
  root: URL = PROJECT_ROOT,
): Promise<CommitReading> {
  const none = (noCommitReason: string): CommitReading => ({
    commit: null,
    noCommitReason,
  });
  if (root.protocol !== "file:") {
    return none(`${NOT_A_GIT_CHECKOUT} (not a local folder)`);
  }
  const dir = fileURLToPath(root);
  // Without git, a folder with no .git is still known not to be a checkout.
  if (!await mayHoldGit(dir)) return none(NOT_A_GIT_CHECKOUT);
  const top = await git(dir, ["rev-parse", "--show-toplevel"]);
  if ("failure" in top) return none(top.failure);
  if (!await samePath(top.stdout.trim(), dir)) {
    return none(`${NOT_A_GIT_CHECKOUT} of its own`);
  }
  const head = await git(dir, ["rev-parse", "HEAD"]);
  if ("failure" in head) return none(head.failure);
  const sha = head.stdout.trim();
  if (!/^[0-9a-f]{40,64}$/.test(sha)) {
    return none("git failed: no commit hash from rev-parse HEAD");
  }
  const status = await git(dir, ["status", "--porcelain"]);
  if ("failure" in status) return none(status.failure);
  return { commit: { sha, dirty: status.stdout.trim() !== "" } };
}

/**
 * This project's git commit and whether its working tree is dirty, or
 * `null` when it cannot be read ({@link readCommitReading} says why).
 * Never throws.
 *
 * @param root The project's root; this project's by default.
 */
export async function readCommit(
  root: URL = PROJECT_ROOT,
): Promise<Commit | null> {
  return (await readCommitReading(root)).commit;
}

/**
 * The tag that names exactly the commit checked out at `root` (`git
 * describe --tags --exact-match`), or `null` when none does or git cannot
 * tell.  Never throws.
 *
 * @param root A git checkout's root.
 */
export async function readExactTag(root: URL): Promise<string | null> {
  if (root.protocol !== "file:") return null;
  const tag = await git(fileURLToPath(root), [
    "describe",
    "--tags",
    "--exact-match",
    "HEAD",
  ]);
  return "failure" in tag || tag.stdout.trim() === ""
    ? null
    : tag.stdout.trim();
}

/**
 * The command line as run, as a list a shell would read: the environment
 * variables among `names` that are set and not empty (`TOTAL=20`), the
 * script's path relative to the working folder, then its arguments.
 *
 * @param script The entry module's URL (`import.meta.url` of `bench.ts`).
 * @param args Its arguments (`Deno.args`).
 * @param env The environment.
 * @param names The environment variables the command reads.
 */
export function commandLine(
  script: string | URL,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string[] {
  // An empty variable means "not given" to every command here: left out.
  const set = names.filter((name) => env[name] != null && env[name] !== "")
    .map((name) => `${name}=${env[name]}`);
  return [...set, scriptPath(new URL(script)), ...args];
}

function scriptPath(url: URL): string {
  if (url.protocol !== "file:") return url.href;
  const path = fileURLToPath(url);
  let cwd: string | null = null;
  try {
    cwd = Deno.cwd();
  } catch { /* no read permission: keep the absolute path */ }
  if (cwd == null) return path;
  const inside = relative(cwd, path);
  return inside.startsWith("..") || isAbsolute(inside) ? path : inside;
}

async function samePath(a: string, b: string): Promise<boolean> {
  try {
    return await realpath(a) === await realpath(b);
  } catch {
    return false;
  }
}

/**
 * Whether `dir` has a `.git` (a folder, or a file in a worktree or
 * submodule), or cannot be looked at (git then decides).
 */
async function mayHoldGit(dir: string): Promise<boolean> {
  try {
    await stat(join(dir, ".git"));
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== "ENOENT";
  }
}

/** What {@link git} printed, or why it printed nothing usable. */
type GitOutput = { readonly stdout: string } | { readonly failure: string };

/**
 * Runs git in `dir`: its stdout, or why it failed ({@link GIT_NOT_FOUND},
 * `git failed: ` and the first line of its stderr, `git could not run: `
 * and the runtime's message; `dir` itself written `.`).  On Deno through `Deno.Command`, which needs
 * only run permission (Node's `child_process` on Deno reads the whole
 * environment, which `deno task remodel` may not); elsewhere through
 * Node's `child_process`, so that the app's processes read a source tree's
 * commit on every runtime (`--runtime`).
 */
async function git(dir: string, args: readonly string[]): Promise<GitOutput> {
  const argv = ["-C", dir, ...args];
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  const output = await (deno == null ? gitOnNode(argv) : gitOnDeno(deno, argv));
  if (!("failure" in output)) return output;
  // A results file holds no absolute path of the machine: the folder is ".".
  const folder = dir.replace(/\/+$/, "");
  return { failure: output.failure.replaceAll(folder, ".") };
}

async function gitOnDeno(
  deno: typeof Deno,
  args: readonly string[],
): Promise<GitOutput> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), GIT_TIMEOUT_MS);
  try {
    const output = await new deno.Command("git", {
      args: [...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: abort.signal,
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    if (output.success) return { stdout: decode(output.stdout) };
    return {
      failure: abort.signal.aborted
        ? TIMED_OUT
        : gitFailed(decode(output.stderr), `exit code ${output.code}`),
    };
  } catch (error) {
    if (error instanceof deno.errors.NotFound) {
      return { failure: GIT_NOT_FOUND };
    }
    return { failure: `git could not run: ${messageOf(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

function gitOnNode(args: readonly string[]): Promise<GitOutput> {
  return new Promise((resolve) => {
    try {
      execFile(
        "git",
        [...args],
        { timeout: GIT_TIMEOUT_MS, encoding: "utf8" },
        (error, stdout, stderr) => {
          if (error == null) return resolve({ stdout: String(stdout) });
          const { code, killed } = error as {
            code?: unknown;
            killed?: boolean;
          };
          resolve({
            failure: code === "ENOENT"
              ? GIT_NOT_FOUND
              : killed
              ? TIMED_OUT
              : typeof code === "number"
              ? gitFailed(String(stderr), `exit code ${code}`)
              : `git could not run: ${error.message}`,
          });
        },
      ).stdin?.end();
    } catch (error) {
      resolve({ failure: `git could not run: ${messageOf(error)}` });
    }
  });
}

/** `git failed: ` and the first line git printed on stderr, or `fallback`. */
function gitFailed(stderr: string, fallback: string): string {
  const line = stderr.split("\n").map((l) => l.trim()).find((l) => l !== "");
  return `git failed: ${(line ?? fallback).slice(0, 200)}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
