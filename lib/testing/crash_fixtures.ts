/**
 * Fixtures for the tests that crash a backend's throwaway server through
 * `ServiceManager.crash()` (`kill()` then `restart()` on the same data
 * folder): whether one can be started here, and the round of start, write,
 * crash, check and stop that each backend's test fills in with what it
 * writes and what it expects to have survived.
 *
 * @module
 */
import assert from "node:assert/strict";
import { descendants, exists, isAlive, survivors } from "./mod.ts";
import { type ServiceDefinition, ServiceManager } from "../services/mod.ts";

/** Whether a throwaway server of this kind can be started here. */
export function canStart(def: ServiceDefinition): boolean {
  return Deno.env.get(def.urlEnv) == null &&
    new ServiceManager().availability(def).available;
}

/**
 * Starts a throwaway server through a manager, lets `write` put data in,
 * crashes it, checks the new process and the old tree, lets `check` say what
 * survived, then stops everything and checks that nothing is left.
 *
 * @param label Names the server in the line that says how long the crash took.
 * @param def The server's kind.
 * @param write Puts the data in (and may crash the server itself first, to
 *   set up: `outliveCrash`).
 * @param check Says what survived, from the server's URL and data folder.
 */
export async function crashAndCheck(
  label: string,
  def: ServiceDefinition,
  write: (url: string, manager: ServiceManager) => Promise<void>,
  check: (url: string, dir: string) => Promise<void>,
): Promise<void> {
  const manager = new ServiceManager();
  try {
    const first = await manager.acquire(def);
    assert.ok(first.pid != null && isAlive(first.pid));
    await write(first.url, manager);
    // `write` may have crashed it already, to set up (outliveCrash).
    const { url, pid } = await manager.acquire(def);
    assert.equal(url, first.url);
    assert.ok(pid != null && isAlive(pid));
    const oldTree = [pid, ...descendants(pid)];
    const started = performance.now();
    const { restartedPid } = await manager.crash(def);
    const ms = performance.now() - started;
    console.log(`${label}: kill+restart took ${ms.toFixed(0)} ms`);

    assert.notEqual(restartedPid, pid);
    assert.deepEqual(await survivors(oldTree, 0), [], "old tree gone at once");
    assert.ok(isAlive(restartedPid));
    const again = await manager.acquire(def);
    assert.equal(again.pid, restartedPid, "acquire() returns the new pid");
    assert.equal(again.url, url, "same port");
    assert.deepEqual(manager.startedPids(), [restartedPid]);

    const dirs = manager.tempDirs();
    assert.equal(dirs.length, 1);
    await check(url, dirs[0]);

    const newTree = [restartedPid, ...descendants(restartedPid)];
    await manager.stopAll();
    assert.deepEqual(await survivors(newTree), [], "no process outlives it");
    for (const dir of dirs) assert.ok(!(await exists(dir)), dir);
    assert.deepEqual(manager.startedPids(), []);
  } finally {
    await manager.stopAll();
  }
}
