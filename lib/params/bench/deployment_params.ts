/**
 * Where the app runs, as a real deployment would have it: fewer cores than
 * the machine's (`--cpus`) and a queue server a network hop away
 * (`--queue-rtt`), and workers on hosts of their own (`--worker-hosts`).
 *
 * @module
 */
import { count, milliseconds } from "../kinds.ts";
import { list } from "../spec.ts";
import { MAX_CPUS, MAX_QUEUE_RTT_MS, MAX_WORKER_HOSTS } from "./limits.ts";

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
  list({
    name: "workerHosts",
    flag: "worker-hosts",
    kind: count(1, MAX_WORKER_HOSTS, "hosts"),
    default: [],
    item: "count",
    example: "2",
    help: "spread the --workers worker processes round-robin over N hosts " +
      "of their own: network namespaces (root only), each with its own " +
      "address, reaching the queue server and the inbox over a veth link " +
      "through a forwarder in the bench (and the workers' delay proxy " +
      "with --queue-rtt); same kernel and CPUs; only for queues shared " +
      "across processes; default: the workers on the bench's host; a list " +
      "sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "workerHosts", when: "not-default" },
  }),
] as const;
