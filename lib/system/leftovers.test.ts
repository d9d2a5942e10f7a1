/**
 * Temporary folders and child processes: folder names, the sweep of a dead
 * bench's folders (which spares processes with a terminal), and a forced
 * exit's cleanup.  Linux only, like the sweep: they read `/proc`.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { isRunning, Leftovers, ownerOf, selfIdentity } from "./leftovers.ts";
import { toolMissing } from "../testing/tools.ts";
import { isAlive, survivors } from "../testing/mod.ts";
import { readStat } from "./procstat.ts";
import { sleep } from "./sleep.ts";

/** The processes that `matches` picks, from `/proc`. */
function processes(matches: (pid: number) => boolean): number[] {
  return [...Deno.readDirSync("/proc")]
    .filter((e) => /^\d+$/.test(e.name))
    .map((e) => Number(e.name))
    .filter((pid) => {
      try {
        return matches(pid);
      } catch {
        return false;
      }
    });
}

/**
 * Polls `find` every 20 ms until it returns `count` processes; fails after
 * `ms` (a loaded machine may take a while to fork them).
 */
async function waitForProcesses(
  find: () => number[],
  count: number,
  what: string,
  ms = 10_000,
): Promise<number[]> {
  const deadline = Date.now() + ms;
  let found = find();
  while (found.length !== count) {
    if (Date.now() > deadline) {
      assert.fail(
        `expected ${count} processes (${what}), found [${found.join(", ")}]`,
      );
    }
    await sleep(20);
    found = find();
  }
  return found;
}

/** The identity of a process that has exited. */
async function deadIdentity() {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return { pid: child.pid, startTime: "12345" };
}

Deno.test("folder names carry their owner, and only bench names parse", async () => {
  const leftovers = new Leftovers();
  const dir = await leftovers.makeTempDir("redis-rdb");
  try {
    assert.match(basename(dir), /^fqb-redis-rdb-\d+-\d+-/);
    assert.deepEqual(ownerOf(basename(dir)), selfIdentity());
    assert.deepEqual(leftovers.tempDirs(), [dir]);
    assert.equal(isRunning(selfIdentity()), true);
    assert.equal(ownerOf("fqb-run-4d2ee87b6d7f207"), undefined);
    assert.equal(ownerOf("other-1-2-abc"), undefined);
  } finally {
    await leftovers.removeTempDir(dir);
  }
  assert.deepEqual(leftovers.tempDirs(), []);
});

Deno.test("sweepStale removes dead benches' folders and stops what runs in them", async () => {
  const root = await Deno.makeTempDir();
  try {
    const dead = await deadIdentity();
    assert.equal(isRunning(dead), false);
    const self = selfIdentity();
    const stale = join(root, `fqb-redis-${dead.pid}-${dead.startTime}-aaa`);
    const live = join(root, `fqb-run-${self.pid}-${self.startTime}-bbb`);
    const reused = join(root, `fqb-run-${self.pid}-1-ccc`);
    const legacy = join(root, "fqb-run-ddd");
    for (const dir of [stale, live, reused, legacy]) await Deno.mkdir(dir);
    // Detached, as the bench starts its servers: no controlling terminal.
    const server = new Deno.Command("sleep", {
      args: ["60"],
      cwd: stale,
      detached: true,
    }).spawn();
    const removed = await new Leftovers().sweepStale(root);
    assert.deepEqual(removed.sort(), [reused, stale].sort());
    assert.equal((await server.status).signal, "SIGKILL");
    assert.deepEqual(
      [...Deno.readDirSync(root)].map((e) => e.name).sort(),
      [basename(legacy), basename(live)].sort(),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("forceCleanup kills tracked process groups and removes folders", async () => {
  const leftovers = new Leftovers();
  const dir = await leftovers.makeTempDir("run");
  const shell = new Deno.Command("sh", {
    args: ["-c", "sleep 60 & sleep 60; wait"],
    detached: true,
  }).spawn();
  leftovers.trackProcess(shell.pid, shell.status);
  const group = await waitForProcesses(
    () => processes((pid) => readStat(pid)?.pgid === shell.pid),
    3,
    "the shell and its two sleeps",
  );
  leftovers.forceCleanup();
  await shell.status;
  assert.deepEqual(await survivors(group), []);
  assert.equal(isAlive(shell.pid), false);
  assert.equal(leftovers.tempDirs().length, 0);
  await assert.rejects(() => Deno.stat(dir));
});

Deno.test({
  name: "sweepStale spares a process that has a controlling terminal",
  // util-linux `script` gives it a terminal (BusyBox's and BSD's take other
  // options); the sweep needs `/proc`.
  ignore: Deno.build.os !== "linux" ||
    toolMissing(
      "script",
      "skipping the test that the sweep spares a process with a terminal",
      "apt-get install bsdutils (Debian 12) or bsdextrautils (Debian 13)",
    ),
  async fn() {
    const root = await Deno.makeTempDir();
    const dead = await deadIdentity();
    const stale = join(root, `fqb-redis-${dead.pid}-${dead.startTime}-aaa`);
    await Deno.mkdir(stale);
    // The folder reaches the shell through the environment, so only the
    // shell's `sleep` works in it; `script`'s command line does not name it.
    const terminal = new Deno.Command("script", {
      args: ["-qec", 'cd "$FQB_DIR" && exec sleep 60', "/dev/null"],
      env: { FQB_DIR: stale, SHELL: "/bin/sh" },
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const real = Deno.realPathSync(stale);
    const inStale = (pid: number) =>
      Deno.readLinkSync(`/proc/${pid}/cwd`) === real;
    let user: number | undefined;
    try {
      const found = await waitForProcesses(
        () => processes(inStale),
        1,
        "the sleep in the stale folder",
      );
      user = found[0];
      assert.notEqual(readStat(user)?.ttyNr, 0, "it has a terminal");
      const removed = await new Leftovers().sweepStale(root);
      assert.deepEqual(removed, [stale]);
      assert.equal(isAlive(user), true, "the sweep spared it");
    } finally {
      if (user != null) {
        try {
          Deno.kill(user, "SIGKILL");
        } catch { /* gone */ }
      }
      await terminal.stdin.close().catch(() => {});
      try {
        terminal.kill("SIGKILL");
      } catch { /* gone */ }
      await terminal.status;
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("forceCleanup runs each recorded cleanup once, not a forgotten one", () => {
  const own = new Leftovers({ pid: 1, startTime: "1" });
  let runs = 0;
  own.trackCleanup(() => runs++);
  const forget = own.trackCleanup(() => runs += 10);
  forget();
  own.trackCleanup(() => {
    throw new Error("best effort");
  });
  own.forceCleanup();
  own.forceCleanup();
  assert.equal(runs, 1);
});
