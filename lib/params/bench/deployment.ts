/**
 * Where the app runs, as a real deployment would have it: fewer cores than
 * the machine's (`--cpus`) and a queue server a network hop away
 * (`--queue-rtt`).
 *
 * @module
 */
import { count, milliseconds } from "../kinds.ts";
import { list } from "../spec.ts";
import { MAX_CPUS, MAX_QUEUE_RTT_MS } from "./limits.ts";

/** The section of `--help` and the docs these belong to. */
export const DEPLOYMENT_SECTION = "Deployment";
const SECTION = DEPLOYMENT_SECTION;

/** Deployment: the parameters. */
export const DEPLOYMENT_PARAMS = [
  list({
    name: "cpus",
    flag: "cpus",
    kind: count(1, MAX_CPUS, "cores"),
    default: [],
    item: "count",
    // One core: an example that parses on every machine.
    example: "1",
    help: "pin the app's processes (the sender and the workers) to the " +
      "first N of the bench's cores with taskset, and the inbox, the " +
      "bench and a queue server it started to the rest (when there is a " +
      "rest); at most the machine's cores; pinning does not cap a core's " +
      "share; default: every core, nothing pinned; a list sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "cpus", when: "not-default" },
  }),
  list({
    name: "queueRttMs",
    flag: "queue-rtt",
    kind: milliseconds(MAX_QUEUE_RTT_MS),
    default: [],
    item: "round trip",
    example: "0,1,5",
    help: "reach the queue server through a delay proxy that adds MS of " +
      "round trip (half each way) to every connection of the app, and " +
      "count its round trips per delivery; queues without a server " +
      "(in-process, sqlite, deno-kv) run without one and say so; default: " +
      "no proxy; a list sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "queueRttMs", when: "not-default" },
  }),
] as const;
