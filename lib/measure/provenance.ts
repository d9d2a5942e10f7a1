/**
 * Where a results file came from: this project's git commit (and whether
 * its working tree had uncommitted changes) and the command line as run,
 * so that a figure can be traced to the code that measured it.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { realpath } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import type { Commit } from "../results/types.ts";

/** This project's root: the folder of `deno.json`, two levels up. */
const PROJECT_ROOT = new URL("../../", import.meta.url);

/** How long each git command may take, in ms. */
const GIT_TIMEOUT_MS = 10_000;

/**
 * This project's git commit and whether its working tree is dirty
 * (`git status --porcelain` prints anything, untracked files included), or
 * `null` when it cannot be read: the project is not a git checkout of its
 * own (imported as a library, or vendored inside another repository), git
 * is missing, or running it is not allowed.  Never throws.
 *
 * @param root The project's root; this project's by default.
 */
export async function readCommit(
  root: URL = PROJECT_ROOT,
): Promise<Commit | null> {
  if (root.protocol !== "file:") return null;
  const dir = fileURLToPath(root);
  const top = await git(dir, ["rev-parse", "--show-toplevel"]);
  if (top == null || !await samePath(top.trim(), dir)) return null;
  const sha = (await git(dir, ["rev-parse", "HEAD"]))?.trim();
  if (sha == null || !/^[0-9a-f]{40,64}$/.test(sha)) return null;
  const status = await git(dir, ["status", "--porcelain"]);
  if (status == null) return null;
  return { sha, dirty: status.trim() !== "" };
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
  return tag == null || tag.trim() === "" ? null : tag.trim();
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
 * Runs git in `dir`; its stdout, or `null` when it fails in any way.  On
 * Node's `child_process`, so that the app's processes read a source tree's
 * commit on every runtime (`--runtime`).
 */
function git(dir: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    try {
      execFile(
        "git",
        ["-C", dir, ...args],
        { timeout: GIT_TIMEOUT_MS, encoding: "utf8" },
        (error, stdout) => resolve(error == null ? String(stdout) : null),
      ).stdin?.end();
    } catch {
      resolve(null);
    }
  });
}
