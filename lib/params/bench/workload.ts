/**
 * What the sender sends: independent notes, or each note's Create, Update
 * and Delete back to back, with or without Fedify's ordering key.
 *
 * @module
 */
import { choice } from "../kinds.ts";
import { list, value } from "../spec.ts";

/** The section of `--help` and the docs these belong to. */
export const WORKLOAD_SECTION = "Workload and ordering";
const SECTION = WORKLOAD_SECTION;

/** The activities of one note in the `cud` workload, in order. */
export const CUD_STEPS = ["Create", "Update", "Delete"] as const;

/** Workload and ordering: the parameters. */
export const WORKLOAD_PARAMS = [
  value({
    name: "workload",
    flag: "workload",
    kind: choice(["create", "cud"] as const, "W"),
    default: "create",
    help: "create: independent Create(Note) activities; cud: Create, " +
      "Update and Delete of each note sent back to back (TOTAL counts " +
      "activities, so TOTAL/3 notes), whose arrival order the inbox checks",
    section: SECTION,
    affects: "measurement",
    record: { path: "workload", when: "not-default" },
  }),
  list({
    name: "orderingKey",
    flag: "ordering-key",
    kind: choice(["none", "object"] as const, "KEYS"),
    default: ["none"],
    item: "key",
    example: "none,object",
    help: "sendActivity's orderingKey: none, or object (the note's id); a " +
      "list sweeps them; violations are counted with --workload cud",
    section: SECTION,
    affects: "measurement",
    record: { path: "orderingKey", axis: true, when: "not-default" },
  }),
] as const;
