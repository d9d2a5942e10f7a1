/**
 * The benchmark's command line: `deno task bench [options]`.  See `--help`.
 *
 * @module
 */
import {
  allSuite,
  defaultSuite,
  loadDrivers,
  selectDrivers,
  type Selection,
} from "./drivers/mod.ts";
import type { Driver } from "./drivers/driver.ts";
import { ENV_NAMES, HELP, parseCli, suiteParams } from "./lib/cli/params.ts";
import {
  DEFAULT_RUN_MINUTES,
  DEFAULT_RUN_SIMULATED,
  DEFAULT_TIMEOUT_SECONDS,
  SCENARIOS,
  UsageError,
} from "./lib/params/mod.ts";
import { renderTable } from "./lib/report/markdown.ts";
import type { ResultsDocument, SuiteParams } from "./lib/results/mod.ts";
import { errorMessage } from "./lib/results/error_message.ts";
import { readResultsDocument, ResultsFileError } from "./lib/results/read.ts";
import { join } from "node:path";
import type { Progress } from "./lib/run/watch.ts";
import {
  ServiceManager,
  sweepStaleCpuGroups,
  sweepStaleNamespaces,
} from "./lib/services/mod.ts";
import { runSuite, sameMeasurement } from "./lib/run/suite.ts";
import {
  latestRun,
  makeRunDir,
  pointLatest,
  toFileUrl,
} from "./lib/cli/paths.ts";
import { commandLine } from "./lib/measure/provenance.ts";
import { Interrupter } from "./lib/cli/interrupt.ts";
import { deploySwarmAgents } from "./lib/cli/swarm_agents.ts";
import type { SwarmAgents } from "./lib/agent/mod.ts";
import { driverList } from "./lib/cli/list.ts";
import {
  useFedifySource,
  withRelativeSource,
  withRelativeSourceArgs,
} from "./lib/cli/fedify_source.ts";
import { leftovers } from "./lib/system/leftovers.ts";
import {
  checkOutputDir,
  OutputError,
  ResultsOutput,
} from "./lib/cli/output.ts";

function fail(message: string, code: number): never {
  console.error(`error: ${message}`);
  Deno.exit(code);
}

async function list(drivers: readonly Driver[]): Promise<void> {
  for (const line of await driverList(drivers, new ServiceManager())) {
    console.log(line);
  }
  console.log(
    `\nA default run (deno task bench, no flags) takes about ` +
      `${DEFAULT_RUN_MINUTES} minutes on a 2-core machine ` +
      (DEFAULT_RUN_SIMULATED
        ? "(a bound, not yet measured)"
        : "(measured: the published results/latest.json)") +
      ` and measures ${defaultSuite.join(", ")} at ×1 and ×4 (--drivers ` +
      `all adds ${
        allSuite.filter((name) => !defaultSuite.includes(name)).join(", ")
      } and the baseline): each row runs to its end, up to its time limit ` +
      `of ${DEFAULT_TIMEOUT_SECONDS} s (--timeout); a row that its own ` +
      "measured rate shows cannot finish within that is stopped earlier " +
      "and reported incomplete, with a labelled estimate of its total.",
  );
  console.log("\nScenarios (--scenario NAME):");
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    console.log(`  ${name}: ${scenario.description}`);
  }
}

/**
 * Runs `print`, ignoring a failed write: once a closed terminal has sent
 * SIGHUP, writing to it fails, and the bench must still stop gracefully and
 * save its results.
 */
function quietly(print: () => void): void {
  try {
    print();
  } catch { /* the terminal is gone */ }
}

function progressPrinter(): (progress: Progress) => void {
  const tty = Deno.stderr.isTerminal();
  let lastPlain = 0;
  let lastId = "";
  const encoder = new TextEncoder();
  return (p) => {
    const share = p.expected > 0 ? (100 * p.delivered / p.expected) : 0;
    const rate = p.currentRate;
    // The estimator's (over the recent half of the run) when it has one.
    const remaining = p.estimatedTotalSeconds != null
      ? p.estimatedTotalSeconds - p.elapsedSeconds
      : rate > 0
      ? (p.expected - p.delivered) / rate
      : null;
    const eta = remaining == null ? "" : `, ETA ${Math.ceil(remaining)} s`;
    const run = p.runs > 1 ? ` run ${p.run}/${p.runs}` : "";
    const text = `[${p.id}${run}] ${p.delivered}/${p.expected} delivered (${
      share.toFixed(1)
    }%), sent ${p.sent}, ${rate.toFixed(1)}/s, ${
      p.elapsedSeconds.toFixed(0)
    } s${eta}`;
    if (tty) {
      quietly(() => Deno.stderr.writeSync(encoder.encode(`\r\x1b[2K${text}`)));
    } else if (p.id !== lastId || p.elapsedSeconds - lastPlain >= 5) {
      lastId = p.id;
      lastPlain = p.elapsedSeconds;
      quietly(() => console.error(text));
    }
  };
}

async function main(): Promise<number> {
  let options;
  // The environment as the user gave it, for the recorded command line.
  const givenEnv = Deno.env.toObject();
  try {
    options = parseCli(Deno.args, givenEnv);
  } catch (error) {
    if (error instanceof UsageError) fail(error.message, 2);
    throw error;
  }
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  for (const warning of options.warnings) console.error(`warning: ${warning}`);
  try {
    // Every process of the run (this one, the sender, the workers) loads
    // the same tree: the children inherit FEDIFY_SOURCE.
    await useFedifySource(options.fedifySource);
  } catch (error) {
    fail(errorMessage(error), 2);
  }
  let drivers: Driver[];
  try {
    drivers = await loadDrivers(
      options.driverModules.map((m) => toFileUrl(m)),
    );
  } catch (error) {
    fail(`cannot load a driver module: ${errorMessage(error)}`, 2);
  }
  if (options.list) {
    await list(drivers);
    return 0;
  }
  let selection: Selection;
  try {
    selection = selectDrivers(options.drivers, drivers);
  } catch (error) {
    fail(errorMessage(error), 2);
  }

  // A plain run goes to a new folder of runs/, never over the published
  // results; --resume without --out goes on in the latest run's folder.
  const latest = options.out == null && options.resume
    ? await latestRun()
    : null;
  const out = options.out ?? latest ?? await makeRunDir();
  let resumeFrom: ResultsDocument | undefined;
  if (options.resume) {
    const path = join(out, "latest.json");
    try {
      resumeFrom = await readResultsDocument(path);
    } catch (error) {
      if (!(error instanceof ResultsFileError)) throw error;
      if (!error.missing) {
        fail(
          `cannot resume from ${error.message}; ` +
            `remove it or run without --resume`,
          2,
        );
      }
      console.error(
        `nothing to resume in ${path}: running every configuration`,
      );
    }
  }
  const params: SuiteParams = suiteParams(options);
  if (resumeFrom != null && !sameMeasurement(resumeFrom.params, params)) {
    console.error(
      "the results file was made with other parameters: running every configuration",
    );
  }

  const swept = await leftovers.sweepStale();
  if (swept.length > 0) {
    console.error(
      `removed ${swept.length} temporary folder${
        swept.length > 1 ? "s" : ""
      } left by a bench that no longer runs: ${swept.join(", ")}`,
    );
  }
  const sweptGroups = await sweepStaleCpuGroups();
  if (sweptGroups.length > 0) {
    console.error(
      "removed CPU-limit control groups left by a bench that no longer " +
        `runs: ${sweptGroups.join(", ")}`,
    );
  }
  const sweptHosts = await sweepStaleNamespaces();
  if (sweptHosts.length > 0) {
    console.error(
      "removed network namespaces and links left by a bench that no " +
        `longer runs: ${sweptHosts.join(", ")}`,
    );
  }
  try {
    await checkOutputDir(out);
    if (options.out == null) await pointLatest(out);
  } catch (error) {
    if (error instanceof OutputError) fail(error.message, 2);
    throw error;
  }
  const output = new ResultsOutput(out);
  const interrupter = new Interrupter({
    force: () => {
      leftovers.forceCleanup();
      Deno.exit(130);
    },
  });
  interrupter.install();
  if (options.calibrate) {
    console.error(
      "calibrating: this machine's speed is measured for a few seconds at " +
        "the start and the end, and about 3 s before each row " +
        "(--no-calibrate skips it)",
    );
  }
  const tty = Deno.stderr.isTerminal();
  let swarm: SwarmAgents | undefined;
  try {
    swarm = await deploySwarmAgents(
      params,
      interrupter.signal,
      (line) => quietly(() => console.error(line)),
    );
  } catch (error) {
    if (interrupter.interrupted) return 130;
    fail(`--agents swarm: ${errorMessage(error)}`, 2);
  }
  const document = await runSuite({
    params,
    drivers: selection.drivers,
    baseline: selection.baseline && options.baseline,
    calibrate: options.calibrate,
    resumeFrom,
    parallel: options.parallel,
    driverModules: options.driverModules.map((m) => toFileUrl(m)),
    save: async (document, final) => void await output.save(document, final),
    logDir: join(out, "logs"),
    command: commandLine(
      import.meta.url,
      withRelativeSourceArgs(Deno.args),
      withRelativeSource(givenEnv),
      ENV_NAMES,
    ),
    signal: interrupter.signal,
    onProgress: progressPrinter(),
    onResult: (r, resumed) => {
      const kept = resumed ? "kept from the results file: " : "";
      const why = r.reason ? `: ${r.reason}` : "";
      quietly(() => {
        if (tty) Deno.stderr.writeSync(new TextEncoder().encode("\r\x1b[2K"));
        console.error(`[${r.id}] ${kept}${r.status}${why}`);
      });
    },
    onLimits: (note) => quietly(() => console.error(note)),
  }).finally(() => swarm?.close());
  const table = renderTable(document);
  const saved = output.outcome;
  quietly(() => {
    console.log(table);
    const { commit, noCommitReason } = document.environment ?? {};
    if (commit === null) {
      // Results that cannot name the code that measured them say so.
      console.log(`commit: none recorded (${noCommitReason ?? "unknown"})`);
    }
    if (saved.ok) {
      console.log(
        `Results: ${out}/latest.json, ${out}/latest.md` +
          (options.out == null
            ? "\nCompare with the published results: deno task compare"
            : ""),
      );
    } else if (saved.fallbackPath != null) {
      console.error(
        `error: ${saved.error}; the results are in ${saved.fallbackPath} ` +
          "instead",
      );
    } else {
      console.error(`error: ${saved.error}; the results follow on stdout`);
      console.log(JSON.stringify(document, null, 2));
    }
  });
  if (interrupter.interrupted) return 130;
  if (!saved.ok) return 1;
  // A queue that stalled, lost messages, fell behind or was stopped is a
  // result, measured as designed; only the bench's own failures (a server
  // that would not start, a child of ours that crashed) make the run fail.
  return document.results.some((r) => r.status === "failed") ? 1 : 0;
}

// Whatever way the bench ends, it leaves no process and no folder behind.
globalThis.addEventListener("unload", () => leftovers.forceCleanup());
try {
  Deno.exit(await main());
} catch (error) {
  console.error(error);
  leftovers.forceCleanup();
  Deno.exit(1);
}
