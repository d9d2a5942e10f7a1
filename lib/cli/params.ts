/**
 * `deno task bench`'s options: the table in lib/params/bench/mod.ts parsed, and
 * the suite parameters the results record of them.  Every mistake becomes
 * a {@link UsageError} whose message names the problem and the fix.
 *
 * @module
 */
import {
  backendFacts,
  builtinDrivers,
  type Driver,
  fetchedServers,
} from "../../drivers/mod.ts";
import {
  BENCH,
  benchHelpTable,
  type BenchValues,
  envNames,
  INSTANT_INBOX,
  parseCommand,
  recordParams,
  renderHelp,
} from "../params/mod.ts";
import type { InboxProfile, LoadParams, SuiteParams } from "../results/mod.ts";
import { UsageError } from "../params/mod.ts";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import RESULTS_SCHEMA from "../../results/schema.json" with { type: "json" };

/** Everything the CLI was asked to do. */
export interface CliOptions extends BenchValues {
  /** The inbox behaviour the inbox parameters describe. */
  readonly inbox: InboxProfile;
  /** Steady-load settings; absent for a burst suite. */
  readonly load?: LoadParams;
  /** The suite parameters the results record. */
  readonly params: SuiteParams;
  /** Combinations that run but measure less than they seem to. */
  readonly warnings: readonly string[];
}

/** The defaults of every bench parameter, by name. */
export const DEFAULTS: BenchValues = Object.fromEntries(
  BENCH.params.map((spec) => [spec.name, spec.default]),
) as BenchValues;

let isSuiteParams: ValidateFunction<SuiteParams> | undefined;

/**
 * The suite parameters (the results' record) for bench values: the table's
 * record, checked against `SuiteParams` as results/schema.json (written from
 * that type) describes it.
 * @throws {Error} When the table records what the type does not allow.
 */
export function paramsOf(values: BenchValues): SuiteParams {
  const record = recordParams(BENCH, values);
  if (isSuiteParams == null) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    ajv.addSchema(RESULTS_SCHEMA, "results");
    isSuiteParams = ajv.compile<SuiteParams>({
      $ref: "results#/definitions/SuiteParams",
    });
  }
  if (!isSuiteParams(record)) {
    throw new Error(
      "the parameter table (lib/params/bench/) records params that " +
        `SuiteParams does not allow: ${
          JSON.stringify(isSuiteParams.errors)
        }; make the table's record paths and SuiteParams agree, then run ` +
        "deno task schema",
    );
  }
  return record;
}

/**
 * Parses the arguments and environment.
 * @param args Command-line arguments (without the program name).
 * @param env Environment variables (`TOTAL`, `RECIPIENTS`, `RUNS`).
 * @throws {UsageError} On any bad input.
 */
export function parseCli(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliOptions {
  if (args.some((arg) => /^--budget-none(=|$)/.test(arg))) {
    throw new UsageError(
      "--budget-none is gone: no row is budgeted by the none row's time any " +
        "more; each runs to its end or its time limit (--timeout S); give " +
        "--budget S for a shorter look",
    );
  }
  const { values, warnings } = parseCommand(BENCH, args, env);
  const params = paramsOf(values);
  return {
    ...values,
    warnings,
    inbox: params.inbox ?? INSTANT_INBOX,
    ...(params.load == null ? {} : { load: params.load }),
    params,
  };
}

/** The suite parameters the options describe. */
export function suiteParams(options: CliOptions): SuiteParams {
  return options.params;
}

/** The environment variables the bench reads (`TOTAL`, `RECIPIENTS`, …). */
export const ENV_NAMES: readonly string[] = envNames(BENCH);

/**
 * The help text of a registry of `drivers`, naming their servers' URL
 * variables and the servers the bench fetches.
 *
 * @param drivers The registry's drivers.
 */
export function benchHelp(drivers: readonly Driver[]): string {
  return renderHelp(benchHelpTable({
    urlEnvs: backendFacts(drivers).secretUrlEnvs,
    fetched: fetchedServers(drivers),
  }));
}

/** The help text. */
export const HELP: string = benchHelp(builtinDrivers);
