/**
 * The parameters of `deno task bench`, each declared once: flag,
 * environment variable, kind and validation, default, help line, whether it
 * changes what is measured, and where the results record it.  The parser,
 * `--help`, the results' `params`, the comparison and `--resume` rules and
 * docs/options.md are all derived from this table: a new flag is one entry
 * here (and, when the results record it, its field in `SuiteParams` and
 * results/schema.json, which `params.test.ts` holds to the table).
 *
 * @module
 */
import type { ParallelImpl, SuiteParams } from "../results/types.ts";
import {
  choice,
  count,
  durationMs,
  latency,
  rate,
  seconds,
  share,
  text,
} from "./kinds.ts";
import { SCENARIOS } from "./scenarios.ts";
import {
  type CommandTable,
  list,
  optional,
  type ParamValues,
  repeated,
  toggle,
  value,
} from "./spec.ts";

/** Largest accepted `total`. */
export const MAX_TOTAL = 100_000;
/** Largest accepted `recipients`. */
export const MAX_RECIPIENTS = 10_000;
/** Largest accepted `total × recipients`. */
export const MAX_DELIVERIES = 5_000_000;
/** Largest accepted parallelism. */
export const MAX_PARALLELISM = 256;
/** Largest accepted number of runs per configuration. */
export const MAX_RUNS = 100;
/** Largest accepted number of worker processes. */
export const MAX_WORKERS = 64;
/** Largest accepted rate, activities per second. */
export const MAX_RATE = 10_000;
/** Largest accepted number of concurrent send loops. */
export const MAX_SENDERS = 1_000;

/** The parallel wrappers, Fedify's first (the default). */
export const PARALLEL_IMPLS: readonly ParallelImpl[] = ["fedify", "awaiting"];

/** A level of Fedify's log. */
export type LogLevel = NonNullable<SuiteParams["logLevel"]>;

/** LogTape's levels, lowest first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "trace",
  "debug",
  "info",
  "warning",
  "error",
  "fatal",
];

/** The level kept unless `--log-level` says otherwise. */
export const DEFAULT_LOG_LEVEL: LogLevel = "warning";

const SIZES = "Sizes and suite";
const LOAD = "Steady load";
const INBOX = "Inbox behaviour";
const CRASHES = "Crashes";
const LIMITS = "Limits and output";

const RATE_RUNS = {
  anyOf: ["rates", "findMaxRate"],
  what: "rate runs",
  fix: "add --rate R or --find-max-rate",
} as const;
const MAX_RATE_SEARCH = {
  anyOf: ["findMaxRate"],
  what: "--find-max-rate",
  fix: "add it",
} as const;

const PARAMS = [
  value({
    name: "total",
    flag: "total",
    env: "TOTAL",
    kind: count(1, MAX_TOTAL, "activities"),
    default: 500,
    help: "activities per configuration",
    section: SIZES,
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
    section: SIZES,
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
    help: "drivers to run (default: the default suite and any " +
      "--driver-module drivers; see --list)",
    section: SIZES,
    affects: "nothing",
  }),
  list({
    name: "parallel",
    flag: "parallel",
    kind: count(1, MAX_PARALLELISM, "handlers"),
    default: [1, 4],
    item: "level",
    example: "1,4",
    help: "ParallelMessageQueue levels for queue drivers",
    section: SIZES,
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
      "ParallelMessageQueue, acks when a message starts) or awaiting (ours, " +
      "acks when it is done); a list sweeps them",
    section: SIZES,
    affects: "measurement",
    record: { path: "parallelImpl", when: "not-default" },
  }),
  value({
    name: "workers",
    flag: "workers",
    kind: count(1, MAX_WORKERS, "processes"),
    default: 1,
    help: "worker processes per shared queue",
    section: SIZES,
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
    section: SIZES,
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
    section: SIZES,
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
    section: SIZES,
    affects: "runs",
    record: { path: "runs" },
  }),
  toggle({
    name: "baseline",
    flag: "no-baseline",
    negated: true,
    default: true,
    help: "skip the baseline rows (direct signed POSTs, no queue)",
    section: SIZES,
    affects: "nothing",
  }),
  toggle({
    name: "calibrate",
    flag: "no-calibrate",
    negated: true,
    default: true,
    help: "skip measuring the machine's speed at the start and end (about " +
      "4 s each); compare then calls it unknown",
    section: SIZES,
    affects: "nothing",
  }),
  optional({
    name: "scenario",
    flag: "scenario",
    kind: text("NAME"),
    help: `a preset: ${Object.keys(SCENARIOS).join(", ")} (see --list)`,
    section: SIZES,
    affects: "nothing",
    record: { path: "scenario", when: "set" },
  }),
  list({
    name: "rates",
    flag: "rate",
    kind: rate(MAX_RATE),
    default: [],
    item: "rate",
    example: "2,8,32",
    help: "open loop: activities arrive at R per second whether or not " +
      "earlier sendActivity calls returned; a list sweeps rates; latency " +
      "counts from each activity's scheduled start",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.rates" },
  }),
  value({
    name: "durationSeconds",
    flag: "duration",
    kind: seconds(),
    default: 60,
    help: "seconds of arrivals per rate run",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.durationSeconds" },
    requires: RATE_RUNS,
  }),
  value({
    name: "arrivals",
    flag: "arrivals",
    kind: choice(["poisson", "fixed"] as const, "A"),
    default: "poisson",
    help: "poisson (seeded) or fixed spacing of the arrivals",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.arrivals" },
    requires: RATE_RUNS,
  }),
  value({
    name: "seed",
    flag: "seed",
    kind: count(0, 2 ** 32 - 1),
    default: 1,
    help: "seed of the Poisson arrivals",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.seed" },
    requires: RATE_RUNS,
  }),
  value({
    name: "drainSeconds",
    flag: "drain",
    kind: seconds(),
    default: 30,
    help: "seconds a rate run waits after its arrivals for the rest; what " +
      "is still missing then is reported",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.drainSeconds" },
    requires: RATE_RUNS,
  }),
  list({
    name: "senders",
    flag: "senders",
    kind: count(1, MAX_SENDERS, "loops"),
    default: [],
    item: "number of send loops",
    example: "8",
    help: "closed loop: TOTAL activities from N send loops at once " +
      "(siege -c); a list sweeps them",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.senders" },
  }),
  toggle({
    name: "findMaxRate",
    flag: "find-max-rate",
    default: false,
    help: "search the highest rate each configuration keeps up with, p99 " +
      "latency under --latency-bound",
    section: LOAD,
    affects: "measurement",
  }),
  value({
    name: "latencyBoundMs",
    flag: "latency-bound",
    kind: durationMs(),
    default: 5000,
    help: "p99 latency bound of --find-max-rate",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.maxRate.latencyBoundMs" },
    requires: MAX_RATE_SEARCH,
  }),
  value({
    name: "maxRateTimeSeconds",
    flag: "max-rate-time",
    kind: seconds(),
    default: 300,
    help: "seconds of probes per configuration",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.maxRate.timeBoxSeconds" },
    requires: MAX_RATE_SEARCH,
  }),
  value({
    name: "maxRateStart",
    flag: "max-rate-start",
    kind: rate(MAX_RATE),
    default: 1,
    help: "first rate probed",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.maxRate.startRate" },
    requires: MAX_RATE_SEARCH,
  }),
  optional({
    name: "idleSeconds",
    flag: "idle",
    kind: seconds(),
    help: "measure each configuration's processes for S seconds with an " +
      "empty queue: CPU, memory, wake-ups",
    section: LOAD,
    affects: "measurement",
    record: { path: "load.idleSeconds", when: "set" },
  }),
  optional({
    name: "inboxLatency",
    flag: "inbox-latency",
    kind: latency(),
    help: "answer delay: 100ms, or a uniform range like 50-300ms",
    section: INBOX,
    affects: "measurement",
    record: { path: "inbox.latency" },
  }),
  value({
    name: "inboxErrorRate",
    flag: "inbox-error-rate",
    kind: share(),
    default: 0,
    help: "share of deliveries answered 503 on their first attempt",
    section: INBOX,
    affects: "measurement",
    record: { path: "inbox.errorRate" },
  }),
  value({
    name: "inboxGoneRate",
    flag: "inbox-gone-rate",
    kind: share(),
    default: 0,
    help: "share of recipients whose inbox answers 410 Gone",
    section: INBOX,
    affects: "measurement",
    record: { path: "inbox.goneRate" },
  }),
  value({
    name: "inboxDropRate",
    flag: "inbox-drop-rate",
    kind: share(),
    default: 0,
    help: "share of deliveries whose first attempt is dropped",
    section: INBOX,
    affects: "measurement",
    record: { path: "inbox.dropRate" },
  }),
  toggle({
    name: "inboxVerify",
    flag: "inbox-verify",
    default: false,
    help: "verify every HTTP signature (fetches the sender's key)",
    section: INBOX,
    affects: "measurement",
    record: { path: "inbox.verifySignatures" },
  }),
  optional({
    name: "crashWorkerAt",
    flag: "crash-worker-at",
    kind: share(false),
    help: "SIGKILL the consuming process(es) once a share F of the " +
      "deliveries arrived, then start fresh ones",
    section: CRASHES,
    affects: "measurement",
    record: { path: "crash.workerAt", when: "set" },
  }),
  optional({
    name: "crashServerAt",
    flag: "crash-server-at",
    kind: share(false),
    help: "kill the queue server the bench started at F and restart it " +
      "on the same data",
    section: CRASHES,
    affects: "measurement",
    record: { path: "crash.serverAt", when: "set" },
  }),
  value({
    name: "timeoutSeconds",
    flag: "timeout",
    kind: seconds(),
    default: 600,
    help: "time limit per run of a configuration",
    section: LIMITS,
    affects: "nothing",
    record: { path: "timeoutSeconds" },
  }),
  value({
    name: "stallTimeoutSeconds",
    flag: "stall-timeout",
    kind: seconds(),
    default: 60,
    help: "stop a run after S seconds without a new delivery (widened for " +
      "queues that poll)",
    section: LIMITS,
    affects: "nothing",
    record: { path: "stallTimeoutSeconds" },
  }),
  value({
    name: "out",
    flag: "out",
    kind: text("DIR"),
    default: "results",
    help: "results folder; Fedify's log of each configuration goes to " +
      "OUT/logs/ID.log",
    section: LIMITS,
    affects: "nothing",
  }),
  value({
    name: "logLevel",
    flag: "log-level",
    kind: choice(LOG_LEVELS, "L"),
    default: DEFAULT_LOG_LEVEL,
    help: "lowest level of Fedify's log kept",
    section: LIMITS,
    affects: "measurement",
    record: { path: "logLevel", when: "not-default" },
  }),
  toggle({
    name: "resume",
    flag: "resume",
    default: false,
    help: "keep configurations already ok in OUT/latest.json with the " +
      "same parameters; run only the rest",
    section: LIMITS,
    affects: "nothing",
  }),
  repeated({
    name: "driverModules",
    flag: "driver-module",
    kind: text("M"),
    help: "also load drivers from module M (repeatable)",
    section: LIMITS,
    affects: "nothing",
  }),
  toggle({
    name: "list",
    flag: "list",
    default: false,
    help: "list drivers, whether each can run here, and scenarios",
    section: LIMITS,
    affects: "nothing",
  }),
  toggle({
    name: "help",
    flag: "help",
    short: "h",
    default: false,
    help: "show this help",
    section: LIMITS,
    affects: "nothing",
  }),
] as const;

/** The values `deno task bench` was given, one key per parameter. */
export type BenchValues = ParamValues<typeof PARAMS>;

/** Whether any steady-load measurement is asked for. */
export function wantsLoad(values: BenchValues): boolean {
  return values.rates.length > 0 || values.senders.length > 0 ||
    values.findMaxRate || values.idleSeconds != null;
}

/** The options of `deno task bench`. */
export const BENCH: CommandTable<typeof PARAMS> = {
  command: "bench",
  usage: "deno task bench [options]",
  summary: "Benchmarks Fedify outbox message queues: TOTAL activities to " +
    "RECIPIENTS fake recipients each, through every configuration, with " +
    "exact delivery accounting.",
  sections: [
    { title: SIZES },
    {
      title: LOAD,
      note: "instead of one burst of TOTAL; see the docs' steady load",
    },
    { title: INBOX },
    { title: CRASHES },
    { title: LIMITS },
  ],
  params: PARAMS,
  presets: { param: "scenario", byName: SCENARIOS },
  groups: [
    { path: "inbox", fixed: { seed: 1 } },
    { path: "crash" },
    { path: "load", gate: ["rates", "senders", "findMaxRate", "idleSeconds"] },
    { path: "load.maxRate", gate: ["findMaxRate"] },
  ],
  rules: [
    {
      check: (v) =>
        v.total * v.recipients > MAX_DELIVERIES
          ? `total × recipients is ${v.total * v.recipients}, more than ` +
            `the ${MAX_DELIVERIES} deliveries one configuration may have; ` +
            `lower TOTAL or RECIPIENTS`
          : null,
    },
    {
      check: (v) =>
        v.inboxErrorRate + v.inboxDropRate > 1
          ? "--inbox-error-rate and --inbox-drop-rate add up to more than 1"
          : null,
    },
    {
      check: (v) =>
        (v.crashWorkerAt != null || v.crashServerAt != null) && wantsLoad(v)
          ? "crash tests (--crash-worker-at, --crash-server-at) run on a " +
            "burst, not under steady load; drop --rate, --senders, " +
            "--find-max-rate and --idle, or the crash option"
          : null,
    },
  ],
  footer:
    `Servers: REDIS_URL, POSTGRES_URL, AMQP_URL and MYSQL_URL are used when set;
otherwise the bench starts throwaway servers if they are installed.

Precedence: a flag, then its environment variable, then the --scenario
preset, then the default.

Exit codes: 0 every configuration that ran is ok (a rate run that fell behind,
or a max-rate search, counts as measured); 1 some are failed or incomplete, or
the final write to OUT failed (the results are then in a
fallback file it names, or on stdout); 2 bad input, or an --out that cannot be
written (checked before measuring); 130 interrupted (Ctrl-C, SIGTERM, SIGHUP).`,
};
