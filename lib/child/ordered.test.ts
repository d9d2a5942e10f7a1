import assert from "node:assert/strict";
import { Create, Delete, Note, Tombstone, Update } from "@fedify/vocab";
import {
  InProcessMessageQueue,
  type MessageQueue,
  type MessageQueueEnqueueOptions,
  type MessageQueueListenOptions,
} from "@fedify/fedify";
import { serveInbox } from "../../fake_inbox/inbox_server.ts";
import { waitFor } from "../testing/queues.ts";
import {
  createSenderFederation,
  generateSenderKeys,
  makeRecipients,
  SENDER,
} from "./federation.ts";
import { makeStepActivity, noteId } from "./ordered.ts";

Deno.test("the cud workload: Create, Update, Delete of one note, then the next note", async () => {
  const actor = new URL("http://s.test/users/sender");
  const audience = { inboxOrigin: "http://i.test", recipients: 2 };
  const made = Array.from(
    { length: 6 },
    (_, i) => makeStepActivity("http://s.test", actor, "r1", i, audience),
  );
  const kinds = [Create, Update, Delete, Create, Update, Delete];
  for (const [i, activity] of made.entries()) {
    assert.ok(activity instanceof kinds[i], `activity ${i}`);
    assert.equal(activity.id?.href, `http://s.test/activities/r1/${i}`);
    const object = await activity.getObject();
    assert.equal(
      object?.id?.href,
      noteId("http://s.test", "r1", i < 3 ? 0 : 1).href,
    );
    assert.ok(object instanceof (i % 3 === 2 ? Tombstone : Note));
  }
});

/** Counts how Fedify enqueues, and with which ordering keys. */
class CountingQueue implements MessageQueue {
  readonly inner = new InProcessMessageQueue();
  readonly enqueued: (string | undefined)[] = [];
  readonly batches: number[] = [];

  enqueue(message: unknown, options?: MessageQueueEnqueueOptions) {
    this.enqueued.push(options?.orderingKey);
    return this.inner.enqueue(message, options);
  }

  enqueueMany(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ) {
    this.batches.push(messages.length);
    return this.inner.enqueueMany(messages, options);
  }

  listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ) {
    return this.inner.listen(handler, options);
  }
}

for (const key of [undefined, "note"] as const) {
  Deno.test({
    name: `Fedify 2.3.6 ${
      key == null
        ? "expands a fanout with one enqueueMany without a key"
        : "skips enqueueMany with a key, keying each outbox message by origin"
    }`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const inbox = await serveInbox({ runId: "f1", total: 1, recipients: 6 });
      const inboxOrigin = `http://127.0.0.1:${inbox.port}`;
      const queue = new CountingQueue();
      const federation = createSenderFederation({
        queue,
        keys: await generateSenderKeys(2048),
      });
      const controller = new AbortController();
      const consuming = federation.startQueue(undefined, {
        signal: controller.signal,
      });
      try {
        const origin = "http://127.0.0.1:1";
        const ctx = federation.createContext(new URL(origin), undefined);
        const actor = ctx.getActorUri(SENDER);
        const audience = { inboxOrigin, recipients: 6 };
        await ctx.sendActivity(
          { identifier: SENDER },
          makeRecipients(audience),
          makeStepActivity(origin, actor, "f1", 0, audience),
          { fanout: "force", ...(key == null ? {} : { orderingKey: key }) },
        );
        await waitFor(
          () => inbox.ledger.stats().delivered === 6,
          20_000,
          "six deliveries",
        );
        if (key == null) {
          assert.deepEqual(queue.batches, [6]);
          assert.deepEqual(queue.enqueued, [undefined]);
        } else {
          assert.deepEqual(queue.batches, []);
          assert.deepEqual(queue.enqueued, [
            key,
            ...Array(6).fill(`${key}\n${inboxOrigin}`),
          ]);
        }
      } finally {
        controller.abort();
        await consuming;
        await inbox.shutdown();
      }
    },
  });
}
