/**
 * Fixtures for tests of servers and their clients: environment variables
 * set for one test (the backends' URL variables unset), a TCP server that never answers, a rejection that must
 * come in time, a connected Redis client, and state that has outlived a
 * server crash.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ChannelModel } from "amqplib";
import { Redis } from "ioredis";
import { LOAD_ALLOWANCE } from "./queues.ts";
import {
  type AcquiredService,
  type ServiceDefinition,
  ServiceManager,
} from "../services/mod.ts";
import { backendFacts, builtinDrivers } from "../../drivers/mod.ts";
import { missingBecause } from "./tools.ts";

/**
 * Why tests that need these servers cannot run here, or `undefined` when
 * each can be had (from its URL variable, `PATH`, the bench's cache, or a
 * fetch).  For a test's `ignore`, which names no reason: each missing server
 * is said on stderr, once per process, with what is missing and the fix
 * ({@link missingBecause}).
 *
 * @param defs The servers the tests need.
 */
export function serversMissing(
  ...defs: readonly ServiceDefinition[]
): string | undefined {
  const manager = new ServiceManager();
  const reasons: string[] = [];
  for (const def of defs) {
    const availability = manager.availability(def);
    if (availability.available) continue;
    missingBecause(`the tests that need ${def.name}`, availability.reason);
    reasons.push(`${def.name}: ${availability.reason}`);
  }
  return reasons.length === 0 ? undefined : reasons.join("; ");
}

/**
 * The built-in backends' URL variables, each unset: for {@link withEnv}, so
 * that a test starts throwaway servers rather than use a user's.
 */
export const SERVICE_ENVS: Readonly<Record<string, undefined>> = Object
  .fromEntries(
    backendFacts(builtinDrivers).secretUrlEnvs.map((name) => [name, undefined]),
  );

/**
 * Runs `fn` with environment variables set (or, for `undefined`, removed),
 * then restores each to what it was.
 *
 * @param vars The variables and their values for the call.
 * @param fn What to run meanwhile.
 */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  fn: () => T | Promise<T>,
): Promise<T> {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(vars)) {
    saved.set(name, Deno.env.get(name));
    if (value == null) Deno.env.delete(name);
    else Deno.env.set(name, value);
  }
  try {
    return await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value == null) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

/**
 * Runs `fn` with the port of a TCP server on 127.0.0.1 that accepts every
 * connection and never answers, for probes that must give up at their
 * timeout; then closes the server and the connections it accepted.
 *
 * @param fn Gets the port.
 */
export async function withSilentServer<T>(
  fn: (port: number) => Promise<T>,
): Promise<T> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) conns.push(conn);
    } catch {
      // Listener closed.
    }
  })();
  try {
    return await fn(port);
  } finally {
    listener.close();
    await accepting;
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Closed by the client.
      }
    }
  }
}

/**
 * Asserts that `promise` rejects with an `Error` within `ms` milliseconds on
 * a quiet machine (allowing {@link LOAD_ALLOWANCE} times as much, so that a busy
 * machine does not fail it while a hang still does, at that bound), and
 * returns the error.
 */
export async function rejectsWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<Error> {
  const limit = ms * LOAD_ALLOWANCE;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), limit);
  });
  try {
    const error = await Promise.race([
      promise.then(
        () => assert.fail("expected a rejection"),
        (error: unknown) => error,
      ),
      hung,
    ]);
    const elapsed = performance.now() - started;
    assert.notEqual(error, "hung", `no rejection within ${limit} ms`);
    assert.ok(
      elapsed < limit,
      `took ${elapsed.toFixed(0)} ms, limit ${limit} ms`,
    );
    assert.ok(error instanceof Error);
    return error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `fn` with an ioredis client connected to `url`, then disconnects it.
 *
 * @param url A `redis://` URL.
 * @param fn Gets the client.
 */
export async function withRedis<T>(
  url: string,
  fn: (redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * Makes state on `manager`'s throwaway server that a crash will not take:
 * makes it, crashes the server, and checks it came back, up to `attempts`
 * times.  A test of what a crash does to messages needs its queues to exist
 * after the crash: RabbitMQ 3.10 keeps queue declarations in Mnesia, whose
 * log reaches the disk a moment after the declaration returns, and a
 * durable queue declared just before a SIGKILL can be gone after the
 * restart, confirmed messages and all (seen under load).  What came back
 * from one crash is on disk.
 *
 * @param manager The manager that started the server.
 * @param def The server's kind.
 * @param make Makes the state (e.g. declares the queues).
 * @param present Whether the state is there after the restart (and clears
 *   whatever `make` left that the test must not see).
 * @param attempts Crashes to try before failing the test.
 * @returns The server after the last restart.
 */
export async function outliveCrash(
  manager: ServiceManager,
  def: ServiceDefinition,
  make: (url: string) => Promise<void>,
  present: (url: string) => Promise<boolean>,
  attempts = 5,
): Promise<AcquiredService> {
  for (let attempt = 1;; attempt++) {
    await make((await manager.acquire(def)).url);
    await manager.crash(def);
    const server = await manager.acquire(def);
    if (await present(server.url)) return server;
    assert.ok(
      attempt < attempts,
      `${def.name}: the state made before a crash was gone after the ` +
        `restart in ${attempt} crashes in a row`,
    );
  }
}

/** Whether a queue exists (a missing one closes the channel it is asked on). */
export async function queueExists(
  connection: ChannelModel,
  name: string,
): Promise<boolean> {
  const channel = await connection.createChannel();
  channel.on("error", () => {});
  try {
    await channel.checkQueue(name);
    return true;
  } catch (error) {
    assert.equal((error as { code?: number }).code, 404);
    return false;
  } finally {
    await channel.close().catch(() => {});
  }
}

/**
 * Throwaway servers shared by a file's tests, one after another: a test of
 * a server's queue takes the server's manager ({@link SharedServers.manager})
 * instead of a manager of its own, so that the server starts once per test
 * process rather than once per test (a RabbitMQ starts in seconds of CPU),
 * as the bench itself shares it between the configurations of a suite; the
 * last test of each server stops it ({@link SharedServers.release}).  A test
 * registered here but never run (`deno test --filter`, an uncaught error)
 * leaves its server to the process's `unload`, which kills it.
 */
export class SharedServers {
  readonly #managers = new Map<ServiceDefinition | undefined, ServiceManager>();
  readonly #left = new Map<ServiceDefinition | undefined, number>();
  #unloading = false;

  /**
   * Counts a test that will run here and needs `def`'s server (none for
   * `undefined`): call it as the test is registered, not for a test that is
   * ignored.
   */
  expect(def: ServiceDefinition | undefined): void {
    this.#left.set(def, (this.#left.get(def) ?? 0) + 1);
    if (!this.#unloading) {
      this.#unloading = true;
      globalThis.addEventListener("unload", () => this.#kill());
    }
  }

  /** The manager of `def`'s shared server, for a test counted by {@link expect}. */
  manager(def: ServiceDefinition | undefined): ServiceManager {
    let manager = this.#managers.get(def);
    if (manager == null) {
      manager = new ServiceManager();
      this.#managers.set(def, manager);
    }
    return manager;
  }

  /**
   * Ends a test of `def`: after the last test counted, stops its server.
   *
   * @returns The pids of the servers kept for the tests still to come
   *   (none after the last), which the test's own check of what outlives
   *   it leaves to the test that stops them.
   */
  async release(def: ServiceDefinition | undefined): Promise<number[]> {
    const left = (this.#left.get(def) ?? 1) - 1;
    this.#left.set(def, left);
    const manager = this.#managers.get(def);
    if (manager == null) return [];
    if (left > 0) return manager.startedPids();
    this.#managers.delete(def);
    await manager.stopAll();
    return [];
  }

  /** Kills what the tests left running, at the process's end. */
  #kill(): void {
    for (const manager of this.#managers.values()) {
      for (const pid of manager.startedPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      for (const dir of manager.tempDirs()) {
        try {
          Deno.removeSync(dir, { recursive: true });
        } catch {
          // Removed already.
        }
      }
    }
  }
}
