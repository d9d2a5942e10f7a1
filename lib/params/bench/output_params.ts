/**
 * Time limits, where results go, Fedify's log, resuming, driver modules, and the commands that only print.
 *
 * @module
 */
import { choice, seconds, text } from "../kinds.ts";
import { helpToggle, optional, repeated, toggle, value } from "../spec.ts";
import {
  DEFAULT_LOG_LEVEL,
  DEFAULT_TIMEOUT_SECONDS,
  LOG_LEVELS,
  NEAR_END,
} from "./limits.ts";

/** The section of `--help` and the docs these belong to. */
export const OUTPUT_SECTION = "Limits and output";
const SECTION = OUTPUT_SECTION;

/** Limits and output: the parameters. */
export const OUTPUT_PARAMS = [
  value({
    name: "timeoutSeconds",
    flag: "timeout",
    kind: seconds(),
    default: DEFAULT_TIMEOUT_SECONDS,
    help: "time limit per run of a configuration: a run still delivering " +
      "after S seconds, or sure by its own measured rate not to finish " +
      "within S (even the fastest rest the back-test has seen would end " +
      "past it), is stopped " +
      "and reported incomplete, with a labelled estimate of its total once " +
      "its rate has settled",
    section: SECTION,
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
    section: SECTION,
    affects: "nothing",
    record: { path: "stallTimeoutSeconds" },
  }),
  optional({
    name: "budgetSeconds",
    flag: "budget",
    kind: seconds(),
    help: "a per-row budget in seconds, shorter than the time limit, for a " +
      "quick look: a run still delivering after S seconds, or sure by its " +
      `measured rate not to finish within ${NEAR_END} × S, is stopped and ` +
      "reported incomplete, with a labelled estimate of its total once its " +
      "rate has settled (default: none, every row to its end or the time " +
      "limit)",
    section: SECTION,
    affects: "nothing",
    record: { path: "budgetSeconds", when: "set" },
  }),
  toggle({
    name: "untilDone",
    flag: "until-done",
    default: false,
    help: "no budget even where a --scenario sets one: measure every run " +
      "to its end (the time limit still applies; raise --timeout for slow " +
      "queues)",
    section: SECTION,
    affects: "nothing",
    record: { path: "untilDone", when: "not-default" },
  }),
  toggle({
    name: "earlyStop",
    flag: "no-early-stop",
    negated: true,
    default: true,
    help: "never stop a row on its estimate: only its last delivery, a " +
      "stall or the time limit ends it, so a queue too slow to finish is " +
      "measured as far as --timeout goes (by default a row that would end " +
      "past its limit even were its rest the fastest the back-test has " +
      "seen is stopped once its rate has settled)",
    section: SECTION,
    affects: "nothing",
    record: { path: "earlyStop", when: "not-default" },
  }),
  optional({
    name: "out",
    flag: "out",
    kind: text("DIR"),
    help: "results folder (default: a new runs/UTC-TIME/, and runs/latest " +
      "points at it; --out results replaces the published results); " +
      "Fedify's log of each configuration goes to OUT/logs/ID.log",
    section: SECTION,
    affects: "nothing",
  }),
  value({
    name: "logLevel",
    flag: "log-level",
    kind: choice(LOG_LEVELS, "L"),
    default: DEFAULT_LOG_LEVEL,
    help: "lowest level of Fedify's log kept",
    section: SECTION,
    affects: "measurement",
    record: { path: "logLevel", when: "not-default" },
  }),
  toggle({
    name: "resume",
    flag: "resume",
    default: false,
    help: "keep configurations already ok in OUT/latest.json (without " +
      "--out: the latest run's, runs/latest) with the same parameters; run " +
      "only the rest, into the same folder",
    section: SECTION,
    affects: "nothing",
  }),
  repeated({
    name: "driverModules",
    flag: "driver-module",
    kind: text("M"),
    help: "also load drivers from module M (repeatable)",
    section: SECTION,
    affects: "nothing",
  }),
  toggle({
    name: "list",
    flag: "list",
    default: false,
    help: "list drivers, whether each can run here, and scenarios",
    section: SECTION,
    affects: "nothing",
  }),
  helpToggle(SECTION),
] as const;
