/**
 * No queue at all: `sendActivity` delivers synchronously, inside the send
 * loop.  The baseline the original benchmark called "No queue".
 *
 * @module
 */
import type { Driver } from "../driver.ts";

/** Synchronous delivery without a message queue. */
export const noneDriver: Driver = {
  name: "none",
  docs: {
    queue: "no queue",
    notes: "`sendActivity` delivers synchronously",
  },
  description: "no queue: sendActivity delivers synchronously",
  crossProcess: false,
  suite: "default",
  ordering: {
    supported: true,
    note: "no queue: each sendActivity delivers before it returns, so the " +
      "app's order is the order sent",
  },
};
