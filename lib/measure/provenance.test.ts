/**
 * This project's commit as results record it: read where git can read it,
 * and otherwise null with the reason, from a folder with no `.git`, a
 * machine with no git, a checkout git refuses, and a process with only the
 * permissions of `deno task remodel`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readCommit, readCommitReading } from "./provenance.ts";
import { runDeno } from "../testing/commands.ts";
import { gitIn, toolMissing } from "../testing/tools.ts";

const PROVENANCE = new URL("./provenance.ts", import.meta.url).href;

const noGit = toolMissing(
  "git",
  "skipping the provenance tests that read a real checkout",
  "apt-get install git",
);

/** A temporary folder, removed after `fn`. */
async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "fqb-provenance-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `readCommitReading()` of `dir` in a `deno run` with `flags`. */
async function readInChild(
  dir: string,
  flags: string[],
  env: Record<string, string> = {},
): Promise<unknown> {
  const script = join(dir, "..", `${dir.split("/").at(-1)}-read.ts`);
  await Deno.writeTextFile(
    script,
    `import { readCommitReading } from ${JSON.stringify(PROVENANCE)};\n` +
      `const root = new URL(${
        JSON.stringify(pathToFileURL(dir + "/").href)
      });\n` +
      "console.log(JSON.stringify(await readCommitReading(root)));\n",
  );
  try {
    const result = await runDeno(["run", ...flags, script], { env });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  } finally {
    await Deno.remove(script);
  }
}

Deno.test("a folder with no .git of its own records no commit: not a git checkout", async () => {
  await withDir(async (dir) => {
    assert.deepEqual(await readCommitReading(pathToFileURL(dir + "/")), {
      commit: null,
      noCommitReason: "not a git checkout",
    });
    assert.equal(await readCommit(pathToFileURL(dir + "/")), null);
  });
  assert.deepEqual(
    await readCommitReading(new URL("https://example.com/bench/")),
    { commit: null, noCommitReason: "not a git checkout (not a local folder)" },
  );
});

Deno.test("a checkout on a machine without git records no commit: git not found", async () => {
  await withDir(async (dir) => {
    const checkout = join(dir, "checkout");
    await Deno.mkdir(join(checkout, ".git"), { recursive: true });
    const empty = join(dir, "bin");
    await Deno.mkdir(empty);
    // No git on PATH, whether or not this machine has one.
    assert.deepEqual(
      await readInChild(checkout, ["--allow-read", "--allow-run"], {
        PATH: empty,
      }),
      { commit: null, noCommitReason: "git not found" },
    );
  });
});

Deno.test({
  name:
    "a checkout records its commit and whether it is dirty, also with only the permissions of deno task remodel",
  ignore: noGit,
  async fn() {
    await withDir(async (dir) => {
      await gitIn(dir, "init", "-q");
      await Deno.writeTextFile(join(dir, "a.txt"), "a");
      await gitIn(dir, "add", ".");
      await gitIn(dir, "commit", "-q", "-m", "one");
      const sha = await gitIn(dir, "rev-parse", "HEAD");
      const root = pathToFileURL(dir + "/");
      assert.deepEqual(await readCommitReading(root), {
        commit: { sha, dirty: false },
      });
      // `deno task remodel` grants read, write and git, not the environment.
      assert.deepEqual(
        await readInChild(dir, ["--allow-read", "--allow-run=git"]),
        { commit: { sha, dirty: false } },
      );
      await Deno.writeTextFile(join(dir, "new.txt"), "untracked");
      assert.deepEqual(await readCommit(root), { sha, dirty: true });
      // A folder inside the checkout is not a checkout of its own.
      await Deno.mkdir(join(dir, "inner"));
      assert.deepEqual(
        await readCommitReading(pathToFileURL(join(dir, "inner") + "/")),
        { commit: null, noCommitReason: "not a git checkout" },
      );
    });
  },
});

Deno.test({
  name:
    "a .git that git cannot read records no commit and git's words, without the folder's path",
  ignore: noGit,
  async fn() {
    await withDir(async (dir) => {
      // A worktree's .git file pointing nowhere: git names the folder.
      await Deno.writeTextFile(join(dir, ".git"), "gitdir: missing\n");
      const reading = await readCommitReading(pathToFileURL(dir + "/"));
      assert.equal(reading.commit, null);
      assert.equal(
        reading.noCommitReason,
        "git failed: fatal: not a git repository: ./missing",
      );
    });
  },
});
