/**
 * The steady-load parameters: open-loop rates, closed-loop senders, the max-rate search and the idle measurement.
 *
 * @module
 */
import { choice, count, durationMs, rate, seconds } from "../kinds.ts";
import { list, optional, toggle, value } from "../spec.ts";
import { MAX_RATE, MAX_SENDERS } from "./limits.ts";

/** The section of `--help` and the docs these belong to. */
export const LOAD_SECTION = "Steady load";
const SECTION = LOAD_SECTION;

const RATES = {
  anyOf: ["rates"],
  what: "rate runs",
  fix: "add --rate R (--find-max-rate's probes take --probe-duration and " +
    "--probe-drain)",
} as const;
const MAX_RATE_SEARCH = {
  anyOf: ["findMaxRate"],
  what: "--find-max-rate",
  fix: "add it",
} as const;

/**
 * Seconds of arrivals per max-rate probe by default (`--probe-duration`),
 * and for files that did not record it.
 */
export const DEFAULT_PROBE_SECONDS = 20;
/**
 * Seconds a max-rate probe drains by default (`--probe-drain`), and for
 * files that did not record it.
 */
export const DEFAULT_PROBE_DRAIN_SECONDS = 10;

/** Steady load: the parameters. */
export const LOAD_PARAMS = [
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
    section: SECTION,
    affects: "measurement",
    record: { path: "load.rates" },
  }),
  value({
    name: "durationSeconds",
    flag: "duration",
    kind: seconds(),
    default: 60,
    help: "seconds of arrivals per --rate run",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.durationSeconds" },
    requires: RATES,
  }),
  value({
    name: "arrivals",
    flag: "arrivals",
    kind: choice(["poisson", "fixed"] as const, "A"),
    default: "poisson",
    help: "poisson (seeded) or fixed spacing of the arrivals of --rate " +
      "runs (--find-max-rate's probes are evenly spaced)",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.arrivals" },
    requires: RATES,
  }),
  value({
    name: "seed",
    flag: "seed",
    kind: count(0, 2 ** 32 - 1),
    default: 1,
    help: "seed of the Poisson arrivals",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.seed" },
    requires: RATES,
  }),
  value({
    name: "drainSeconds",
    flag: "drain",
    kind: seconds(),
    default: 30,
    help: "seconds a rate run waits after its arrivals for the rest; what " +
      "is still missing then is reported",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.drainSeconds" },
    requires: RATES,
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
    section: SECTION,
    affects: "measurement",
    record: { path: "load.senders" },
  }),
  toggle({
    name: "findMaxRate",
    flag: "find-max-rate",
    default: false,
    help: "search each configuration's capacity, the highest rate it keeps " +
      "up with (backlog bounded), to within 10%, then judge its p99 " +
      "latency there against --latency-bound",
    section: SECTION,
    affects: "measurement",
  }),
  value({
    name: "latencyBoundMs",
    flag: "latency-bound",
    kind: durationMs(),
    default: 5000,
    help: "p99 latency bound judged at the capacity --find-max-rate finds " +
      "(a verdict; it does not lower the capacity)",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.maxRate.latencyBoundMs" },
    requires: MAX_RATE_SEARCH,
  }),
  value({
    name: "maxRateTimeSeconds",
    flag: "max-rate-time",
    kind: seconds(),
    default: 300,
    help: "seconds of probes per configuration; the search stops with " +
      "its bracket so far when the next probe would not fit",
    section: SECTION,
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
    section: SECTION,
    affects: "measurement",
    record: { path: "load.maxRate.startRate" },
    requires: MAX_RATE_SEARCH,
  }),
  value({
    name: "probeSeconds",
    flag: "probe-duration",
    kind: seconds(),
    default: DEFAULT_PROBE_SECONDS,
    help: "seconds of arrivals per --find-max-rate probe: the verdict " +
      "reads the second half, where a rate 10% over capacity leaves a " +
      "backlog that grows by a second's offer every 10 s",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.maxRate.probeSeconds" },
    requires: MAX_RATE_SEARCH,
  }),
  value({
    name: "probeDrainSeconds",
    flag: "probe-drain",
    kind: seconds(),
    default: DEFAULT_PROBE_DRAIN_SECONDS,
    help: "seconds a --find-max-rate probe waits after its arrivals for " +
      "the rest (two 5 s polls); a probe with deliveries still missing " +
      "then did not keep up",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.maxRate.probeDrainSeconds" },
    requires: MAX_RATE_SEARCH,
  }),
  optional({
    name: "idleSeconds",
    flag: "idle",
    kind: seconds(),
    help: "measure each configuration's processes for S seconds with an " +
      "empty queue: CPU, memory, wake-ups",
    section: SECTION,
    affects: "measurement",
    record: { path: "load.idleSeconds", when: "set" },
  }),
] as const;
