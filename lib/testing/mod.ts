/**
 * Helpers for the test suite: its face.  Processes and files a test checks
 * on, a driver's round trip, and (re-exported) the fixtures of the modules
 * beside this one: running `deno`, servers and their clients, queues on
 * their own, suites with exact accounting, and the synthetic steady-load
 * document.  The charts' synthetic documents, misbehaving drivers, and
 * the rounds of crashing and of fetching a server have modules of their own.
 *
 * @module
 */
import type { Driver, Json } from "../../drivers/driver.ts";
import { liveDescendants, readLiveStat } from "../system/procstat.ts";
import { sleep } from "../system/sleep.ts";

export {
  type CommandOutput,
  Output,
  runDeno,
  type RunDenoOptions,
  spawnDeno,
  type SpawnDenoOptions,
} from "./commands.ts";
export {
  type Recorder,
  recordMessages,
  type RecordOptions,
  waitFor,
} from "./queues.ts";
export { LOAD_PARAMS, loadRecord, steadyDocument } from "./load_fixtures.ts";
export {
  assertExactAccounting,
  assertOutcome,
  describeOutcome,
  inboxStats,
  smallSuiteParams,
  withLogDir,
} from "./runs.ts";
export {
  outliveCrash,
  queueExists,
  rejectsWithin,
  serversMissing,
  SERVICE_ENVS,
  withEnv,
  withRedis,
  withSilentServer,
} from "./servers.ts";

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  return readLiveStat(pid) != null;
}

/** The ids of the live descendants of `pid` (not `pid` itself). */
export function descendants(pid: number): number[] {
  return liveDescendants(pid).map((entry) => entry.pid);
}

/**
 * Waits up to `ms` (20 s unless given: a busy machine reaps slowly) for
 * every pid to be gone; returns those still alive.
 */
export async function survivors(
  pids: readonly number[],
  ms = 20_000,
): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  return alive;
}

/**
 * Processes (other than this one) that work in `dir` or whose command line
 * mentions it (redis-server rewrites its command line, not its folder).
 */
export function processesUsing(dir: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      const cwd = Deno.readLinkSync(`/proc/${entry.name}/cwd`);
      if (cmdline.includes(dir) || cwd.startsWith(dir)) {
        found.push(Number(entry.name));
      }
    } catch { /* gone */ }
  }
  return found;
}

export { exists } from "../system/fs.ts";

/**
 * Opens a driver's queue from a prepared configuration, enqueues one
 * message, listens until it arrives, closes the queue, and returns what the
 * listener received.
 */
export async function roundTrip(
  driver: Driver,
  config: Json,
): Promise<unknown[]> {
  const opened = await driver.open!(config);
  const received: unknown[] = [];
  const controller = new AbortController();
  const listening = opened.queue.listen((message) => {
    received.push(message);
    controller.abort();
  }, { signal: controller.signal });
  await opened.queue.enqueue({ hello: "world" });
  await listening;
  // A driver's close() waits for what its queue left running (the polls
  // PostgresMessageQueue 1.8.7 starts from notifications) before closing.
  await opened.close();
  return received;
}
