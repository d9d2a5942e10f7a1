/**
 * The parameters of `deno task advise`, which answers "which queue should I
 * use?" from the results on disk.  Declared like the bench's (see
 * `bench/mod.ts`); the same parser, help and docs serve it.
 *
 * @module
 */
import { choice, count, milliseconds, positive, text } from "./kinds.ts";
import { MAX_CPUS, MAX_QUEUE_RTT_MS, RUNTIME_NAMES } from "./bench/limits.ts";
import {
  type CommandTable,
  helpToggle,
  optional,
  toggle,
  value,
} from "./spec.ts";

const QUESTION = "The question";
const OUTPUT = "Where the answers come from";

const PARAMS = [
  optional({
    name: "followers",
    flag: "followers",
    kind: count(1, 10_000_000, "recipients"),
    help: "followers of the account that posts (recipients per post)",
    section: QUESTION,
    affects: "nothing",
  }),
  optional({
    name: "postsPerMinute",
    flag: "posts-per-minute",
    kind: positive(10_000, "posts/min", "P"),
    help: "posts per minute at peak",
    section: QUESTION,
    affects: "nothing",
  }),
  toggle({
    name: "durable",
    flag: "durable",
    default: false,
    help: "losing a delivery when a worker or the queue server crashes is " +
      "not acceptable: a queue fits only if none of its counted crash runs " +
      "lost a delivery; those whose crash figures are all measured come first",
    section: QUESTION,
    affects: "nothing",
  }),
  value({
    name: "runtime",
    flag: "runtime",
    kind: choice(RUNTIME_NAMES, "R"),
    default: RUNTIME_NAMES[0],
    help: "the runtime the app runs on: deno, node or bun; rates, latency, " +
      "CPU and idle cost come from rows measured on it (--runtime in the " +
      "bench); crash figures from every runtime's, saying which",
    section: QUESTION,
    affects: "nothing",
  }),
  optional({
    name: "cpus",
    flag: "cpus",
    kind: count(1, MAX_CPUS, "cores"),
    help: "the cores the app runs on: what each queue delivered with the " +
      "app pinned to that many (--cpus in the bench), beside the same " +
      "configuration on every core; not covered when no file measured it",
    section: QUESTION,
    affects: "nothing",
  }),
  optional({
    name: "queueRttMs",
    flag: "queue-rtt",
    kind: milliseconds(MAX_QUEUE_RTT_MS),
    help: "the round trip to the queue server: what each queue delivered " +
      "with that round trip added (--queue-rtt in the bench), beside the " +
      "same configuration at 0 ms; not covered when no file measured it",
    section: QUESTION,
    affects: "nothing",
  }),
  value({
    name: "results",
    flag: "results",
    kind: text("DIR"),
    default: "results",
    help: "the results folder to read (its latest.json and every " +
      "DIR/*/latest.json)",
    section: OUTPUT,
    affects: "nothing",
  }),
  toggle({
    name: "json",
    flag: "json",
    default: false,
    help: "print the answer as JSON",
    section: OUTPUT,
    affects: "nothing",
  }),
  helpToggle(OUTPUT),
] as const;

/** The options of `deno task advise`. */
export const ADVISE: CommandTable<typeof PARAMS> = {
  command: "advise",
  usage: "deno task advise --followers N --posts-per-minute P [--durable] " +
    "[--runtime R] [--cpus N] [--queue-rtt MS]",
  summary: "Answers which queue fits a server: the deliveries per second it " +
    "needs at peak (followers × posts per minute ÷ 60) against each queue's " +
    "measured sustained rate, with latency, crash losses and CPU, every " +
    "figure from a results file on disk, which it names. Capacity and idle " +
    "CPU come from the file with the most max-rate searches " +
    "(results/steady); latency and CPU per delivery from its kept-up run " +
    "at the rate nearest the one asked, which is named; CPU from a burst " +
    "run (results/latest.json) only when no steady run has it, saying so. " +
    "Settings measured in other files (e.g. sqlite-poll1s) show as variants " +
    "and count for the highest rate measured. A crash's loss is the range " +
    "over every crash file that measured the configuration, each file with " +
    "its figure. A run that gave up (its stall window) sooner than another " +
    "run of the same configuration went without a delivery after its crash " +
    "before delivering everything was cut off before redelivery: shown, " +
    "loss unknown, not counted. With --runtime node or bun, only rows " +
    "measured with the app on that runtime count for rates, latency and CPU " +
    "(results/runtimes-steady has them). With --cpus or --queue-rtt, each " +
    "queue also shows what it delivered in a burst so deployed " +
    "(results/deployment-cpus, results/deployment) beside the same " +
    "configuration on every core or at 0 ms.",
  sections: [{ title: QUESTION }, { title: OUTPUT }],
  params: PARAMS,
  rules: [
    {
      check: (v) =>
        !v.help && (v.followers == null || v.postsPerMinute == null)
          ? "--followers and --posts-per-minute are both needed, e.g. " +
            "--followers 5000 --posts-per-minute 2"
          : null,
    },
  ],
  footer: "Exit codes: 0 an answer (also when the results do not cover the " +
    "question: it says so and names the command that would measure it); " +
    "2 bad input or no results to read.",
};
