/**
 * Tools a test takes from the machine (git, `script`, …), which a minimal
 * one may lack: {@link toolMissing} says once on stderr what a test does
 * without one and how to add it (Deno's `ignore` names no reason), and
 * {@link assertCommitRecorded} checks the commit a results file records as
 * this machine lets the bench read it: `HEAD`'s in a git checkout where
 * git is on `PATH`, the stated absence elsewhere.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { findBinary } from "../services/binaries.ts";
import {
  type Commit,
  GIT_NOT_FOUND,
  NOT_A_GIT_CHECKOUT,
} from "../results/mod.ts";

const told = new Set<string>();

/**
 * Whether `tool` is missing from `PATH`; when it is, says once per process
 * on stderr what the tests do without it and how to add it.
 *
 * @param tool The executable, e.g. `script`.
 * @param without What the tests do without it, e.g. `skipping the
 *   Ctrl-C test in a terminal`.
 * @param install How to add it, e.g. `apt-get install bsdutils`.
 */
export function toolMissing(
  tool: string,
  without: string,
  install: string,
): boolean {
  if (findBinary(tool) != null) return false;
  const line = `${tool} not found on PATH: ${without}; to add it: ${install}`;
  if (!told.has(line)) {
    told.add(line);
    console.warn(line);
  }
  return true;
}

/**
 * Whether something the tests need is missing, given why (`null` or
 * `undefined` when it is there); when it is, says once per process on
 * stderr which tests are skipped and why.
 *
 * @param tests The tests skipped, e.g. `the network namespace tests`.
 * @param reason Why they cannot run here, naming the fix.
 */
export function missingBecause(
  tests: string,
  reason: string | null | undefined,
): boolean {
  if (reason == null) return false;
  const line = `skipping ${tests}: ${reason}`;
  if (!told.has(line)) {
    told.add(line);
    console.warn(line);
  }
  return true;
}

/**
 * Runs git in `dir` as a test's own committer, failing the test with git's
 * words when it fails.
 *
 * @param dir The checkout.
 * @param args git's arguments, e.g. `"commit", "-qm", "one"`.
 * @returns What git printed on stdout, trimmed.
 */
export async function gitIn(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: [
      "-C",
      dir,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** This project's root, where `bench.ts` reads its commit. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What the bench can read of this project's commit on this machine. */
export interface ExpectedCommit {
  /** Whether a commit is read (a checkout, git on `PATH`, git answering). */
  readonly recorded: boolean;
  /** Otherwise the reason the results give. */
  readonly noCommitReason?: string | RegExp;
}

/**
 * What the bench can read of this project's commit here, found without the
 * bench's code: no `.git` at the root (an archive) means
 * {@link NOT_A_GIT_CHECKOUT}; no git on `PATH`, {@link GIT_NOT_FOUND}
 * (said once on stderr); git failing on the checkout (a folder another user
 * owns), `git failed: `; otherwise `HEAD`'s commit.
 */
export async function expectedCommit(): Promise<ExpectedCommit> {
  try {
    await Deno.stat(join(ROOT, ".git"));
  } catch {
    return { recorded: false, noCommitReason: NOT_A_GIT_CHECKOUT };
  }
  if (
    toolMissing(
      "git",
      `the tests check that results record no commit and say "${GIT_NOT_FOUND}"`,
      "apt-get install git",
    )
  ) {
    return { recorded: false, noCommitReason: GIT_NOT_FOUND };
  }
  const head = await new Deno.Command("git", {
    args: ["-C", ROOT, "rev-parse", "HEAD"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return head.success
    ? { recorded: true }
    : { recorded: false, noCommitReason: /^git failed: / };
}

/**
 * Asserts the commit a results file's environment records, and the line of
 * its Markdown report when given, against {@link expectedCommit}.
 *
 * @param environment The `environment` of a results file.
 * @param markdown Its Markdown report, which names the commit or its
 *   absence.
 */
export async function assertCommitRecorded(
  environment:
    | {
      readonly commit?: Commit | null;
      readonly noCommitReason?: string;
    }
    | null
    | undefined,
  markdown?: string,
): Promise<void> {
  const expected = await expectedCommit();
  const line = /- \*\*This project's commit\*\*: (.*)/.exec(markdown ?? "")
    ?.[1];
  if (expected.recorded) {
    assert.match(environment?.commit?.sha ?? "", /^[0-9a-f]{40}$/);
    assert.equal(typeof environment?.commit?.dirty, "boolean");
    assert.equal(environment?.noCommitReason, undefined);
    if (markdown != null) {
      assert.match(line ?? "", /^`[0-9a-f]{40}`/, markdown);
    }
    return;
  }
  assert.equal(environment?.commit, null, "no commit is recorded");
  const reason = environment?.noCommitReason ?? "";
  if (expected.noCommitReason instanceof RegExp) {
    assert.match(reason, expected.noCommitReason);
  } else assert.equal(reason, expected.noCommitReason);
  if (markdown == null) return;
  if (expected.noCommitReason instanceof RegExp) {
    // Git's own words may hold characters the report escapes.
    assert.match(line ?? "", /^none recorded \(git failed: /, markdown);
  } else assert.equal(line, `none recorded (${reason})`, markdown);
}
