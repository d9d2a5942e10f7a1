/**
 * `deno task dequeue-cost`: what one dequeue costs each queue as its
 * backlog grows.  Parses the options (the table in
 * lib/params/dequeue_cost_params.ts), runs the measurement
 * (lib/run/dequeue_cost_run.ts), prints the report on stdout and writes
 * `latest.json`, `latest.md`, `charts/dequeue-cost.svg` and `report.html`
 * to `--out`, named as in every results folder.  `deno task report DIR` renders a folder's reports
 * again from its JSON.  See `--help`.
 *
 * @module
 */
import {
  backendFacts,
  builtinDrivers,
  type Driver,
  findDriver,
} from "../../drivers/mod.ts";
import {
  DEQUEUE_COST,
  dequeueCostHelpTable,
  envNames,
  parseCommand,
  renderHelp,
  UsageError,
} from "../params/mod.ts";
import { renderDequeueCost } from "../report/dequeue_cost_report.ts";
import { figureCell, msFigure } from "../report/cells.ts";
import type {
  DepthCost,
  DequeueCostParams,
  DequeueCostPoint,
} from "../results/dequeue_cost_record.ts";
import { runDequeueCost } from "../run/dequeue_cost_run.ts";
import { leftovers } from "../system/leftovers.ts";
import { Interrupter } from "./interrupt.ts";
import { writeDequeueCost } from "./write.ts";
import {
  useFedifySource,
  withRelativeSource,
  withRelativeSourceArgs,
} from "./fedify_source.ts";
import { commandLine } from "../measure/provenance.ts";
import { errorMessage } from "../results/error_message.ts";

/** Everything `deno task dequeue-cost` was asked to do. */
export interface DequeueCostOptions extends DequeueCostParams {
  /** Where the files go. */
  readonly outDir: string;
  /** The Fedify source tree the queue packages come from, if any. */
  readonly fedifySource: string | null;
}

/**
 * The help text of a registry of `drivers`: its footer names the URL
 * variables of the servers the default `--drivers` need, then "…" for the
 * registry's other servers.
 *
 * @param drivers The registry's drivers.
 */
export function dequeueCostHelp(drivers: readonly Driver[]): string {
  const { values } = parseCommand(DEQUEUE_COST, [], {});
  const named = [
    ...new Set(
      values.drivers.flatMap((name) => {
        const urlEnv = findDriver(drivers, name)?.service?.urlEnv;
        return urlEnv == null ? [] : [urlEnv];
      }),
    ),
  ];
  const more = backendFacts(drivers).secretUrlEnvs
    .some((urlEnv) => !named.includes(urlEnv));
  return renderHelp(dequeueCostHelpTable(named, more));
}

/** The help text. */
export const HELP: string = dequeueCostHelp(builtinDrivers);

/**
 * Parses the command line and environment; every driver named must be a
 * built-in one with a queue.
 * @throws {UsageError} On unknown options or bad values.
 * @returns `null` for `--help`.
 */
export function parseDequeueCostArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): DequeueCostOptions | null {
  const { values } = parseCommand(DEQUEUE_COST, args, env);
  if (values.help) return null;
  for (const name of values.drivers) {
    const driver = findDriver(builtinDrivers, name);
    if (driver == null) {
      throw new UsageError(
        `unknown driver "${name}"; deno task bench --list shows them`,
      );
    }
    if (driver.prepare == null || driver.open == null) {
      throw new UsageError(
        `driver "${name}" has no queue to measure; pick one that has, ` +
          "e.g. --drivers redis,postgres",
      );
    }
  }
  const { out, help: _, fedifySource, ...params } = values;
  return { ...params, outDir: out, fedifySource };
}

/** The progress line of a point, on stderr. */
function progressLine(
  driver: string,
  backlog: number,
  point: DequeueCostPoint | null,
): string {
  if (point == null) return `[${driver}] backlog ${backlog}: filling…`;
  return `[${driver}] backlog ${backlog}: ${point.status}, ${
    figureCell(point.msPerDequeue, msFigure)
  } ms/dequeue over ${point.dequeued}` +
    (point.fillSeconds == null
      ? ""
      : ` (fill ${point.fillSeconds.toFixed(1)} s)`) +
    (point.reason == null ? "" : `; ${point.reason}`);
}

/** The progress line of a driver's `getDepth()` cost, on stderr. */
function depthLine(cost: DepthCost): string {
  if (!cost.supported) return `[${cost.driver}] getDepth(): not supported`;
  const calls = Object.entries(cost.callMs ?? {}).map(([backlog, ms]) =>
    `${ms} ms at ${backlog}`
  );
  return `[${cost.driver}] getDepth(): ${calls.join(", ") || "not measured"}` +
    (cost.reason == null ? "" : `; ${cost.reason}`);
}

if (import.meta.main) {
  let options: DequeueCostOptions | null;
  // The environment as the user gave it, for the recorded command line.
  const givenEnv = Deno.env.toObject();
  try {
    options = parseDequeueCostArgs(Deno.args, givenEnv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    Deno.exit(2);
  }
  if (options == null) {
    console.log(HELP);
    Deno.exit(0);
  }
  try {
    await useFedifySource(options.fedifySource);
  } catch (error) {
    console.error(`error: ${errorMessage(error)}`);
    Deno.exit(2);
  }
  const interrupter = new Interrupter({
    force: () => {
      leftovers.forceCleanup();
      Deno.exit(130);
    },
  });
  interrupter.install();
  const document = await runDequeueCost(options, {
    command: commandLine(
      import.meta.url,
      withRelativeSourceArgs(Deno.args),
      withRelativeSource(givenEnv),
      envNames(DEQUEUE_COST),
    ),
    signal: interrupter.signal,
    onProgress: (driver, backlog, point) =>
      console.error(progressLine(driver, backlog, point)),
    onDepth: (cost) => console.error(depthLine(cost)),
  });
  interrupter.uninstall();
  await writeDequeueCost(options.outDir, document);
  console.log(renderDequeueCost(document));
  console.error(
    `wrote ${options.outDir}/latest.{json,md}, charts/ and report.html`,
  );
  const ok = !interrupter.interrupted &&
    document.points.every((p) => p.status === "ok");
  Deno.exit(interrupter.interrupted ? 130 : ok ? 0 : 1);
}
