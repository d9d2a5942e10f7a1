/**
 * Stopping a queue's listener leaves no promise to reject with nobody
 * waiting for it (issue 34): every built-in driver with a queue, and every
 * one added later, is stopped at the moments that matter, many times, the
 * way the bench's worker and sender stop theirs (`StopGuard.stop()`: abort,
 * wait for the listener and its handlers, close), and the test fails on any
 * unhandled rejection, naming the driver, the moment and the delay.
 *
 * The moments:
 *
 * - **poll**: right after `listen()` is called, while its first poll or
 *   subscription is in flight;
 * - **held poll** (PostgreSQL only): while the listener's first poll is
 *   certainly in flight, its `DELETE` waiting on a table lock another
 *   connection holds.  `PostgresMessageQueue` 1.8.7 cancels that query on
 *   abort, and its poll, which nobody awaits, rejected with 57014: the
 *   rejection of issue 34;
 * - **enqueue**: right after a message is enqueued to a listening queue,
 *   while the notification and the poll it starts are in flight;
 * - **handler**: while a handler runs, which then enqueues another message,
 *   as Fedify's fanout does, before it returns.
 *
 * Each moment is tried with the abort (for "handler", the handler's
 * release) at once and after several short delays, so that it lands at
 * different points of the work in flight.  Each trial gets a fresh queue
 * from `prepare()`, so that nothing one trial left (a Redis lock key, a
 * message) slows the next.  One test per server, so that each stays short.
 */
import assert from "node:assert/strict";
import type { Driver, Json } from "./driver.ts";
import { builtinDrivers } from "./mod.ts";
import { FedifySource } from "./packages.ts";
import {
  connect as connectPostgres,
  type PostgresConfig,
} from "./postgres/postgres.ts";
import { driverAvailability } from "../lib/run/configurations.ts";
import { ServiceManager } from "../lib/services/mod.ts";
import type { ServiceDefinition } from "../lib/services/service_types.ts";
import { StopGuard } from "../lib/system/stop_guard.ts";
import { guardListeners } from "../lib/queue/guarded_queue.ts";
import { errorMessage } from "../lib/results/error_message.ts";
import { waitFor } from "../lib/testing/mod.ts";

/** When, after the moment, the abort (or the handler's release) comes. */
type Delay = "at once" | "next turn" | number;

/**
 * The delays every moment is tried with, each landing elsewhere in the
 * work in flight.  A driver out of the default suite (an ablation, a
 * persistence mode, a stand-in kept for comparison: its base driver's
 * queue with one change) is tried with one delay per moment, a different
 * one for each moment and driver, so that the test stays short.
 */
const DELAYS: readonly Delay[] = ["at once", "next turn", 2, 10];

/**
 * The delays `driver`, the `nth` driver of its test, is tried with at its
 * `moment`th moment; see {@link DELAYS}.
 */
function delaysFor(
  driver: Driver,
  nth: number,
  moment: number,
): readonly Delay[] {
  if (driver.suite !== "named") return DELAYS;
  return [DELAYS[(nth + moment) % DELAYS.length]];
}

/** A moment to stop at; see the module documentation. */
type Moment = "poll" | "held poll" | "enqueue" | "handler";

/** Waits out a {@link Delay}: nothing, one macrotask, or milliseconds. */
async function pause(delay: Delay): Promise<void> {
  if (delay === "at once") return;
  await new Promise((resolve) =>
    setTimeout(resolve, delay === "next turn" ? 0 : delay)
  );
}

/**
 * One unhandled rejection (or a handler's work cut off by the close) and
 * the trial it came in.
 */
interface Unheard {
  readonly trial: string;
  readonly reason: unknown;
}

/**
 * Holds a queue's first poll in flight: makes the condition true and
 * returns what ends it.  Only where a lock on the server can hold it.
 */
type Hold = (config: Json) => Promise<
  {
    waiting(): Promise<boolean>;
    /** Ends the hold; again, does nothing. */
    release(): Promise<void>;
  }
>;

/**
 * PostgreSQL: another connection locks the queue table, so that the
 * listener's `DELETE` waits on the lock; `waiting()` says when it does.
 */
const holdPostgres: Hold = async (config) => {
  const { url, table } = config as PostgresConfig;
  const sql = connectPostgres(url);
  const reserved = await sql.reserve();
  await reserved`BEGIN`;
  await reserved`LOCK TABLE ${reserved(table)} IN ACCESS EXCLUSIVE MODE`;
  let released = false;
  return {
    async waiting() {
      // 1.8.7's first poll; 2.x's listen() first makes its index and
      // columns, which wait on the lock too.
      const [{ count }] = await sql<{ count: number }[]>`
        SELECT count(*)::int AS count FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query ILIKE ${`%${table}%`}
          AND query NOT ILIKE '%LOCK TABLE%'
      `;
      return count > 0;
    },
    async release() {
      if (released) return;
      released = true;
      await reserved`COMMIT`;
      reserved.release();
      await sql.end();
    },
  };
};

/**
 * How long, at most, a hold outlasts the abort: time for a cancel to reach
 * the server, not a bound on anything the test asserts.
 */
const HOLD_AFTER_ABORT_MS = 200;

/** The servers whose lock can hold a poll, by service name. */
const HOLDS: Readonly<Record<string, Hold>> = { postgres: holdPostgres };

/**
 * Runs one trial: a fresh queue, a listener, the moment, the abort after
 * `delay`, and the stop as the bench's processes make it.  Returns what
 * went wrong that is not an unhandled rejection: a handler's enqueue that
 * failed because the queue was closed under it.
 */
async function trial(
  driver: Driver,
  config: Json,
  moment: Moment,
  delay: Delay,
): Promise<string[]> {
  const hold = moment === "held poll"
    ? await HOLDS[driver.service!.name](config)
    : undefined;
  const opened = await driver.open!(config);
  const guard = new StopGuard(driver.name);
  const queue = guardListeners(opened.queue, guard);
  const controller = new AbortController();
  const failures: { step: string; error: unknown }[] = [];
  let entered = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  // The message to hold is there before the listener starts, so that a
  // queue that polls (MySQL's every second) hands it over at its first
  // poll; one that only hears of messages (Redis 1.8.7's publish, missed
  // before its subscription is up) is nudged by more until it does.
  if (moment === "handler") await queue.enqueue({ hold: true });
  const listening = queue.listen(async (message) => {
    if (!message?.hold) return;
    entered = true;
    await released;
    // As a fanout does.  A failure is the test's to judge (see below), not
    // Deno KV's to print as an exception in its handler.
    await queue.enqueue({ after: true }).catch((error) => {
      failures.push({ step: guard.step, error });
    });
  }, { signal: controller.signal });
  try {
    if (moment === "held poll") {
      await waitFor(
        () => hold!.waiting(),
        5_000,
        "the poll to wait on the lock",
      );
    } else if (moment === "enqueue") {
      await queue.enqueue({ plain: true });
    } else if (moment === "handler") {
      let nudged = Date.now();
      await waitFor(
        async () => {
          if (entered) return true;
          if (Date.now() - nudged > 100) {
            nudged = Date.now();
            await queue.enqueue({ plain: true });
          }
          return false;
        },
        5_000,
        "the handler to start",
      );
    }
    if (moment !== "handler") await pause(delay);
    controller.abort();
    if (moment === "handler") {
      await pause(delay);
      release();
    }
    if (hold != null) {
      // A queue that cancels its query on abort (1.8.7) ends the wait at
      // once; one that lets it run (2.x) waits for the lock, so the hold
      // ends after a bounded look, not as soon as the abort is given, which
      // could let the query through before its cancel arrives.
      const deadline = Date.now() + HOLD_AFTER_ABORT_MS;
      while (Date.now() < deadline && await hold.waiting()) await pause(10);
      await hold.release();
    }
    await guard.stop(listening, () => opened.close());
  } finally {
    controller.abort();
    release();
    await hold?.release();
  }
  // The handler's enqueue never fails: a queue whose package closes its
  // connection on the listener's abort (Deno KV's, AMQP's) is given the
  // abort only once its running handlers have settled.
  return failures
    .map(({ step, error }) =>
      `the handler's enqueue failed while ${step}: ${errorMessage(error)}`
    );
}

/**
 * Drivers whose queue, on the Fedify source tree, stops consuming after its
 * first message whatever the stop does: `amqp-defaults` (2.x's
 * `nativeRetrial: false` acknowledges each delivery twice, RabbitMQ closes
 * the channel, and the next acknowledgement rejects unheard: Finding 1,
 * shown by its own test in `drivers.test.ts`).
 */
const BROKEN_ON_SOURCE: ReadonlySet<string> = new Set(["amqp-defaults"]);

/** Groups the drivers with a queue by the server they need. */
function byService(drivers: readonly Driver[]): Map<string, Driver[]> {
  const onSource = FedifySource.fromEnv() != null;
  const groups = new Map<string, Driver[]>();
  for (const driver of drivers) {
    if (driver.prepare == null || driver.open == null) continue;
    if (onSource && BROKEN_ON_SOURCE.has(driver.name)) continue;
    const key = driver.service?.name ?? "no server";
    groups.set(key, [...groups.get(key) ?? [], driver]);
  }
  return groups;
}

for (const [server, drivers] of byService(builtinDrivers)) {
  const service: ServiceDefinition | undefined = drivers[0].service;
  const unavailable = await Promise.all(
    drivers.map((d) => driverAvailability(d, new ServiceManager())),
  );
  const names = drivers.map((d) => d.name).join(", ");
  Deno.test({
    name: `${server}: stopping a listener at any moment leaves no ` +
      `rejection unheard (${names})`,
    ignore: unavailable.some((a) => !a.available),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const services = new ServiceManager();
      const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
      const unheard: Unheard[] = [];
      let current = "before the first trial";
      const listener = (event: PromiseRejectionEvent) => {
        event.preventDefault();
        unheard.push({ trial: current, reason: event.reason });
      };
      globalThis.addEventListener("unhandledrejection", listener);
      try {
        const serviceUrl = service == null
          ? undefined
          : (await services.acquire(service)).url;
        const moments: Moment[] = [
          "poll",
          ...(HOLDS[server] == null ? [] : ["held poll" as const]),
          "enqueue",
          "handler",
        ];
        let runs = 0;
        for (const [nth, driver] of drivers.entries()) {
          for (const [m, moment] of moments.entries()) {
            for (const delay of delaysFor(driver, nth, m)) {
              current = `${driver.name}, ${moment}, ${delay}` +
                (typeof delay === "number" ? " ms" : "");
              const prepared = await driver.prepare!({
                runId: `stop${runs++}`,
                tempDir,
                serviceUrl,
              });
              try {
                for (
                  const problem of await trial(
                    driver,
                    prepared.config,
                    moment,
                    delay,
                  )
                ) {
                  unheard.push({ trial: current, reason: problem });
                }
              } finally {
                await prepared.cleanup();
              }
            }
          }
        }
        // A rejection can come a moment after the stop that caused it.
        current = "after the last trial";
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        globalThis.removeEventListener("unhandledrejection", listener);
        await services.stopAll();
        await Deno.remove(tempDir, { recursive: true });
      }
      assert.deepEqual(
        unheard.map(({ trial, reason }) =>
          `${trial}: ${errorMessage(reason)}` +
          ((reason as { code?: unknown })?.code == null
            ? ""
            : ` (${(reason as { code?: unknown }).code})`)
        ),
        [],
        "rejections nobody waited for, and work the close cut off",
      );
    },
  });
}
