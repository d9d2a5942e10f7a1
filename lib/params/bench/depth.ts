/**
 * What the bench watches inside the app besides deliveries: whether runs
 * sample `getDepth()` and compare it with the bench's own count of the
 * messages in the queue, and whether they time each delivery's stages.
 *
 * @module
 */
import { toggle } from "../spec.ts";

/** The section of `--help` and the docs these belong to. */
export const DEPTH_SECTION = "Queue depth";
const SECTION = DEPTH_SECTION;

/** Queue depth: the parameters. */
export const DEPTH_PARAMS = [
  toggle({
    name: "sampleDepth",
    flag: "sample-depth",
    default: false,
    help: "sample getDepth() every 250 ms where the queue has it and " +
      "report its error against the bench's own count (adds a counting " +
      "wrapper to every process, so off by default)",
    section: SECTION,
    affects: "measurement",
    record: { path: "sampleDepth", when: "not-default" },
  }),
  toggle({
    name: "stages",
    flag: "no-stages",
    negated: true,
    default: true,
    help: "do not time each delivery's stages (Fedify's spans and a " +
      "wrapper at the queue seam; docs/methodology.md says what they cost)",
    section: SECTION,
    affects: "measurement",
    record: { path: "stages", when: "not-default" },
  }),
] as const;
