/**
 * Crash tests: when the consuming process or the queue server is killed.
 *
 * @module
 */
import { share } from "../kinds.ts";
import { optional } from "../spec.ts";

/** The section of `--help` and the docs these belong to. */
export const CRASHES_SECTION = "Crashes";
const SECTION = CRASHES_SECTION;

/** Crashes: the parameters. */
export const CRASHES_PARAMS = [
  optional({
    name: "crashWorkerAt",
    flag: "crash-worker-at",
    kind: share(false),
    help: "SIGKILL the consuming process(es) once a share F of the " +
      "deliveries arrived, then start fresh ones",
    section: SECTION,
    affects: "measurement",
    record: { path: "crash.workerAt", when: "set" },
  }),
  optional({
    name: "crashServerAt",
    flag: "crash-server-at",
    kind: share(false),
    help: "kill the queue server the bench started at F and restart it " +
      "on the same data",
    section: SECTION,
    affects: "measurement",
    record: { path: "crash.serverAt", when: "set" },
  }),
] as const;
