/**
 * Fedify's `InProcessMessageQueue`: messages live in the sender's memory and
 * the sender process delivers them itself.
 *
 * @module
 */
import { InProcessMessageQueue } from "@fedify/fedify";
import type { Driver } from "../driver.ts";

/** Fedify's in-memory queue, consumed by the sender process. */
export const inProcessDriver: Driver = {
  name: "in-process",
  docs: {
    queue: "`@fedify/fedify` 2.3.6 `InProcessMessageQueue`",
    notes: "consumed by the sender process; loses what it holds when that " +
      "process dies, by design",
  },
  description: "Fedify InProcessMessageQueue (memory of the sender process)",
  crossProcess: false,
  suite: "default",
  volatile: true,
  removes: "before-handler",
  ordering: {
    supported: true,
    note: "InProcessMessageQueue (@fedify/fedify 2.3.6) hands out no " +
      "message of a key while another of it is being handled",
  },
  queueSpecifier: "@fedify/fedify",
  packages: ["@fedify/fedify"],
  depth: "ready-and-delayed",
  prepare() {
    return Promise.resolve({ config: null, cleanup: () => Promise.resolve() });
  },
  open() {
    const queue = new InProcessMessageQueue();
    return Promise.resolve({ queue, close: () => Promise.resolve() });
  },
};
