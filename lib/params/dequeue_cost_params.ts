/**
 * The parameters of `deno task dequeue-cost`, which times one dequeue of an
 * official queue against the size of its backlog.  Declared like the
 * bench's (see `bench.ts`); the same parser, help and docs serve both.
 *
 * @module
 */
import { count, seconds, text } from "./kinds.ts";
import { fedifySourceParam } from "./source.ts";
import { type CommandTable, helpToggle, list, value } from "./spec.ts";

const OPTIONS = "Options";

const PARAMS = [
  list({
    name: "drivers",
    flag: "drivers",
    kind: text("a,b"),
    default: ["redis", "redis-limit1", "postgres", "postgres-indexed"],
    item: "driver name",
    example: "redis,postgres",
    help: "drivers whose queue is measured",
    section: OPTIONS,
    affects: "measurement",
  }),
  list({
    name: "backlogs",
    flag: "backlogs",
    kind: count(1, 10_000_000, "messages"),
    default: [1000, 5000, 20000, 50000],
    item: "backlog size",
    example: "1000,5000",
    sorted: true,
    help: "backlog sizes, in messages",
    section: OPTIONS,
    affects: "measurement",
  }),
  value({
    name: "dequeues",
    flag: "dequeues",
    kind: count(1, 1_000_000, "dequeues"),
    default: 200,
    help: "dequeues timed per backlog",
    section: OPTIONS,
    affects: "measurement",
  }),
  value({
    name: "warmup",
    flag: "warmup",
    kind: count(0, 1_000_000, "dequeues"),
    default: 20,
    help: "untimed dequeues before those",
    section: OPTIONS,
    affects: "measurement",
  }),
  value({
    name: "messageBytes",
    flag: "message-bytes",
    kind: count(1024, 10_000_000, "bytes"),
    default: 4096,
    help: "size of each message's JSON",
    section: OPTIONS,
    affects: "measurement",
  }),
  value({
    name: "stepTimeoutSeconds",
    flag: "step-timeout",
    kind: seconds(),
    default: 60,
    help: "cut a driver off when one dequeue takes longer",
    section: OPTIONS,
    affects: "nothing",
  }),
  value({
    name: "projectionBacklog",
    flag: "projection-backlog",
    kind: count(1, 10_000_000, "messages"),
    default: 50000,
    help: "backlog the drain projection starts from",
    section: OPTIONS,
    affects: "nothing",
  }),
  list({
    name: "project",
    flag: "project",
    kind: text("a,b"),
    default: ["redis"],
    item: "driver name",
    example: "redis",
    help: "drivers to project a drain time for",
    section: OPTIONS,
    affects: "nothing",
  }),
  list({
    name: "depthBacklogs",
    flag: "depth-backlogs",
    kind: count(0, 10_000_000, "messages"),
    default: [0, 10000, 50000],
    item: "backlog size",
    example: "0,10000",
    sorted: true,
    help: "backlog sizes at which a getDepth() call is timed, for drivers " +
      "whose queue has one",
    section: OPTIONS,
    affects: "measurement",
  }),
  value({
    name: "delayed",
    flag: "delayed",
    kind: count(0, 10_000_000, "messages"),
    default: 0,
    help: "messages due in an hour enqueued before each backlog, so that " +
      "every dequeue runs beside a delayed backlog",
    section: OPTIONS,
    affects: "measurement",
  }),
  fedifySourceParam(OPTIONS),
  value({
    name: "out",
    flag: "out",
    kind: text("DIR"),
    default: "runs/dequeue-cost",
    help: "where the files go (by default not the published " +
      "results/dequeue-cost, which --out results/dequeue-cost replaces)",
    section: OPTIONS,
    affects: "nothing",
  }),
  helpToggle(OPTIONS),
] as const;

/** The options of `deno task dequeue-cost`. */
export const DEQUEUE_COST: CommandTable<typeof PARAMS> = {
  command: "dequeue-cost",
  usage: "deno task dequeue-cost [options]",
  summary: "Fills an empty queue with BACKLOG messages, times DEQUEUES " +
    "dequeues by the official queue's listen() with a no-op handler, and " +
    "reports ms per dequeue against backlog (Markdown on stdout; " +
    "latest.json, latest.md, charts/ and report.html in --out).",
  sections: [{ title: OPTIONS }],
  params: PARAMS,
  rules: [
    {
      check: (v) =>
        v.backlogs[0] <= v.warmup + v.dequeues
          ? `every backlog must exceed --warmup + --dequeues (${
            v.warmup + v.dequeues
          }); raise the backlog ${v.backlogs[0]} or lower those`
          : null,
    },
  ],
  // Where the servers come from, from the registry: dequeueCostHelpTable.
  footer: "",
};

/**
 * {@link DEQUEUE_COST} as `--help` shows it: its footer says where the
 * servers come from, naming `urlEnvs` (`drivers/mod.ts` knows them; this
 * layer does not), followed by "…" when there are `more`.
 *
 * @param urlEnvs The URL variables of the servers the default `--drivers`
 *   need, e.g. `["REDIS_URL"]`.
 * @param more Whether the registry has servers of other URL variables.
 */
export function dequeueCostHelpTable(
  urlEnvs: readonly string[],
  more: boolean,
): CommandTable<typeof PARAMS> {
  const names = [...urlEnvs, ...(more ? ["…"] : [])];
  return {
    ...DEQUEUE_COST,
    footer: names.length === 0
      ? ""
      : `Servers come from ${
        names.join(", ")
      } or are throwaway ones, as in deno task bench.`,
  };
}
