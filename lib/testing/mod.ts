/**
 * Helpers for the test suite.
 *
 * @module
 */
import type { Driver, Json } from "../../drivers/driver.ts";

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(
      stat.lastIndexOf(")") + 2,
      stat.lastIndexOf(")") + 3,
    );
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits up to `ms` for every pid to be gone; returns those still alive. */
export async function survivors(
  pids: readonly number[],
  ms = 5000,
): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** Whether a file or folder exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

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
  // Some queues (PostgresMessageQueue 1.8.7) leave poll loops running after
  // listen() settles; closing their client under them fails those queries.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await opened.close();
  return received;
}
