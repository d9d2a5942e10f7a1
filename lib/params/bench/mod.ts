/**
 * The parameters of `deno task bench`, each declared once: flag,
 * environment variable, kind and validation, default, help line, whether it
 * changes what is measured, and where the results record it.  The parser,
 * `--help`, the results' `params`, the comparison and `--resume` rules and
 * docs/options.md are all derived from this table: a new flag is one entry
 * in the file of its section here (and, when the results record it, its
 * field in `SuiteParams` and results/schema.json, which `params.test.ts`
 * holds to the table).
 *
 * @module
 */
import { SCENARIOS } from "../scenarios.ts";
import type { CommandTable, ParamValues } from "../spec.ts";
import { CRASHES_PARAMS, CRASHES_SECTION } from "./crash_params.ts";
import { DEPLOYMENT_PARAMS, DEPLOYMENT_SECTION } from "./deployment_params.ts";
import { DEPTH_PARAMS, DEPTH_SECTION } from "./depth.ts";
import { INBOX_PARAMS, INBOX_SECTION, INSTANT_INBOX } from "./inbox.ts";
import { MAX_DELIVERIES } from "./limits.ts";
import { LOAD_PARAMS, LOAD_SECTION } from "./load_params.ts";
import { OUTPUT_PARAMS, OUTPUT_SECTION } from "./output_params.ts";
import { SUITE_PARAMS, SUITE_SECTION } from "./suite_params.ts";
import { CUD_STEPS, WORKLOAD_PARAMS, WORKLOAD_SECTION } from "./workload.ts";

export * from "./limits.ts";
export { CUD_STEPS } from "./workload.ts";
export { INSTANT_INBOX } from "./inbox.ts";

const PARAMS = [
  ...SUITE_PARAMS,
  ...WORKLOAD_PARAMS,
  ...LOAD_PARAMS,
  ...INBOX_PARAMS,
  ...CRASHES_PARAMS,
  ...DEPTH_PARAMS,
  ...DEPLOYMENT_PARAMS,
  ...OUTPUT_PARAMS,
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
    { title: SUITE_SECTION },
    { title: WORKLOAD_SECTION },
    {
      title: LOAD_SECTION,
      note: "instead of one burst of TOTAL; see the docs' steady load",
    },
    { title: INBOX_SECTION },
    { title: CRASHES_SECTION },
    { title: DEPTH_SECTION },
    { title: DEPLOYMENT_SECTION },
    { title: OUTPUT_SECTION },
  ],
  params: PARAMS,
  presets: { param: "scenario", byName: SCENARIOS },
  groups: [
    { path: "inbox", fixed: { seed: INSTANT_INBOX.seed } },
    { path: "crash" },
    { path: "load", gate: ["rates", "senders", "findMaxRate", "idleSeconds"] },
    { path: "load.maxRate", gate: ["findMaxRate"] },
  ],
  rules: [
    {
      // An agent starts its children on Deno: a sender on Node.js beside
      // workers on Deno would measure neither runtime.
      check: (v) =>
        (v.agents != null || v.senderAgent != null) &&
          v.runtime.some((r) => r !== "deno")
          ? "--agents and --sender-agent run the app on Deno (an agent " +
            "starts its children with its own Deno); drop --runtime " +
            `${v.runtime.filter((r) => r !== "deno").join(",")}, or the agents`
          : null,
    },
    {
      warning: true,
      check: (v) =>
        v.placement.length > 0 && v.agents == null
          ? "--placement chooses between the agents and the bench's host, " +
            "and there are no agents: every row runs on this host; give " +
            "--agents, or drop --placement"
          : null,
    },
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
        v.workload === "cud" && v.total % CUD_STEPS.length !== 0
          ? `--workload cud sends ${CUD_STEPS.join(", ")} of each note, so ` +
            `--total counts ${CUD_STEPS.length} activities per note; ` +
            `${v.total} is not a multiple of ${CUD_STEPS.length}: use ` +
            `${v.total - (v.total % CUD_STEPS.length) || CUD_STEPS.length}` +
            ` or ${v.total + CUD_STEPS.length - (v.total % CUD_STEPS.length)}`
          : null,
    },
    {
      check: (v) =>
        v.workload === "cud" && wantsLoad(v)
          ? "--workload cud runs on a burst, not under steady load; drop " +
            "--rate, --senders, --find-max-rate and --idle, or the workload"
          : null,
    },
    {
      warning: true,
      check: (v) =>
        v.orderingKey.includes("object") && v.workload !== "cud"
          ? "--ordering-key object without --workload cud: every activity " +
            "is its own note, so each key is used once; the rows measure " +
            "what passing a key costs, but no order is checked and the " +
            "results record no `ordering`; add --workload cud to count " +
            "order violations"
          : null,
    },
    {
      check: (v) =>
        v.inboxDeadRate + v.inboxGoneRate >= 1
          ? "--inbox-dead-rate and --inbox-gone-rate leave no healthy " +
            "recipient; lower one of them"
          : null,
    },
    {
      // The machine's cores, as the bench may use them: a check of the
      // machine the values are parsed on.
      check: (v) => {
        const cores = navigator.hardwareConcurrency;
        const over = v.cpus.filter((n) => n > cores);
        return over.length > 0
          ? `--cpus ${over.join(",")}: this machine gives the bench ${cores} ` +
            `core${cores === 1 ? "" : "s"}; give --cpus from 1 to ${cores}`
          : null;
      },
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
  // The servers' paragraph comes first, from the registry: benchHelpTable.
  footer:
    `Precedence: a flag, then its environment variable, then the --scenario
preset, then the default.

Exit codes: 0 every configuration was measured as designed, whatever the
queue did (a row that stalled, lost or duplicated messages, fell behind, ran
out of time or was stopped by its budget is a result, reported as such); 1
the bench itself failed on a configuration (a server that would not start, a
child process of ours that crashed, a queue that could not be loaded), or the
final write to OUT failed (the results are then in a fallback file it names,
or on stdout); 2 bad input, or an --out that cannot be written (checked
before measuring); 130 interrupted (Ctrl-C, SIGTERM, SIGHUP).`,
};

/**
 * What the help says of the registry's servers (`drivers/mod.ts` knows
 * them; this layer does not).
 */
export interface HelpServers {
  /** The variables that give the servers by URL, e.g. `["REDIS_URL"]`. */
  readonly urlEnvs: readonly string[];
  /**
   * The servers the bench fetches where the machine has none installed, by
   * their names in prose, e.g. `["Redis"]`.
   */
  readonly fetched: readonly string[];
}

/**
 * {@link BENCH} as `--help` shows it: its footer opens with where the
 * registry's servers come from: their URL variables, or throwaway servers
 * from the machine's install or fetched.
 *
 * @param servers The registry's servers.
 */
export function benchHelpTable(
  servers: HelpServers,
): CommandTable<typeof PARAMS> {
  const { urlEnvs, fetched } = servers;
  const otherwise = fetched.length === 0
    ? "otherwise the bench starts throwaway servers from the machine's install."
    : "otherwise the bench starts throwaway servers from the machine's " +
      `install, or fetches ${joined(fetched)} once into its cache folder ` +
      "where they are not installed (BENCH_CACHE_DIR moves the folder; " +
      "BENCH_FETCH_SERVERS=no turns fetching off).";
  const paragraph = `${
    wrapped(`Servers: ${joined(urlEnvs)} are used when set;`)
  }\n${wrapped(otherwise)}`;
  return { ...BENCH, footer: `${paragraph}\n\n${BENCH.footer}` };
}

/** `items` in prose: `a`, `a and b`, `a, b and c`. */
function joined(items: readonly string[]): string {
  return items.length < 2
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** `text` wrapped at 80 columns (as the help's other lines are). */
function wrapped(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    if (last != null && last.length + 1 + word.length <= 80) {
      lines[lines.length - 1] = `${last} ${word}`;
    } else lines.push(word);
  }
  return lines.join("\n");
}
