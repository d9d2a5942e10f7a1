import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { isRunning, Leftovers, ownerOf, selfIdentity } from "./leftovers.ts";
import { isAlive, survivors } from "./testing.ts";

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
    const server = new Deno.Command("sleep", { args: ["60"], cwd: stale })
      .spawn();
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
  await new Promise((resolve) => setTimeout(resolve, 200));
  const group = [...Deno.readDirSync("/proc")]
    .filter((e) => /^\d+$/.test(e.name))
    .map((e) => Number(e.name))
    .filter((pid) => {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2] ===
          String(shell.pid);
      } catch {
        return false;
      }
    });
  assert.equal(group.length, 3, "the shell and its two sleeps");
  leftovers.forceCleanup();
  await shell.status;
  assert.deepEqual(await survivors(group), []);
  assert.equal(isAlive(shell.pid), false);
  assert.equal(leftovers.tempDirs().length, 0);
  await assert.rejects(() => Deno.stat(dir));
});
