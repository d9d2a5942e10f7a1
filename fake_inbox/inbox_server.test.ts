import assert from "node:assert/strict";
import { activityId } from "./ledger.ts";
import type { InboxArrivals, InboxStats } from "./protocol.ts";
import { serveInbox } from "./inbox_server.ts";

Deno.test("fake inbox answers 202 and accounts over real HTTP", async () => {
  const inbox = await serveInbox({ runId: "t1", total: 3, recipients: 2 });
  const origin = `http://127.0.0.1:${inbox.port}`;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(origin + path, {
      method: "POST",
      headers: { "content-type": "application/activity+json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    await response.body?.cancel();
    return response.status;
  };
  try {
    const id = (i: number) => activityId("http://sender.test", "t1", i).href;
    for (let i = 0; i < 3; i++) {
      for (let n = 0; n < 2; n++) {
        if (i === 2 && n === 1) continue; // one missing
        assert.equal(await post(`/users/${n}/inbox`, { id: id(i) }), 202);
      }
    }
    assert.equal(await post("/users/0/inbox", { id: id(0) }), 202); // duplicate
    assert.equal(await post("/users/9/inbox", { id: id(0) }), 202); // bad recipient
    assert.equal(await post("/users/0/inbox", "{not json"), 202); // bad body
    const stats: InboxStats = await (await fetch(`${origin}/_bench/stats`))
      .json();
    assert.equal(stats.expected, 6);
    assert.equal(stats.delivered, 5);
    assert.equal(stats.missing, 1);
    assert.equal(stats.duplicates, 1);
    assert.equal(stats.unexpected, 2);
    assert.equal(stats.rejections["bad-recipient"], 1);
    assert.equal(stats.rejections["bad-body"], 1);
    assert.ok(stats.firstAt! > Date.now() - 60_000);
    assert.ok(stats.lastAt! >= stats.firstAt!);
    const arrivals: InboxArrivals =
      await (await fetch(`${origin}/_bench/arrivals`)).json();
    assert.equal(arrivals.firstArrival.length, 6);
    assert.equal(arrivals.firstArrival[5], null);
    assert.deepEqual(arrivals.counts, [2, 1, 1, 1, 1, 0]);
  } finally {
    await inbox.shutdown();
  }
});
