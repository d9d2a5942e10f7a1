/**
 * Where the app runs, as a real deployment would have it: fewer cores than
 * the machine's (`--cpus`) and a queue server a network hop away
 * (`--queue-rtt`), and workers on hosts of their own (`--worker-hosts`),
 * or on other hosts altogether, started there by agents (`--agents`,
 * `--sender-agent`), N of them a row (`--scale`), beside the same number
 * of local workers held to a replica's CPU limit (`--placement`,
 * `--worker-cpu-limit`).
 *
 * @module
 */
import {
  agents,
  choice,
  count,
  hostPort,
  milliseconds,
  positive,
} from "../kinds.ts";
import { list, optional } from "../spec.ts";
import {
  MAX_CPUS,
  MAX_QUEUE_RTT_MS,
  MAX_WORKER_HOSTS,
  MAX_WORKERS,
} from "./limits.ts";

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
  optional({
    name: "agents",
    flag: "agents",
    kind: agents(),
    help: "run the workers on other hosts: agents started there with " +
      "deno task agent (HOST:PORT,HOST:PORT…), the replicas of a Docker " +
      "Swarm service (swarm:SERVICE, see deploy/swarm/stack.yml), or swarm: " +
      "the bench builds the agent image, deploys that stack with a replica " +
      "per worker of the largest --scale, each held to --worker-cpu-limit, " +
      "and removes it afterwards (root and a running Docker daemon); round-" +
      "robin, one agent per worker with --scale; they reach the queue " +
      "server and the inbox through forwarders the bench runs on the " +
      "address they see it at; needs BENCH_AGENT_TOKEN (swarm makes one); " +
      "only for queues shared across processes",
    section: SECTION,
    affects: "measurement",
    record: { path: "agents", when: "set" },
  }),
  optional({
    name: "senderAgent",
    flag: "sender-agent",
    kind: hostPort(),
    help: "run the sender on the agent at HOST:PORT (needs " +
      "BENCH_AGENT_TOKEN); its timestamps are moved onto the bench's clock " +
      "by the offset measured before each row",
    section: SECTION,
    affects: "measurement",
    record: { path: "senderAgent", when: "set" },
  }),
  list({
    name: "scale",
    flag: "scale",
    kind: count(1, MAX_WORKERS, "processes"),
    default: [],
    item: "count",
    example: "1,2,4",
    help: "the worker processes of a row in place of --workers, with " +
      "--agents each on an agent of its own (no more than there are " +
      "agents); only for queues shared across processes; a list sweeps " +
      "them: the scale-out",
    section: SECTION,
    affects: "measurement",
    record: { path: "scale", when: "not-default" },
  }),
  list({
    name: "placement",
    flag: "placement",
    kind: choice(["agents", "local"] as const, "WHERE"),
    default: [],
    item: "place",
    example: "agents,local",
    help: "with --agents, where the workers run: on the agents, on the " +
      "bench's host (local), or both, each row twice; default: agents",
    section: SECTION,
    affects: "measurement",
    record: { path: "placement", when: "not-default" },
  }),
  optional({
    name: "workerCpuLimit",
    flag: "worker-cpu-limit",
    kind: positive(MAX_CPUS, "cores", "CORES"),
    help: "hold each worker process the bench runs itself to CORES of CPU " +
      "time (a control group's CFS quota, as Docker's cpus: limit sets; " +
      "root only), e.g. 0.25 to compare with swarm replicas limited so " +
      "(with --agents swarm, the replicas' limit too); default: no limit",
    section: SECTION,
    affects: "measurement",
    record: { path: "workerCpuLimit", when: "set" },
  }),
] as const;
