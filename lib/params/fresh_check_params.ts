/**
 * The parameters of `deno task fresh-check`, which runs the README's two
 * commands in a container of a fresh Debian.  Declared like the bench's;
 * the same parser, help and docs serve them.
 *
 * @module
 */
import { choice, count, text } from "./kinds.ts";
import {
  type CommandTable,
  helpToggle,
  optional,
  toggle,
  value,
} from "./spec.ts";

const OPTIONS = "Options";

const PARAMS = [
  value({
    name: "out",
    flag: "out",
    kind: text("DIR"),
    default: "runs/fresh-check",
    help: "the report's folder",
    section: OPTIONS,
    affects: "nothing",
  }),
  optional({
    name: "cache",
    flag: "cache",
    kind: text("DIR"),
    help: "the root file system and the container's home with its npm, " +
      "Deno and bench caches (default: fresh-check/ in the bench's cache " +
      "folder)",
    section: OPTIONS,
    affects: "nothing",
  }),
  toggle({
    name: "cleanCache",
    flag: "clean-cache",
    default: false,
    help: "empty the container's home first: start from nothing",
    section: OPTIONS,
    affects: "nothing",
  }),
  toggle({
    name: "rebuild",
    flag: "rebuild",
    default: false,
    help: "debootstrap and import the image again",
    section: OPTIONS,
    affects: "nothing",
  }),
  value({
    name: "total",
    flag: "total",
    kind: count(1, 1_000_000, "activities"),
    default: 20,
    help: "TOTAL of the bench command",
    section: OPTIONS,
    affects: "nothing",
  }),
  value({
    name: "recipients",
    flag: "recipients",
    kind: count(1, 1_000_000, "recipients"),
    default: 10,
    help: "RECIPIENTS of the bench command",
    section: OPTIONS,
    affects: "nothing",
  }),
  value({
    name: "benchTimeoutMinutes",
    flag: "bench-timeout",
    kind: count(1, 10_000, "minutes", "MIN"),
    default: 40,
    help: "the bench command's time limit",
    section: OPTIONS,
    affects: "nothing",
  }),
  value({
    name: "testTimeoutMinutes",
    flag: "test-timeout",
    kind: count(1, 10_000, "minutes", "MIN"),
    default: 60,
    help: "the test command's time limit",
    section: OPTIONS,
    affects: "nothing",
  }),
  optional({
    name: "only",
    flag: "only",
    kind: choice(["bench", "test"] as const, "bench|test"),
    help: "run one of the two commands",
    section: OPTIONS,
    affects: "nothing",
  }),
  optional({
    name: "mirror",
    flag: "mirror",
    kind: text("URL"),
    help: "the Debian mirror (default: apt's, from /etc/apt)",
    section: OPTIONS,
    affects: "nothing",
  }),
  toggle({
    name: "gitDir",
    flag: "no-git-dir",
    negated: true,
    default: true,
    help: "drop the clone's .git (a downloaded archive)",
    section: OPTIONS,
    affects: "nothing",
  }),
  toggle({
    name: "echo",
    flag: "quiet",
    negated: true,
    default: true,
    help: "do not echo the commands' output (it is in OUT/*.log)",
    section: OPTIONS,
    affects: "nothing",
  }),
  helpToggle(OPTIONS),
] as const;

/** The options of `deno task fresh-check`. */
export const FRESH_CHECK: CommandTable<typeof PARAMS> = {
  command: "fresh-check",
  usage: "deno task fresh-check [options]",
  summary: "Runs the README's two commands (deno task bench at TOTAL=20 " +
    "RECIPIENTS=10, then deno task test) in a container of Debian 12 " +
    "minbase with the host's Node.js and npm only, on a clone of this " +
    "project at HEAD; reports the bench's rows, the tests' summary, " +
    "failures and ignored tests.",
  sections: [{ title: OPTIONS }],
  params: PARAMS,
  rules: [],
  footer: "Needs a running Docker daemon, git, and (to build the image " +
    "once) root and debootstrap.",
};
