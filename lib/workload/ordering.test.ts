import assert from "node:assert/strict";
import { stepsInOrder, stepsPerObject } from "./ordering.ts";

Deno.test("stepsPerObject: create 1, cud 3", () => {
  assert.equal(stepsPerObject(), 1);
  assert.equal(stepsPerObject("create"), 1);
  assert.equal(stepsPerObject("cud"), 3);
});

Deno.test("stepsInOrder: a step starts once its predecessor settled, even if called first", async () => {
  const events: string[] = [];
  const gates = new Map<number, PromiseWithResolvers<void>>();
  const send = (i: number) => () => {
    events.push(`start ${i}`);
    const gate = Promise.withResolvers<void>();
    gates.set(i, gate);
    return gate.promise;
  };
  const ordered = stepsInOrder(send, 3);
  // Steps 0 and 1 called at once (as two send loops would), and note 1's
  // first step (3) too: 1 waits for 0, 3 does not.
  const calls = [0, 1, 3].map((i) => ordered(i)());
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(events, ["start 0", "start 3"]);
  gates.get(0)!.reject(new Error("step 0 failed"));
  await assert.rejects(calls[0]);
  // A failed step still lets the next one go.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(events, ["start 0", "start 3", "start 1"]);
  gates.get(1)!.resolve();
  gates.get(3)!.resolve();
  await Promise.all(calls.slice(1));
});

Deno.test("stepsInOrder: one step per note changes nothing", () => {
  const send = (_i: number) => () => Promise.resolve();
  assert.equal(stepsInOrder(send, 1), send);
});
