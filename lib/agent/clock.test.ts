/**
 * The clock estimate: the reading with the shortest round trip, its bounds,
 * and an agent whose host's clock is five seconds ahead (libfaketime), found
 * within the uncertainty the estimate gives.
 */
import assert from "node:assert/strict";
import {
  AgentClient,
  clockMarks,
  estimateOffset,
  measureOffset,
  rowUncertainty,
} from "./mod.ts";
import { freePort } from "../services/mod.ts";
import { startAgent } from "../testing/agents.ts";
import { toolMissing } from "../testing/tools.ts";

Deno.test("estimateOffset takes the reading with the shortest round trip", () => {
  const estimate = estimateOffset([
    [1000, 1600, 1100], // 100 ms round trip
    [2000, 2502, 2004], // 4 ms: offset 500, within 2
    [3000, 3530, 3060],
  ]);
  assert.deepEqual(estimate, {
    offsetMs: 500,
    uncertaintyMs: 2,
    roundTrips: 3,
  });
  assert.throws(() => estimateOffset([]), RangeError);
});

Deno.test("a row's clock uncertainty adds half the drift; a latency is marked above a tenth", () => {
  const before = { offsetMs: 10, uncertaintyMs: 0.5, roundTrips: 16 };
  assert.equal(rowUncertainty(before, null), 0.5);
  assert.equal(
    rowUncertainty(before, {
      offsetMs: 12,
      uncertaintyMs: 0.25,
      roundTrips: 16,
    }),
    1.5,
  );
  assert.equal(clockMarks(1.5, 20), false);
  assert.equal(clockMarks(2.5, 20), true);
});

/** libfaketime, which shifts the clock of every process it is preloaded in. */
const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

function noFaketime(): boolean {
  try {
    Deno.statSync(LIBFAKETIME);
    return false;
  } catch {
    return toolMissing(
      "faketime",
      `${LIBFAKETIME} is missing: the test of an agent whose clock is ` +
        "shifted is skipped",
      "apt-get install faketime",
    );
  }
}

Deno.test({
  name:
    "an agent whose host's clock is 5 s ahead is found 5 s ahead, within the uncertainty",
  ignore: noFaketime(),
  sanitizeResources: false,
  async fn() {
    // Preloaded into the agent and every child it starts: their host's
    // clock, as far as they can tell, is 5 s ahead.
    const agent = await startAgent({
      listen: `127.0.0.1:${freePort()}`,
      token: "clock-test",
      env: { LD_PRELOAD: LIBFAKETIME, FAKETIME: "+5s" },
    });
    try {
      const client = new AgentClient(agent.address, "clock-test");
      const estimate = await measureOffset(() => client.clockSample());
      const error = Math.abs(estimate.offsetMs - 5000);
      assert.ok(
        error <= estimate.uncertaintyMs + 0.01,
        `offset ${estimate.offsetMs} ms ± ${estimate.uncertaintyMs}: ` +
          `${error} ms from the 5,000 ms shift`,
      );
      assert.ok(estimate.uncertaintyMs < 50, `${estimate.uncertaintyMs} ms`);
    } finally {
      await agent.close();
    }
  },
});
