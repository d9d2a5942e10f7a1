/**
 * The parameters that choose what a suite runs: sizes, drivers, parallelism, Fedify's options, repetitions and presets.
 *
 * @module
 */
import { choice, count, text } from "../kinds.ts";
import { list, optional, toggle, value } from "../spec.ts";
import { SCENARIOS } from "../scenarios.ts";
import { fedifySourceParam } from "../source.ts";
import {
  BUN_VERSION,
  MAX_ORDER_SEED,
  MAX_PARALLELISM,
  MAX_RECIPIENTS,
  MAX_RUNS,
  MAX_TOTAL,
  MAX_WORKERS,
  NODE_VERSION,
  PARALLEL_IMPLS,
  RUNTIME_NAMES,
} from "./limits.ts";

/** The section of `--help` and the docs these belong to. */
export const SUITE_SECTION = "Sizes and suite";
const SECTION = SUITE_SECTION;

/** Sizes and suite: the parameters. */
export const SUITE_PARAMS = [
  value({
    name: "total",
    flag: "total",
    env: "TOTAL",
    kind: count(1, MAX_TOTAL, "activities"),
    default: 500,
    help: "activities per configuration",
    section: SECTION,
    affects: "measurement",
    record: { path: "total" },
  }),
  value({
    name: "recipients",
    flag: "recipients",
    env: "RECIPIENTS",
    kind: count(1, MAX_RECIPIENTS, "recipients"),
    default: 100,
    help: "recipients per activity",
    section: SECTION,
    affects: "measurement",
    record: { path: "recipients" },
  }),
  list({
    name: "drivers",
    flag: "drivers",
    kind: text("a,b"),
    default: [],
    item: "driver name",
    example: "in-process,redis",
    help: "drivers to run (default: the original benchmark's: none, " +
      "in-process, deno-kv-single, redis, postgres, and any --driver-module " +
      "drivers); all adds every other queue a Fedify user can deploy " +
      "(amqp, sqlite, mysql, deno-kv) and the baseline; baseline adds the " +
      "baseline rows; see --list",
    section: SECTION,
    affects: "nothing",
  }),
  fedifySourceParam(SECTION),
  list({
    name: "parallel",
    flag: "parallel",
    kind: count(1, MAX_PARALLELISM, "handlers"),
    default: [1, 4],
    item: "level",
    example: "1,4",
    help: "ParallelMessageQueue levels for queue drivers",
    section: SECTION,
    affects: "nothing",
  }),
  list({
    name: "parallelImpl",
    flag: "parallel-impl",
    kind: choice(PARALLEL_IMPLS, "I"),
    default: [PARALLEL_IMPLS[0]],
    item: "wrapper",
    example: "fedify,awaiting",
    help: "the wrapper above parallelism 1: fedify (Fedify's " +
      "ParallelMessageQueue, acks when a message starts), awaiting (ours, " +
      "acks when it is done) or prompt (Fedify's without its " +
      "setTimeout(0) before each handler, an experiment); a list sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "parallelImpl", when: "not-default" },
  }),
  list({
    name: "runtime",
    flag: "runtime",
    kind: choice(RUNTIME_NAMES, "R"),
    default: [RUNTIME_NAMES[0]],
    item: "runtime",
    example: "deno,node",
    help: "the runtime the app's processes (the sender and the queue " +
      `workers) run on: deno, node (Node.js ${NODE_VERSION}) or bun (Bun ` +
      `${BUN_VERSION}), both from the npm registry with the app's packages at ` +
      "deno.json's versions, installed on first use; the bench, the inbox " +
      "and the servers stay as they are; a list sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "runtime", when: "not-default" },
  }),
  value({
    name: "workers",
    flag: "workers",
    kind: count(1, MAX_WORKERS, "processes"),
    default: 1,
    help: "worker processes per shared queue",
    section: SECTION,
    affects: "measurement",
    record: { path: "workers" },
  }),
  list({
    name: "fanout",
    flag: "fanout",
    kind: choice(["auto", "skip", "force"] as const, "MODES"),
    default: ["auto"],
    item: "mode",
    example: "auto,skip",
    help: "Fedify's fanout option(s): auto, skip, force; a list sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "fanout", axis: true },
  }),
  list({
    name: "rsaBits",
    flag: "rsa-bits",
    kind: choice([2048, 3072, 4096] as const, "BITS"),
    default: [2048],
    item: "size",
    example: "2048,4096",
    help: "the sender's RSA key size(s): 2048, 3072, 4096; a list sweeps them",
    section: SECTION,
    affects: "measurement",
    record: { path: "rsaBits", axis: true },
  }),
  value({
    name: "runs",
    flag: "runs",
    env: "RUNS",
    kind: count(1, MAX_RUNS, "runs"),
    default: 1,
    help: "runs per configuration; figures are medians with min–max",
    section: SECTION,
    affects: "runs",
    record: { path: "runs" },
  }),
  optional({
    name: "orderSeed",
    flag: "order-seed",
    kind: count(0, MAX_ORDER_SEED, "", "SEED"),
    help: "seed of the shuffled order of each round (every configuration's " +
      "first run comes before any second run); default: a random seed, " +
      "recorded in the results",
    section: SECTION,
    affects: "nothing",
    record: { path: "orderSeed", when: "set" },
  }),
  toggle({
    name: "baseline",
    flag: "no-baseline",
    negated: true,
    default: true,
    help: "never run the baseline rows (direct signed POSTs, no queue), " +
      "even where --drivers all or baseline asks for them",
    section: SECTION,
    affects: "nothing",
  }),
  toggle({
    name: "calibrate",
    flag: "no-calibrate",
    negated: true,
    default: true,
    help: "skip measuring the machine's speed at the start and end (about " +
      "5 s each) and before each row (about 3 s); compare then calls it " +
      "unknown",
    section: SECTION,
    affects: "nothing",
  }),
  optional({
    name: "scenario",
    flag: "scenario",
    kind: text("NAME"),
    help: `a preset: ${Object.keys(SCENARIOS).join(", ")} (see --list)`,
    section: SECTION,
    affects: "nothing",
    record: { path: "scenario", when: "set" },
  }),
] as const;
