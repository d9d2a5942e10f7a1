/**
 * The `@fedify/denokv` stand-in on real Deno KV databases, each a SQLite
 * file in a temporary folder that the test removes.  The cross-process tests
 * run a child Deno process on the same file.  Tests that wait for Deno KV's
 * own poll (about a minute) run only with `SLOW_TESTS` set.
 */
import assert from "node:assert/strict";
import type { MessageQueue } from "@fedify/fedify";
import {
  createSenderFederation,
  generateSenderKeys,
  makeActivity,
  makeRecipients,
  SENDER,
} from "../../lib/child/federation.ts";
import { DenoKvMessageQueue } from "./denokv_standin.ts";
import { sleep } from "../../lib/system/sleep.ts";
import {
  type Recorder,
  recordMessages,
  runDeno,
  waitFor,
} from "../../lib/testing/mod.ts";

/** What a test gets. */
interface Fixture {
  readonly queue: DenoKvMessageQueue;
  /** The `Deno.Kv` the queue owns. */
  readonly queueKv: Deno.Kv;
  /** Another `Deno.Kv` on the same file, for looking behind the queue. */
  readonly kv: Deno.Kv;
  readonly path: string;
  /** How many times the queue called `enqueue()` on its `Deno.Kv`. */
  enqueueCalls(): number;
}

/**
 * Runs `fn` on a fresh queue in a temporary folder, then cleans up.
 * `before` runs on the database's path before the queue opens it.
 */
async function withQueue(
  fn: (fixture: Fixture) => Promise<void>,
  options?: ConstructorParameters<typeof DenoKvMessageQueue>[1],
  before?: (path: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "deno_kv_queue_test_" });
  const path = `${dir}/queue.sqlite3`;
  try {
    await before?.(path);
    const queueKv = await Deno.openKv(path);
    // Count the queue's calls of Deno.Kv.enqueue().
    let calls = 0;
    const enqueue = queueKv.enqueue.bind(queueKv);
    queueKv.enqueue = (...args) => {
      calls++;
      return enqueue(...args);
    };
    const queue = new DenoKvMessageQueue(queueKv, options);
    const kv = await Deno.openKv(path);
    try {
      await fn({ queue, queueKv, kv, path, enqueueCalls: () => calls });
    } finally {
      queue[Symbol.dispose]();
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Records what `queue` handles, each message once its handler returned. */
function record(
  queue: DenoKvMessageQueue,
  // deno-lint-ignore no-explicit-any
  onMessage?: (message: any) => Promise<void> | void,
): Recorder {
  return recordMessages(queue, onMessage, { afterHandler: true });
}

/**
 * Waits until no ordering-key lock is left under `prefix`.  A handler's
 * lock is released after the handler returned (and was recorded), and
 * stopping the listener closes the database without waiting for that
 * release, as upstream's does: a test that stops right after the last
 * message would race the release, and lose under load.
 */
function locksReleased(
  kv: Deno.Kv,
  prefix: Deno.KvKey = ["__fedify_ordering_lock__"],
): Promise<void> {
  return waitFor(
    async () => (await Array.fromAsync(kv.list({ prefix }))).length === 0,
    30_000,
    `every lock under ${JSON.stringify(prefix)} to be released`,
  );
}

Deno.test("DenoKvMessageQueue: enqueue() and listen() round trip", async () => {
  await withQueue(async ({ queue, enqueueCalls }) => {
    assert.equal(queue.nativeRetrial, true);
    const listener = record(queue);
    const message = {
      text: "hello",
      when: new Date(0),
      nested: { list: [1, 2n, null], bytes: new Uint8Array([1, 2]) },
    };
    await queue.enqueue(message);
    await queue.enqueue("plain string");
    await waitFor(() => listener.got.length >= 2, 30_000, "two messages");
    assert.deepEqual(
      listener.got.find((m) => typeof m === "object"),
      message,
    );
    assert.ok(listener.got.includes("plain string"));
    assert.equal(enqueueCalls(), 2);
    await listener.stop();
  });
});

Deno.test("DenoKvMessageQueue: like upstream, no enqueueMany() and no getDepth()", () => {
  const queue: MessageQueue = new DenoKvMessageQueue({} as Deno.Kv);
  assert.equal(queue.enqueueMany, undefined);
  assert.equal(queue.getDepth, undefined);
  assert.equal("enqueueMany" in DenoKvMessageQueue.prototype, false);
});

Deno.test({
  name:
    "DenoKvMessageQueue: a Fedify fanout to N inboxes makes N kv.enqueue() calls",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await withQueue(async ({ queue, enqueueCalls }) => {
      const recipients = 6;
      let posts = 0;
      const inbox = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        async (request) => {
          await request.arrayBuffer();
          posts++;
          return new Response(null, { status: 202 });
        },
      );
      const controller = new AbortController();
      try {
        const inboxOrigin = `http://127.0.0.1:${inbox.addr.port}`;
        const federation = createSenderFederation({
          queue,
          keys: await generateSenderKeys(2048),
        });
        const origin = "http://127.0.0.1:1";
        const ctx = federation.createContext(new URL(origin), undefined);
        const actor = ctx.getActorUri(SENDER);
        const audience = { inboxOrigin, recipients };
        await ctx.sendActivity(
          { identifier: SENDER },
          makeRecipients(audience),
          makeActivity(origin, actor, "fanout-test", 0, audience),
          { fanout: "force" },
        );
        assert.equal(enqueueCalls(), 1, "the fanout message");
        const consuming = federation.startQueue(undefined, {
          signal: controller.signal,
        });
        await waitFor(() => posts >= recipients, 20_000, "every delivery");
        // The fanout expanded into one kv.enqueue() per inbox.
        assert.equal(enqueueCalls(), 1 + recipients);
        controller.abort();
        await consuming;
        assert.equal(posts, recipients);
      } finally {
        controller.abort();
        await inbox.shutdown();
      }
    });
  },
});

Deno.test("DenoKvMessageQueue: delay is honoured; a negative one is none", async () => {
  await withQueue(async ({ queue }) => {
    const arrived = new Map<string, number>();
    const listener = record(queue, (m: string) => {
      arrived.set(m, performance.now());
    });
    const started = performance.now();
    await queue.enqueue("delayed", {
      delay: Temporal.Duration.from({ seconds: 1 }),
    });
    await queue.enqueue("negative", {
      delay: Temporal.Duration.from({ seconds: -5 }),
    });
    await queue.enqueue("now");
    const enqueued = performance.now() - started;
    await waitFor(() => arrived.size >= 3, 30_000, "the three messages");
    await listener.stop();
    // Only lower bounds: a busy machine makes anything late, never early.
    const delayed = arrived.get("delayed")! - started;
    assert.ok(delayed >= 1000, `delayed message arrived after ${delayed} ms`);
    // The undelayed ones did not wait for the delayed one's second: they
    // were ready first, so they come first, as long as the machine was not
    // so slow that enqueueing them took most of that second already.
    if (enqueued < 500) {
      assert.ok(arrived.get("now")! - started < delayed);
      assert.ok(arrived.get("negative")! - started < delayed);
    } else {
      console.log(`enqueueing took ${enqueued.toFixed(0)} ms: order unchecked`);
    }
  });
});

Deno.test("DenoKvMessageQueue: orderingKey runs one message of a key at a time", async () => {
  const prefix = ["test_lock"];
  await withQueue(async ({ queue, kv }) => {
    const perKey = 5;
    const active: Record<string, number> = { a: 0, b: 0 };
    let maxPerKey = 0;
    let activeAll = 0;
    let maxAll = 0;
    let lockSeen = false;
    const firstStarted = new Set<string>();
    const listener = record(queue, async (m: { key: string; i: number }) => {
      active[m.key]++;
      activeAll++;
      maxPerKey = Math.max(maxPerKey, active[m.key]);
      maxAll = Math.max(maxAll, activeAll);
      // The lock lives under the configured prefix while the handler runs.
      const lock = await kv.get([...prefix, m.key]);
      lockSeen ||= lock.value === true;
      if (m.i === 0) {
        // The first of each key waits (bounded, without failing) for the
        // other key's first: side by side if the queue lets them be, on a
        // busy machine as on a quiet one.
        firstStarted.add(m.key);
        const deadline = Date.now() + 30_000;
        while (firstStarted.size < 2 && Date.now() < deadline) await sleep(10);
      }
      await sleep(50);
      active[m.key]--;
      activeAll--;
    });
    for (let i = 0; i < perKey; i++) {
      for (const key of ["a", "b"]) {
        await queue.enqueue({ key, i }, { orderingKey: key });
      }
    }
    await waitFor(
      () => listener.got.length >= 2 * perKey,
      30_000,
      "all messages",
    );
    // Every lock was released (before the stop, which would race it).
    await locksReleased(kv, prefix);
    await listener.stop();
    assert.equal(maxPerKey, 1, "two messages of one key overlapped");
    assert.ok(lockSeen, "no lock under the configured prefix");
    assert.ok(maxAll > 1, "different keys never ran side by side");
  }, { orderingLockPrefix: prefix });
});

Deno.test("DenoKvMessageQueue: messages of one ordering key never overlap", async () => {
  await withQueue(async ({ queue, kv }) => {
    const total = 6;
    let active = 0;
    let maxActive = 0;
    const listener = record(queue, async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(50);
      active--;
    });
    for (let i = 0; i < total; i++) {
      await queue.enqueue({ i }, { orderingKey: "k" });
    }
    await waitFor(() => listener.got.length >= total, 30_000, "all messages");
    // The default lock prefix, released afterwards.
    await locksReleased(kv);
    await listener.stop();
    assert.equal(maxActive, 1);
  });
});

Deno.test("DenoKvMessageQueue: a handler that throws gets the message again", async () => {
  await withQueue(async ({ queue, kv }) => {
    let attempts = 0;
    const listener = record(queue, () => {
      attempts++;
      if (attempts === 1) throw new Error("failing once on purpose");
    });
    // With an ordering key: the lock must be released for the retry.
    await queue.enqueue("retry me", { orderingKey: "r" });
    await waitFor(() => listener.got.length >= 1, 30_000, "the retry");
    // The lock was released after the retry too (and after the failure,
    // or the retry could not have taken it).
    await locksReleased(kv);
    await listener.stop();
    assert.equal(attempts, 2);
    assert.deepEqual(listener.got, ["retry me"]);
  });
});

Deno.test("DenoKvMessageQueue: Deno KV acknowledges after the handler settles", async () => {
  await withQueue(async ({ queue, path }) => {
    // The handler never finishes before the abort, which closes the
    // Deno.Kv: the message stays unacknowledged, and a new listener on
    // the file gets it.
    let started = false;
    const listener = record(queue, async () => {
      started = true;
      await new Promise(() => {});
    });
    await queue.enqueue("unfinished");
    await waitFor(() => started, 30_000, "the handler");
    await listener.stop();
    const again = new DenoKvMessageQueue(await Deno.openKv(path));
    const second = record(again);
    try {
      // Deno KV's cleanup (run when a handle opens the file) puts it back
      // once its deadline (ready time + 5 s) has passed; an enqueue of this
      // process makes its listener look at once.  Knock until it is back,
      // rather than sleep a guess of the deadline.
      let knocks = 0;
      await waitFor(
        async () => {
          if (second.got.includes("unfinished")) return true;
          await sleep(250);
          const third = await Deno.openKv(path);
          third.close();
          await again.enqueue(`wake up ${knocks++}`);
          return false;
        },
        60_000,
        "the redelivery",
      );
      assert.deepEqual(
        second.got.filter((m) => m === "unfinished"),
        ["unfinished"],
      );
    } finally {
      await second.stop();
    }
  });
});

Deno.test("DenoKvMessageQueue: aborting closes the Deno.Kv", async (t) => {
  await t.step("idle listener", async () => {
    await withQueue(async ({ queue }) => {
      const listener = record(queue);
      await sleep(100);
      // Stopping ends the listener (bounded, so a hang fails, not stalls).
      let stopped = false;
      const stopping = listener.stop().then(() => stopped = true);
      await waitFor(() => stopped, 30_000, "the listener to end");
      await stopping;
      await assert.rejects(queue.enqueue("too late"));
      queue[Symbol.dispose](); // harmless once closed
    });
  });

  await t.step("disposing ends the listener", async () => {
    await withQueue(async ({ queue }) => {
      const listener = record(queue);
      await queue.enqueue("one");
      await waitFor(() => listener.got.length >= 1, 30_000, "a message");
      queue[Symbol.dispose]();
      await listener.done;
    });
  });

  await t.step("running handlers are not waited for", async () => {
    await withQueue(async ({ queue }) => {
      let finished = false;
      let started = false;
      // The handler runs until the test lets it go, after the stop.
      const gate = Promise.withResolvers<void>();
      const listener = record(queue, async () => {
        started = true;
        await gate.promise;
        finished = true;
      });
      await queue.enqueue("slow");
      await waitFor(() => started, 30_000, "the handler");
      await listener.stop();
      assert.equal(finished, false);
      gate.resolve();
      await waitFor(() => finished, 5000, "the handler to return");
    });
  });
});

/** Runs a child Deno process that enqueues `count` messages into `path`. */
async function enqueueFromChild(
  path: string,
  count: number,
): Promise<void> {
  const module = new URL("./denokv_standin.ts", import.meta.url).href;
  const code = `
    import { DenoKvMessageQueue } from ${JSON.stringify(module)};
    const queue = new DenoKvMessageQueue(
      await Deno.openKv(${JSON.stringify(path)}),
    );
    for (let i = 0; i < ${count}; i++) await queue.enqueue({ i });
    queue[Symbol.dispose]();
  `;
  const output = await runDeno([
    "eval",
    "--no-lock",
    "--config",
    new URL("../../deno.json", import.meta.url).pathname,
    code,
  ]);
  assert.equal(output.code, 0, `child failed: ${output.stderr}`);
}

// Deno KV's local backend looks at the queue when the database is opened
// and then about once a minute (or when this process enqueues something):
// messages another process enqueued before the queue's Deno.Kv was opened
// are drained at once.
Deno.test("DenoKvMessageQueue: cross-process, enqueued before opening", async () => {
  await withQueue(
    async ({ queue }) => {
      const listener = record(queue);
      await waitFor(() => listener.got.length >= 100, 30_000, "100 messages");
      await listener.stop();
      assert.deepEqual(
        listener.got.map((m) => m.i).sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i),
      );
    },
    undefined,
    (path) => enqueueFromChild(path, 100),
  );
});

// The cross-process poll, shown without waiting a minute for it: messages
// another process enqueues while a listener runs stay in the file until the
// listener looks again, which an enqueue of the listener's own process makes
// it do at once (as does its poll, about a minute after it last looked).
Deno.test("DenoKvMessageQueue: cross-process while listening waits for a look (Deno KV's poll)", async () => {
  await withQueue(async ({ queue, path }) => {
    const listener = record(queue);
    // The listener looked at the (empty) queue when it started.
    await queue.enqueue("first");
    await waitFor(() => listener.got.length >= 1, 30_000, "the first message");
    await enqueueFromChild(path, 100);
    // They are in the file, and the listener has not seen them: waiting
    // longer could only let its minute-long poll come round.  (A busy
    // machine delays a look; it never brings one forward.)
    // Not even another handle opening the file (which runs Deno KV's
    // cleanup) makes this listener look.
    const behind = await Deno.openKv(path);
    behind.close();
    await sleep(1000);
    assert.deepEqual(listener.got, ["first"], "picked up without a look");
    // One enqueue of its own process, and it drains all of them at once.
    await queue.enqueue("wake up");
    await waitFor(() => listener.got.length >= 102, 30_000, "101 messages");
    await listener.stop();
    const fromChild: { i: number }[] = listener.got.filter((m) =>
      typeof m === "object"
    );
    assert.deepEqual(
      fromChild.map((m) => m.i).sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });
});

// Why the `deno-kv` driver says `delivery: "at-least-once"`: a message
// handed out more than 5 s after it became ready (as every message another
// process enqueued is, at Deno KV's poll) already has a running deadline in
// the past, and a cleanup (here: another handle opening the file) puts it
// back while its handler runs; the listener gets it again at its next poll.
Deno.test({
  name:
    "DenoKvMessageQueue: Deno KV itself can deliver a handled message twice",
  ignore: !Deno.env.get("SLOW_TESTS"),
  async fn() {
    await withQueue(
      async ({ queue, path }) => {
        const counts = new Map<number, number>();
        const listener = record(queue, async (m: { i: number }) => {
          counts.set(m.i, (counts.get(m.i) ?? 0) + 1);
          await sleep(2000);
        });
        await waitFor(() => counts.size >= 10, 10_000, "10 messages");
        const other = await Deno.openKv(path); // its cleanup runs on open
        other.close();
        await waitFor(
          () => [...counts.values()].every((n) => n >= 2),
          90_000,
          "the redeliveries",
        );
        await listener.stop();
        console.log(`deliveries per message: ${[...counts.values()]}`);
      },
      undefined,
      async (path) => {
        await enqueueFromChild(path, 10);
        await sleep(5500);
      },
    );
  },
});
