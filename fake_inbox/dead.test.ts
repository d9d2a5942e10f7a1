/**
 * Dead inboxes: the draw (exact, repeatable, never a gone recipient) and
 * the server on its own port that fails and counts every request.
 */
import assert from "node:assert/strict";
import { INSTANT_INBOX } from "../lib/params/mod.ts";
import { DEAD_STATUS, deadRecipients } from "./dead.ts";
import { activityId } from "./ledger.ts";
import type { InboxStats } from "./protocol.ts";
import { serveInbox } from "./inbox_server.ts";

Deno.test("dead recipients: round(rate × recipients), none gone, repeatable", () => {
  const profile = { ...INSTANT_INBOX, deadRate: 0.3, goneRate: 0.2 };
  const dead = deadRecipients(profile, 50);
  assert.equal(dead.length, 15);
  assert.deepEqual(deadRecipients(profile, 50), dead);
  assert.deepEqual([...dead].sort((a, b) => a - b), dead);
  // The gone draw is the inbox's: Behaviour picks it first from the seed.
  const gone = deadRecipients({ ...profile, deadRate: 1 - 0.2 }, 50);
  assert.equal(gone.length, 40);
  for (const n of dead) assert.ok(gone.includes(n), `${n} is gone`);
  assert.deepEqual(deadRecipients(INSTANT_INBOX, 50), []);
});

Deno.test("dead inboxes answer 503 on their own port and are counted", async () => {
  const profile = { ...INSTANT_INBOX, deadRate: 0.5 };
  const inbox = await serveInbox({
    runId: "d1",
    total: 2,
    recipients: 4,
    profile,
  });
  try {
    assert.ok(inbox.deadPort != null && inbox.deadPort !== inbox.port);
    const [n] = deadRecipients(profile, 4);
    const id = activityId("http://sender.test", "d1", 0).href;
    for (let attempt = 0; attempt < 3; attempt++) {
      const response: Response = await fetch(
        `http://127.0.0.1:${inbox.deadPort}/users/${n}/inbox`,
        { method: "POST", body: JSON.stringify({ id }) },
      );
      await response.body?.cancel();
      assert.equal(response.status, DEAD_STATUS);
    }
    const stats: InboxStats = await (await fetch(
      `http://127.0.0.1:${inbox.port}/_bench/stats`,
    )).json();
    assert.equal(stats.deadDeliveries, 4);
    assert.equal(stats.deadAttempts, 3);
    assert.equal(stats.deadAttempted, 1);
    // No dead request is a delivery or an attempt at the healthy inbox.
    assert.equal(stats.delivered, 0);
    assert.equal(stats.unexpected, 0);
  } finally {
    await inbox.shutdown();
  }
});
