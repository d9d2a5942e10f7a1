/**
 * `DenoKvMessageQueue` on real Deno KV databases, each a SQLite file in a
 * temporary folder that the test removes.  The cross-process tests run a
 * child Deno process on the same file.  Two tests wait for Deno KV's own
 * poll (about a minute) and run only with `SLOW_TESTS` set: messages that
 * another process enqueues while this one listens, and messages left
 * unacknowledged by a stopped listener.
 */
import assert from "node:assert/strict";
import { DenoKvMessageQueue } from "./denokv.ts";

/** The prefix the queue uses when given none (white-box tests only). */
const DEFAULT_PREFIX = ["fedify_queue_bench_mq"];

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms; fails after `ms`. */
async function waitFor(
  condition: () => boolean,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** What a test gets: the queue, a second handle on its database, its path. */
interface Fixture {
  readonly queue: DenoKvMessageQueue;
  /** Another `Deno.Kv` on the same file, for looking behind the queue. */
  readonly kv: Deno.Kv;
  readonly path: string;
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
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  const queue = new DenoKvMessageQueue(await Deno.openKv(path), options);
  const kv = await Deno.openKv(path);
  try {
    await fn({ queue, kv, path });
  } finally {
    await queue[Symbol.asyncDispose]();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A listener that records what it handles. */
interface Recorder {
  // deno-lint-ignore no-explicit-any
  readonly got: any[];
  /** The listener's promise. */
  readonly done: Promise<void>;
  /** Aborts the listener and waits for it to end. */
  stop(): Promise<void>;
}

function record(
  queue: DenoKvMessageQueue,
  // deno-lint-ignore no-explicit-any
  onMessage?: (message: any) => Promise<void> | void,
): Recorder {
  // deno-lint-ignore no-explicit-any
  const got: any[] = [];
  const controller = new AbortController();
  const done = queue.listen(async (message) => {
    await onMessage?.(message);
    got.push(message);
  }, { signal: controller.signal });
  return {
    got,
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

Deno.test("DenoKvMessageQueue: enqueue() and listen() round trip", async () => {
  await withQueue(async ({ queue, kv, path }) => {
    assert.equal(queue.nativeRetrial, true);
    const listener = record(queue);
    const message = {
      text: "hello",
      when: new Date(0),
      nested: { list: [1, 2n, null], bytes: new Uint8Array([1, 2]) },
    };
    await queue.enqueue(message);
    await queue.enqueue("plain string");
    await waitFor(() => listener.got.length >= 2, 5000, "two messages");
    assert.deepEqual(
      listener.got.find((m) => typeof m === "object"),
      message,
    );
    assert.ok(listener.got.includes("plain string"));

    // Values that are not this queue's are acknowledged and dropped: raw
    // Deno KV messages, and envelopes of a queue with another prefix.
    await kv.enqueue({ raw: true });
    await kv.enqueue("raw string");
    const other = new DenoKvMessageQueue(await Deno.openKv(path), {
      prefix: ["another"],
    });
    await other.enqueue("someone else's");
    await other[Symbol.asyncDispose]();
    await queue.enqueue("last");
    await waitFor(() => listener.got.includes("last"), 5000, "the last one");
    await sleep(200);
    assert.equal(listener.got.length, 3);
    await listener.stop();
  });
});

Deno.test("DenoKvMessageQueue: enqueueMany() of 2,500 messages, each once", async () => {
  await withQueue(async ({ queue }) => {
    const total = 2500;
    const seen = new Map<number, number>();
    const listener = record(queue, (m: { i: number }) => {
      seen.set(m.i, (seen.get(m.i) ?? 0) + 1);
    });
    const messages = Array.from(
      { length: total },
      (_, i) => ({ i, pad: "x".repeat(200) }),
    );
    const started = performance.now();
    await queue.enqueueMany(messages);
    const enqueued = performance.now();
    await waitFor(() => seen.size >= total, 30_000, "all messages");
    const received = performance.now();
    await sleep(300); // Would a duplicate still arrive?
    await listener.stop();
    assert.equal(seen.size, total);
    for (let i = 0; i < total; i++) assert.equal(seen.get(i), 1, `#${i}`);
    console.log(
      `enqueueMany(${total}) took ${(enqueued - started).toFixed(0)} ms; ` +
        `all handled after ${(received - started).toFixed(0)} ms ` +
        `(${(total / ((received - started) / 1000)).toFixed(0)} messages/s)`,
    );
  });
});

Deno.test("DenoKvMessageQueue: enqueueMany() splits by Deno KV's size limit", async () => {
  await withQueue(async ({ queue }) => {
    // 300 messages of 5 KB: about 1.5 MB, more than one atomic operation
    // (800 KiB) can hold.
    const total = 300;
    const seen = new Set<number>();
    const listener = record(queue, (m: { i: number }) => void seen.add(m.i));
    await queue.enqueueMany(
      Array.from({ length: total }, (_, i) => ({ i, pad: "y".repeat(5000) })),
    );
    await waitFor(() => seen.size >= total, 20_000, "all messages");
    assert.equal(listener.got.length, total);

    // A message over 64 KiB fails the whole call before anything is sent.
    await assert.rejects(
      queue.enqueueMany([{ i: -1 }, { i: -2, pad: "z".repeat(70_000) }]),
      RangeError,
    );
    await queue.enqueue({ i: -3 });
    await waitFor(() => seen.has(-3), 5000, "the message after the failure");
    await sleep(200);
    assert.ok(!seen.has(-1));
    await listener.stop();
  });
});

Deno.test("DenoKvMessageQueue: delay is honoured", async () => {
  await withQueue(async ({ queue }) => {
    const arrived = new Map<string, number>();
    const listener = record(queue, (m: string) => {
      arrived.set(m, performance.now());
    });
    const started = performance.now();
    await queue.enqueue("delayed", {
      delay: Temporal.Duration.from({ seconds: 1 }),
    });
    await queue.enqueue("now");
    await waitFor(() => arrived.has("delayed"), 5000, "the delayed message");
    await listener.stop();
    const delayed = arrived.get("delayed")! - started;
    const now = arrived.get("now")! - started;
    console.log(
      `undelayed after ${now.toFixed(0)} ms, delayed (1 s) after ` +
        `${delayed.toFixed(0)} ms`,
    );
    assert.ok(delayed >= 1000, `delayed message arrived after ${delayed} ms`);
    assert.ok(delayed < 3000, `delayed message arrived after ${delayed} ms`);
    assert.ok(now < delayed);
  });
});

Deno.test("DenoKvMessageQueue: orderingKey serializes each key, in order", async () => {
  await withQueue(async ({ queue }) => {
    const perKey = 20;
    const order: Record<string, number[]> = { a: [], b: [] };
    const active: Record<string, number> = { a: 0, b: 0 };
    let maxPerKey = 0;
    let activeAll = 0;
    let maxAll = 0;
    let failedOnce = false;
    const listener = record(queue, async (m: { key: string; i: number }) => {
      // Message a#5 fails once: Deno KV retries it, and a#6 must wait.
      if (m.key === "a" && m.i === 5 && !failedOnce) {
        failedOnce = true;
        throw new Error("failing a#5 once on purpose");
      }
      active[m.key]++;
      activeAll++;
      maxPerKey = Math.max(maxPerKey, active[m.key]);
      maxAll = Math.max(maxAll, activeAll);
      order[m.key].push(m.i);
      await sleep(30);
      active[m.key]--;
      activeAll--;
    });
    const started = performance.now();
    // Half one at a time, half in one enqueueMany(), keys interleaved.
    for (let i = 0; i < perKey / 2; i++) {
      for (const key of ["a", "b"]) {
        await queue.enqueue({ key, i }, { orderingKey: key });
      }
    }
    for (const key of ["a", "b"]) {
      await queue.enqueueMany(
        Array.from(
          { length: perKey / 2 },
          (_, j) => ({ key, i: perKey / 2 + j }),
        ),
        { orderingKey: key },
      );
    }
    await waitFor(
      () => order.a.length >= perKey && order.b.length >= perKey,
      30_000,
      "all ordered messages",
    );
    const elapsed = performance.now() - started;
    await sleep(300);
    await listener.stop();
    const expected = Array.from({ length: perKey }, (_, i) => i);
    assert.deepEqual(order.a, expected);
    assert.deepEqual(order.b, expected);
    assert.ok(failedOnce);
    assert.equal(maxPerKey, 1, "two messages of one key overlapped");
    assert.ok(maxAll > 1, "the two keys never ran side by side");
    console.log(
      `2 keys × ${perKey} messages (30 ms each, one retry) took ` +
        `${elapsed.toFixed(0)} ms`,
    );
  });
});

Deno.test("DenoKvMessageQueue: orderingKey skips a message Deno KV gave up on", async () => {
  await withQueue(async ({ queue, kv }) => {
    await queue.enqueue("first", { orderingKey: "k" });
    // Play Deno KV giving up on the second message: it takes a number and
    // leaves the note that `keysIfUndelivered` would write.
    const tailKey = [...DEFAULT_PREFIX, "tail", "k"];
    const tail = await kv.get<{ epoch: string; next: number }>(tailKey);
    assert.equal(tail.value?.next, 1);
    const { epoch } = tail.value!;
    await kv.atomic()
      .check(tail)
      .set(tailKey, { epoch, next: 2 })
      .set([...DEFAULT_PREFIX, "lost", "k", epoch, 1], "given up")
      .commit();
    await queue.enqueue("third", { orderingKey: "k" });
    const listener = record(queue);
    await waitFor(() => listener.got.length >= 2, 10_000, "two messages");
    await listener.stop();
    assert.deepEqual(listener.got, ["first", "third"]);
    // The key had nothing left, so its records are gone.
    const left = await Array.fromAsync(kv.list({ prefix: DEFAULT_PREFIX }));
    assert.deepEqual(left, []);
  });
});

Deno.test("DenoKvMessageQueue: a handler that throws gets the message again", async () => {
  await withQueue(async ({ queue }) => {
    const attempts: number[] = [];
    const listener = record(queue, () => {
      attempts.push(performance.now());
      if (attempts.length === 1) throw new Error("failing once on purpose");
    });
    await queue.enqueue("retry me");
    await waitFor(() => listener.got.length >= 1, 10_000, "the retry");
    await sleep(300);
    await listener.stop();
    assert.equal(attempts.length, 2);
    assert.deepEqual(listener.got, ["retry me"]);
    console.log(
      `redelivered ${
        (attempts[1] - attempts[0]).toFixed(0)
      } ms after the throw`,
    );
  });
});

Deno.test("DenoKvMessageQueue: listen() resolves after abort", async (t) => {
  await t.step("idle listener; the queue is closed afterwards", async () => {
    await withQueue(async ({ queue }) => {
      const listener = record(queue);
      await sleep(100);
      const started = performance.now();
      await listener.stop();
      assert.ok(performance.now() - started < 1000);
      await assert.rejects(queue.enqueue("too late"), TypeError);
      await assert.rejects(queue.listen(() => {}), TypeError);
    });
  });

  await t.step("waits for running handlers", async () => {
    await withQueue(async ({ queue }) => {
      let finished = false;
      let started = false;
      const listener = record(queue, async () => {
        started = true;
        await sleep(300);
        finished = true;
      });
      await queue.enqueue("slow");
      await waitFor(() => started, 5000, "the handler");
      await listener.stop();
      assert.ok(finished);
      assert.equal(listener.got.length, 1);
    });
  });

  await t.step("an already aborted signal", async () => {
    await withQueue(async ({ queue }) => {
      await queue.listen(() => {}, { signal: AbortSignal.abort() });
    });
  });

  await t.step("a second listen() is refused", async () => {
    await withQueue(async ({ queue }) => {
      const listener = record(queue);
      await assert.rejects(queue.listen(() => {}), TypeError);
      await listener.stop();
    });
  });

  await t.step("disposing stops the listener", async () => {
    await withQueue(async ({ queue }) => {
      const listener = record(queue);
      await queue.enqueue("one");
      await waitFor(() => listener.got.length >= 1, 5000, "a message");
      await queue[Symbol.asyncDispose]();
      await listener.done;
    });
  });
});

/**
 * Stops a listener while Deno KV is still handing it messages, then (with
 * `slow`) checks that a new listener gets every message that was not
 * handled: those handed over after the abort are redelivered by Deno KV
 * about a minute later.
 */
async function stopUnderLoad(
  path: string,
  queue: DenoKvMessageQueue,
  slow: boolean,
) {
  const total = 400;
  const handled = new Set<number>();
  const listener = record(queue, async (m: { i: number }) => {
    await sleep(50);
    handled.add(m.i);
  });
  await queue.enqueueMany(Array.from({ length: total }, (_, i) => ({ i })));
  await waitFor(() => handled.size >= 1, 5000, "a first message");
  await listener.stop();
  const first = new Set(handled);
  assert.ok(first.size < total, "everything was handled before the stop");
  if (!slow) return;
  const again = new DenoKvMessageQueue(await Deno.openKv(path));
  const started = performance.now();
  const second = record(again, (m: { i: number }) => void handled.add(m.i));
  try {
    await waitFor(() => handled.size >= total, 180_000, "every message");
  } finally {
    await second.stop();
  }
  console.log(
    `${first.size} handled before the stop; the other ${total - first.size} ` +
      `after ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

Deno.test("DenoKvMessageQueue: stopping while messages keep coming", async () => {
  await withQueue(({ queue, path }) => stopUnderLoad(path, queue, false));
});

Deno.test({
  name: "DenoKvMessageQueue: nothing is lost across a stop and a restart",
  ignore: !Deno.env.get("SLOW_TESTS"),
  async fn() {
    await withQueue(({ queue, path }) => stopUnderLoad(path, queue, true));
  },
});

/** Runs a child Deno process that enqueues `count` messages into `path`. */
async function enqueueFromChild(
  path: string,
  count: number,
): Promise<void> {
  const module = new URL("./denokv.ts", import.meta.url).href;
  const code = `
    import { DenoKvMessageQueue } from ${JSON.stringify(module)};
    const queue = new DenoKvMessageQueue(
      await Deno.openKv(${JSON.stringify(path)}),
    );
    await queue.enqueueMany(
      Array.from({ length: ${count} }, (_, i) => ({ i, sentAt: Date.now() })),
    );
    await queue[Symbol.asyncDispose]();
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--no-lock",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      code,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(
    output.success,
    `child failed: ${new TextDecoder().decode(output.stderr)}`,
  );
}

// Deno KV's local backend looks at the queue when the database is opened
// and then about once a minute (or when this process enqueues something):
// what matters is that the child's messages are there before the queue's
// Deno.Kv is opened, not before listen() is called.
Deno.test("DenoKvMessageQueue: cross-process, enqueued before opening", async () => {
  await withQueue(
    async ({ queue }) => {
      const started = performance.now();
      const listener = record(queue);
      await waitFor(() => listener.got.length >= 100, 10_000, "100 messages");
      const elapsed = performance.now() - started;
      await listener.stop();
      assert.deepEqual(
        listener.got.map((m) => m.i).sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i),
      );
      console.log(`drained 100 waiting messages in ${elapsed.toFixed(0)} ms`);
    },
    undefined,
    (path) => enqueueFromChild(path, 100),
  );
});

Deno.test("DenoKvMessageQueue: cross-process while listening, with pollInterval", async () => {
  await withQueue(async ({ queue, path }) => {
    const listener = record(queue);
    await sleep(200);
    await enqueueFromChild(path, 100);
    const enqueued = performance.now();
    await waitFor(() => listener.got.length >= 100, 10_000, "100 messages");
    const elapsed = performance.now() - enqueued;
    await listener.stop();
    assert.equal(new Set(listener.got.map((m) => m.i)).size, 100);
    console.log(
      `picked up 100 messages from another process ${elapsed.toFixed(0)} ms ` +
        `after it finished (pollInterval 500 ms)`,
    );
  }, { pollInterval: { milliseconds: 500 } });
});

Deno.test({
  name: "DenoKvMessageQueue: cross-process while listening (Deno KV's poll)",
  ignore: !Deno.env.get("SLOW_TESTS"),
  async fn() {
    await withQueue(async ({ queue, path }) => {
      const listener = record(queue);
      await sleep(200);
      await enqueueFromChild(path, 100);
      const enqueued = performance.now();
      await waitFor(() => listener.got.length >= 100, 90_000, "100 messages");
      const elapsed = performance.now() - enqueued;
      await listener.stop();
      assert.equal(new Set(listener.got.map((m) => m.i)).size, 100);
      console.log(
        `picked up 100 messages from another process ` +
          `${(elapsed / 1000).toFixed(1)} s after it finished`,
      );
    });
  },
});
