/**
 * The ordered workload's plan: how many activities each note has under a
 * workload (`cud`: Create, Update, Delete), and the app's way of sending
 * them, each step once the previous step's `sendActivity` returned, as a
 * user's edit-then-delete would, whatever the send loops do.
 *
 * @module
 */
import { CUD_STEPS } from "../params/mod.ts";
import type { Workload } from "../results/mod.ts";

/** Activities per note under `workload`: 1, or 3 for `cud`. */
export function stepsPerObject(workload: Workload = "create"): number {
  return workload === "cud" ? CUD_STEPS.length : 1;
}

/** Prepares activity `index` and returns the call that sends it. */
export type StepCall = (index: number) => () => Promise<void>;

/**
 * Wraps `send` so that the call of activity `index` starts only once the
 * call of activity `index - 1` has settled when both are steps of one note
 * (`steps` activities per note); other calls are untouched.  With one
 * closed send loop the calls are in order anyway and nothing waits; with
 * several loops, or an open loop, a step waits for its predecessor, and
 * that wait is part of its call.
 */
export function stepsInOrder(send: StepCall, steps: number): StepCall {
  if (steps <= 1) return send;
  const settled = new Map<number, Promise<void>>();
  return (index) => {
    const call = send(index);
    return () => {
      const before = index % steps === 0 ? undefined : settled.get(index - 1);
      settled.delete(index - 1);
      const done = (before ?? Promise.resolve()).then(call);
      if ((index + 1) % steps !== 0) {
        settled.set(index, done.catch(() => {}));
      }
      return done;
    };
  };
}
