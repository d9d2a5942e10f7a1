/**
 * Runs a suite: the baseline rows, then every configuration, each `runs`
 * times from an empty queue, skipping those that cannot run here, and
 * handing the results to its caller's `save` after each configuration so
 * that an interrupted suite keeps what finished.  Writing them (JSON,
 * Markdown, charts) is the caller's: this stage imports no report code.
 *
 * @module
 */
import type { Driver } from "../../drivers/driver.ts";
import {
  type CalibrationOptions,
  measureCalibration,
  ROW_CALIBRATION,
} from "./calibrate.ts";
import { planRounds, randomSeed } from "./order.ts";
import {
  type CommitReading,
  readCommitReading,
} from "../measure/provenance.ts";
import { collectEnvironment } from "../measure/environment.ts";
import {
  BENCH,
  DEFAULT_LOG_LEVEL,
  sameMeasurement as sameRecord,
} from "../params/mod.ts";
import { FedifyLogFile } from "./fedify_log_file.ts";
import { limitsNote } from "./budget.ts";
import {
  type Calibration,
  type ConfigurationResult,
  type Environment,
  type ResultsDocument,
  type RunResult,
  type RuntimeName,
  SCHEMA_VERSION,
  type SuiteParams,
} from "../results/mod.ts";
import { runOnce } from "./runner.ts";
import type { Progress } from "./watch.ts";
import { deploymentRecord } from "./deployment.ts";
import {
  configurationName,
  expandConfigurations,
  generatorKey,
  suiteEntries,
} from "./configurations.ts";
import { errorMessage } from "../results/error_message.ts";
import {
  type AppLauncher,
  type NamespaceProbe,
  prepareAppRuntime,
  ServiceManager,
  tasksetPath,
} from "../services/mod.ts";
import { aggregateRuns } from "../measure/stats.ts";
import type { RunLoad } from "../workload/plan.ts";
import { searchMaxRate } from "./steady.ts";
import {
  appSignRate,
  configurationFields,
  type EntryState,
  resultOf,
  skippedRun,
  unavailability,
} from "./suite_row.ts";

/** Options for {@link runSuite}. */
export interface SuiteOptions {
  /** Sizes and limits shared by every configuration. */
  readonly params: SuiteParams;
  /** Drivers to run, in order. */
  readonly drivers: readonly Driver[];
  /** Parallelism levels for drivers that have a queue. */
  readonly parallel: readonly number[];
  /** Also run the baseline (direct delivery) at each parallelism level. */
  readonly baseline?: boolean;
  /** User driver modules that child processes must load. */
  readonly driverModules?: readonly string[];
  /**
   * Folder for Fedify's log of each configuration (`<id>.log`); without
   * it the logs are counted and removed.
   */
  readonly logDir?: string;
  /**
   * Saves the results (e.g. `writeResults` of `lib/report/markdown.ts`):
   * called after every configuration, and once at the end with `final`
   * set.  What it throws ends the suite; to go on after a failed write,
   * catch it inside.
   */
  readonly save?: (document: ResultsDocument, final: boolean) => Promise<void>;
  /**
   * A previous results document: its `ok` configurations with the same
   * parameters are kept instead of run again.
   */
  readonly resumeFrom?: ResultsDocument;
  /**
   * Servers to use; the suite's own (stopped at its end) when absent.  A
   * caller that passes one stops it.
   */
  readonly services?: ServiceManager;
  /** Stops the suite (Ctrl-C); the running configuration ends `incomplete`. */
  readonly signal?: AbortSignal;
  /** Live progress of the running configuration. */
  readonly onProgress?: (progress: Progress) => void;
  /** Called when a configuration ends (or is taken from `resumeFrom`). */
  readonly onResult?: (result: ConfigurationResult, resumed: boolean) => void;
  /**
   * Called once before the first row with what holds each row to its time:
   * the time limit (`--timeout`) or a budget (`--budget`), in words.
   */
  readonly onLimits?: (note: string) => void;
  /**
   * Measure the machine's speed at the start and the end (a few seconds
   * each) into `environment.calibration`, and briefly (about 3 s) before
   * every run into its result's `calibration`; default `false` (the
   * bench's command line and `runBenchmark()` turn it on).
   */
  readonly calibrate?: boolean;
  /**
   * How long each calibration measures: by default the suite's start and
   * end take 3 slices of 0.5 s per rate and each row's 3 of 0.25 s; a test
   * that checks only the shape of the figures shortens both.
   */
  readonly calibrationSlices?: CalibrationOptions;
  /**
   * What is asked of the system before a `--worker-hosts` row (root, `ip`);
   * the system itself by default, a fake in a test of the rows skipped
   * without namespaces.
   */
  readonly namespaceProbe?: NamespaceProbe;
  /**
   * The command line as run, recorded as `environment.command`; `null`
   * (the default) for a suite started through the library.
   */
  readonly command?: readonly string[] | null;
}

/** The parameters that must match for a result to be reused by `--resume`. */
export function sameMeasurement(a: SuiteParams, b: SuiteParams): boolean {
  return sameRecord(BENCH, a, b);
}

/**
 * Runs every configuration and returns the results document.
 *
 * With `runs` above 1 the suite runs in rounds: every configuration's first
 * run before any second run.  Each round runs its configurations in an
 * order shuffled by `params.orderSeed` (a random seed when absent, recorded
 * in the document's `params`), the load generator's row first; the document's
 * `rounds` records the order run.  A configuration whose run did not finish
 * leaves the later rounds.  With `calibrate`, a short calibration just before
 * each run is recorded in its result.  The document's `results` keep the
 * order of the configurations whatever the order they ran in.
 */
export async function runSuite(
  options: SuiteOptions,
): Promise<ResultsDocument> {
  const suite = new SuiteRun(options);
  await suite.prepare();
  try {
    await suite.calibrateStart();
    await suite.runRounds();
    await suite.closeCutShort();
  } finally {
    await suite.release();
  }
  return await suite.finish();
}

/** A running suite, phase by phase: {@link runSuite} calls them in order. */
class SuiteRun {
  readonly #options: SuiteOptions;
  readonly #seed: number;
  readonly #params: SuiteParams;
  readonly #runs: number;
  readonly #services: ServiceManager;
  readonly #began = performance.now();
  readonly #startedAt = new Date().toISOString();
  readonly #calibrate: boolean;
  /** The results of `resumeFrom` that may stand for this suite's. */
  readonly #previous: readonly ConfigurationResult[];
  readonly #states: EntryState[] = [];
  readonly #rounds: string[][] = [];
  readonly #launchers = new Map<RuntimeName, AppLauncher>();
  /** The load generator's limit, per runtime (and core count) of the app. */
  readonly #ceilings = new Map<string, number>();
  #commit: CommitReading = { commit: null, noCommitReason: "not read yet" };
  #environment: Environment | undefined;
  #calibration: Calibration | undefined;

  constructor(options: SuiteOptions) {
    this.#options = options;
    this.#seed = options.params.orderSeed ?? randomSeed();
    this.#params = { ...options.params, orderSeed: this.#seed };
    this.#runs = Math.max(1, this.#params.runs ?? 1);
    this.#services = options.services ?? new ServiceManager();
    this.#calibrate = options.calibrate ?? false;
    this.#previous = options.resumeFrom != null &&
        sameMeasurement(options.resumeFrom.params, this.#params)
      ? options.resumeFrom.results
      : [];
  }

  /**
   * Reads the commit and checks what the suite needs before anything is
   * measured: `taskset` for `--cpus`, and Node.js and Bun with the app's
   * packages, installed on first use.
   */
  async prepare(): Promise<void> {
    // Read before anything is written: the results may dirty the tree.
    this.#commit = await readCommitReading();
    if ((this.#params.cpus ?? []).length > 0) tasksetPath();
    for (const name of this.#params.runtime ?? ["deno"]) {
      this.#launchers.set(
        name,
        await prepareAppRuntime(name, this.#options.signal),
      );
    }
  }

  /** The machine's speed at the start (with `calibrate`), and the environment. */
  async calibrateStart(): Promise<void> {
    if (this.#calibrate) {
      const start = await measureCalibration(this.#options.calibrationSlices)
        .catch((error) => {
          throw new Error(
            `cannot measure the machine's speed (${
              errorMessage(error)
            }); run ` +
              "with --no-calibrate (calibrate: false) to skip it",
            { cause: error },
          );
        });
      this.#calibration = { start, end: null };
    }
    await this.#refreshEnvironment();
  }

  /** Every configuration, round by round, until done or stopped. */
  async runRounds(): Promise<void> {
    const params = this.#params;
    const configurations = expandConfigurations(
      this.#options.drivers,
      this.#options.parallel,
      // Under steady load the generator's row takes the baseline's place.
      (this.#options.baseline ?? false) && params.load == null,
      params.axes,
      params.parallelImpl,
      params.runtime,
      {
        cpus: params.cpus,
        queueRttMs: params.queueRttMs,
        workerHosts: params.workerHosts,
        scale: params.scale,
        placement: params.agents == null
          ? undefined
          : params.placement ?? ["agents"],
      },
    );
    for (const entry of suiteEntries(configurations, params)) {
      this.#states.push({ entry, runs: [], done: false });
    }
    // Burst rows are held to their time limit or budget (budget.ts).
    if (params.load == null && params.crash == null) {
      this.#options.onLimits?.(limitsNote(params));
    }
    const plan = planRounds(this.#states, this.#runs, this.#seed, {
      pinned: (s) => s.entry.configuration.generator === true,
      once: (s) => s.entry.maxRate === true,
    });
    for (const [index, round] of plan.entries()) {
      const order: string[] = [];
      this.#rounds.push(order);
      for (const state of round) {
        if (this.#options.signal?.aborted) return;
        if (state.done) continue;
        const last = index === plan.length - 1;
        if (await this.#runEntry(state, index, last, order) === "stop") return;
      }
    }
  }

  /**
   * One run of an entry (or its keeping or skipping, the first time):
   * `stop` when the suite was stopped meanwhile.
   */
  async #runEntry(
    state: EntryState,
    index: number,
    last: boolean,
    order: string[],
  ): Promise<"stop" | "next"> {
    const { entry } = state;
    const { configuration, id } = entry;
    if (state.log == null) {
      if (await this.#keptOrSkipped(state)) return "next";
      state.log = await FedifyLogFile.open(this.#options.logDir, id);
    }
    const before = this.#calibrate ? await this.#rowCalibration(id) : undefined;
    const launcher = this.#launchers.get(configuration.runtime ?? "deno")!;
    const appSign = this.#calibrate && this.#params.runtime != null
      ? await appSignRate(launcher, id)
      : undefined;
    // Ctrl-C during the calibration: the run has not started.
    if (this.#options.signal?.aborted) return "stop";
    order.push(id);
    const outcome = await this.#measure(state, launcher, index);
    if (outcome == null) return "stop";
    state.runs.push({
      ...outcome,
      ...(before == null ? {} : { calibration: before }),
      ...(appSign == null ? {} : { appSignRate: appSign }),
    });
    // A configuration that did not finish once would only burn its time
    // limit again: its result says how far the one run got.
    if (outcome.status !== "ok" || entry.maxRate || last) {
      state.done = true;
      state.logSummary = await state.log.close();
    }
    state.result = resultOf(state, this.#params);
    if (configuration.generator && state.result.callsPerSecond != null) {
      this.#ceilings.set(
        generatorKey(configuration),
        state.result.callsPerSecond,
      );
    }
    if (state.done) this.#options.onResult?.(state.result, false);
    await this.#saveSoFar();
    return "next";
  }

  /**
   * Settles an entry without running it, when `resumeFrom` has its `ok`
   * result or it cannot run here; `false` when it is to run.
   */
  async #keptOrSkipped(state: EntryState): Promise<boolean> {
    const { configuration, id } = state.entry;
    const params = this.#params;
    const kept = this.#previous.find((r) => r.id === id && r.status === "ok");
    const reason = kept == null
      ? await unavailability(
        configuration,
        this.#services,
        params,
        this.#options.namespaceProbe,
        this.#options.signal,
      )
      : null;
    if (kept == null && reason == null) return false;
    state.result = kept ?? {
      ...aggregateRuns(
        id,
        configurationName(configuration),
        configuration.parallelism,
        [{
          ...skippedRun(params, reason!),
          deployment: deploymentRecord(configuration, params),
        }],
      ),
      ...configurationFields(configuration, params),
    };
    state.done = true;
    this.#options.onResult?.(state.result, kept != null);
    await this.#saveSoFar();
    return true;
  }

  /** The short calibration before a row's run; none when it fails. */
  async #rowCalibration(id: string): Promise<Calibration["start"] | undefined> {
    return await measureCalibration(
      this.#options.calibrationSlices ?? ROW_CALIBRATION,
    ).catch((error) => {
      // A row measured without its calibration beats no row at all.
      console.error(
        `${id}: calibration before the run failed ` +
          `(${errorMessage(error)}); the run has none`,
      );
      return undefined;
    });
  }

  /**
   * An entry's run: one run, or the max-rate search's probes; `undefined`
   * when the search was stopped.
   */
  async #measure(
    state: EntryState,
    launcher: AppLauncher,
    index: number,
  ): Promise<RunResult | undefined> {
    const { entry } = state;
    const { configuration, id } = entry;
    const params = this.#params;
    const log = state.log!;
    const options = this.#options;
    const once = async (load: RunLoad | undefined, run: number) => {
      const outcome = await runOnce(configuration, {
        id,
        params,
        services: this.#services,
        driverModules: options.driverModules ?? [],
        launcher,
        signal: options.signal,
        run: { index: run, of: entry.maxRate ? 1 : this.#runs },
        onProgress: options.onProgress,
        log: {
          path: log.path,
          level: params.logLevel ?? DEFAULT_LOG_LEVEL,
        },
        load,
      });
      return { ...outcome, log: await log.runSummary() };
    };
    if (!(entry.maxRate && params.load != null)) {
      return await once(entry.load, index + 1);
    }
    try {
      return await searchMaxRate({
        load: params.load,
        recipients: params.recipients,
        ceiling: this.#ceilings.get(generatorKey(configuration)) ?? Infinity,
        probe: (load) => once(load, 1),
        signal: options.signal,
      });
    } catch (error) {
      if (!options.signal?.aborted) throw error;
      return undefined;
    }
  }

  /** Stopped early: closes the logs of the configurations cut short. */
  async closeCutShort(): Promise<void> {
    for (const state of this.#states) {
      if (state.done || state.log == null || state.runs.length === 0) continue;
      state.done = true;
      state.logSummary = await state.log.close();
      state.result = resultOf(state, this.#params);
      this.#options.onResult?.(state.result, false);
    }
  }

  /** Closes what is still open and stops the suite's own servers. */
  async release(): Promise<void> {
    for (const state of this.#states) {
      if (!state.done && state.log != null) {
        await state.log.close().catch(() => undefined);
      }
    }
    if (this.#options.services == null) await this.#services.stopAll();
  }

  /** The machine's speed at the end, and the final document, saved. */
  async finish(): Promise<ResultsDocument> {
    if (this.#calibration != null && !this.#options.signal?.aborted) {
      try {
        this.#calibration = {
          ...this.#calibration,
          end: await measureCalibration(this.#options.calibrationSlices),
        };
      } catch (error) {
        // Every configuration is measured by now: keep the results.
        console.error(
          `calibration at the end failed (${
            errorMessage(error)
          }); the results ` +
            "are kept with end: null (--no-calibrate skips calibration)",
        );
      }
    }
    await this.#refreshEnvironment();
    const final = this.#document(new Date().toISOString());
    await this.#options.save?.(final, true);
    return final;
  }

  #results(): ConfigurationResult[] {
    return this.#states.flatMap((s) => s.result == null ? [] : [s.result]);
  }

  #document(finishedAt: string | null): ResultsDocument {
    return {
      schemaVersion: SCHEMA_VERSION,
      startedAt: this.#startedAt,
      finishedAt,
      params: this.#params,
      environment: this.#environment,
      suiteSeconds: (performance.now() - this.#began) / 1000,
      rounds: this.#rounds.filter((r) => r.length > 0).map((r) => [...r]),
      results: this.#results(),
    };
  }

  async #refreshEnvironment(): Promise<void> {
    const servers: Record<string, string> = {};
    for (const r of this.#results()) {
      if (r.server == null) continue;
      const { name, version, origin } = r.server;
      servers[name] = origin == null ? version : `${version} (${origin})`;
    }
    const { commit, noCommitReason } = this.#commit;
    const environment = await collectEnvironment({
      params: this.#params,
      packages: [
        ...new Set(this.#options.drivers.flatMap((d) => d.packages ?? [])),
      ],
      servers,
      commit,
      noCommitReason,
      command: this.#options.command ?? null,
    });
    this.#environment = this.#calibration == null
      ? environment
      : { ...environment, calibration: this.#calibration };
  }

  async #saveSoFar(): Promise<void> {
    if (this.#options.save == null) return;
    await this.#refreshEnvironment();
    await this.#options.save(this.#document(null), false);
  }
}
