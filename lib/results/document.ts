/**
 * The results document itself: the suite's parameters, one result per
 * configuration (its runs, spread and outliers), and the environment.
 *
 * @module
 */
import type {
  FanoutMode,
  InboxProfile,
  OrderingKey,
  ParallelImpl,
  RuntimeName,
  Workload,
} from "./configuration.ts";
import type { Environment } from "./environment_record.ts";
import type { Spread } from "./figures.ts";
import type { LoadParams } from "./load_record.ts";
import type { RunResult } from "./run.ts";

/** A run whose figure deviates strongly from the other runs. */
export interface Outlier {
  /**
   * Index into {@link ConfigurationResult.runs}.
   * @minimum 0
   * @asType integer
   */
  readonly run: number;
  /** The figure, e.g. `totalSeconds`. */
  readonly metric: string;
  /** The run's value. */
  readonly value: number;
  /** The median over all runs. */
  readonly median: number;
}

/**
 * The outcome of one configuration.  With several runs, the top-level
 * figures are medians over the runs, `status` is the worst of them, and
 * {@link spread} gives each figure's min and max.
 */
export interface ConfigurationResult extends RunResult {
  /**
   * e.g. `redis-x4`.
   * @minLength 1
   */
  readonly id: string;
  /**
   * Driver name ({@link BASELINE_DRIVER} for the direct-delivery floor).
   * @minLength 1
   */
  readonly driver: string;
  /**
   * `ParallelMessageQueue` workers (1: no wrapper).
   * @minimum 1
   * @asType integer
   */
  readonly parallelism: number;
  /** Fedify's fanout option this configuration used. */
  readonly fanout?: FanoutMode;
  /** RSA modulus length of the sender's key in this configuration. */
  readonly rsaBits?: number;
  /** The ordering key this configuration passed, when keys are swept. */
  readonly orderingKey?: OrderingKey;
  /**
   * The parallel wrapper around the driver's queue (parallelism above 1):
   * Fedify's `ParallelMessageQueue`, or `awaiting`, ours that acknowledges
   * after processing (lib/queue/awaiting_parallel_queue.ts).
   */
  readonly parallelImpl?: ParallelImpl;
  /** Per-run figures, in run order. */
  readonly runs?: readonly RunResult[];
  /** Min and max of each numeric figure over the `ok` runs. */
  readonly spread?: Readonly<Record<string, Spread>>;
  /** Runs that deviate strongly from the others. */
  readonly outliers?: readonly Outlier[];
}

/** Parameters every configuration of a suite shares. */
export interface SuiteParams {
  /** How the fake inbox behaves; an instant, always-202 inbox when absent. */
  readonly inbox?: InboxProfile;
  /**
   * Activities per configuration.
   * @minimum 1
   * @asType integer
   */
  readonly total: number;
  /**
   * Recipients per activity.
   * @minimum 1
   * @asType integer
   */
  readonly recipients: number;
  /** Fedify's fanout option. */
  readonly fanout: FanoutMode;
  /** RSA modulus length of the sender's key. */
  readonly rsaBits: number;
  /**
   * Time limit per configuration, in seconds.
   * @exclusiveMinimum 0
   */
  readonly timeoutSeconds: number;
  /**
   * Stall window, in seconds.
   * @exclusiveMinimum 0
   */
  readonly stallTimeoutSeconds: number;
  /**
   * Per-row budget in seconds as asked (`--budget`): a run still delivering
   * when it is reached, or sure not to finish within it, is stopped and
   * reported `incomplete` with an estimate.  Absent when no budget was
   * given: each row then runs to its end or {@link timeoutSeconds}.  What a
   * row was held to is resolved from it and {@link untilDone}, which lifts
   * it (`resolvedBudget` in lib/run/budget.ts).  In files of runs that
   * budgeted each row by the `none` row's time, it is the budget resolved
   * from {@link budgetOfNone} or {@link budgetFallback}.
   * @exclusiveMinimum 0
   */
  readonly budgetSeconds?: number;
  /**
   * In files of runs that budgeted each row by the `none` row's time:
   * {@link budgetSeconds} was this many times that row's total.  The bench
   * no longer writes it; the reports still read it.
   * @exclusiveMinimum 0
   */
  readonly budgetOfNone?: number;
  /**
   * In files of runs that budgeted each row by the `none` row's time: why
   * {@link budgetSeconds} was a fixed 80 s instead.  The bench no longer
   * writes it; the reports still read it.
   */
  readonly budgetFallback?: string;
  /** `--until-done`: no budget; every run goes to its end or time limit. */
  readonly untilDone?: boolean;
  /**
   * `false` with `--no-early-stop`: no run was stopped on its estimate,
   * only at its end, a stall, its budget or its time limit.  Absent: the
   * early stop applied.
   */
  readonly earlyStop?: boolean;
  /**
   * Runs per configuration; top-level figures are medians over them.
   * @minimum 1
   * @asType integer
   */
  readonly runs?: number;
  /**
   * Worker processes per queue shared between processes (default 1).
   * @minimum 1
   * @asType integer
   */
  readonly workers?: number;
  /**
   * Axes swept within the suite; each configuration records its own value.
   * `fanout` and `rsaBits` above are the first of each.
   */
  readonly axes?: {
    /**
     * @minItems 1
     */
    readonly fanout: readonly FanoutMode[];
    /**
     * @minItems 1
     */
    readonly rsaBits: readonly number[];
    /**
     * Absent in results written before ordering keys: `["none"]`.
     * @minItems 1
     */
    readonly orderingKey?: readonly OrderingKey[];
  };
  /** What the sender sends; `create` when absent. */
  readonly workload?: Workload;
  /**
   * The ordering key of every `sendActivity`; `none` when absent.  With
   * several (`axes.orderingKey`), the first.
   */
  readonly orderingKey?: OrderingKey;
  /**
   * Parallel wrappers each configuration above parallelism 1 runs with;
   * `["fedify"]` when absent.  A list sweeps them.
   * @minItems 1
   */
  readonly parallelImpl?: readonly ParallelImpl[];
  /**
   * The runtimes the app's processes run on (`--runtime`); `["deno"]` when
   * absent.  A list sweeps them.
   * @minItems 1
   */
  readonly runtime?: readonly RuntimeName[];
  /**
   * The cores the app's processes are pinned to (`--cpus`); absent: every
   * core.  A list sweeps them.
   * @minItems 1
   */
  readonly cpus?: readonly number[];
  /**
   * The round trips, ms, a delay proxy adds between the app and its queue
   * server (`--queue-rtt`); absent: no proxy.  A list sweeps them.
   * @minItems 1
   */
  readonly queueRttMs?: readonly number[];
  /**
   * Hosts of their own (network namespaces) the workers are spread over
   * (`--worker-hosts`); absent: the bench's host.  A list sweeps them.
   * @minItems 1
   */
  readonly workerHosts?: readonly number[];
  /**
   * Where the workers ran besides the bench's host (`--agents`): agents'
   * `HOST:PORT,…`, or `swarm:SERVICE`; absent: the bench's host.
   */
  readonly agents?: string;
  /** The agent the sender ran on (`--sender-agent`), `HOST:PORT`. */
  readonly senderAgent?: string;
  /**
   * The worker processes of each row in place of `workers` (`--scale`),
   * one agent each with `agents`; absent: `workers`.  A list sweeps them.
   * @minItems 1
   */
  readonly scale?: readonly number[];
  /**
   * With `agents`, where the workers ran (`--placement`): on the agents, on
   * the bench's host, or both; absent: on the agents.
   * @minItems 1
   */
  readonly placement?: readonly ("agents" | "local")[];
  /**
   * Cores of CPU time each worker process the bench ran itself was held to
   * (`--worker-cpu-limit`); absent: no limit.
   * @exclusiveMinimum 0
   */
  readonly workerCpuLimit?: number;
  /** Lowest level of Fedify's log kept; `warning` when absent. */
  readonly logLevel?:
    | "trace"
    | "debug"
    | "info"
    | "warning"
    | "error"
    | "fatal";
  /** Crash tests: the share of deliveries after which to kill. */
  readonly crash?: {
    /**
     * Kill the consuming process(es) with SIGKILL and start fresh ones.
     * @maximum 1
     * @exclusiveMinimum 0
     */
    readonly workerAt?: number;
    /**
     * Kill the queue server the bench started and restart it on its data.
     * @maximum 1
     * @exclusiveMinimum 0
     */
    readonly serverAt?: number;
  };
  /**
   * Steady-load settings; absent for a burst suite (every activity sent at
   * once, then drained).
   */
  readonly load?: LoadParams;
  /** The scenario preset the parameters came from, if any. */
  readonly scenario?: string;
  /**
   * The seed of the order each round runs its configurations in
   * (`--order-seed`; a random one, recorded here, when not given).  The
   * order itself is the document's `rounds`.
   * @minimum 0
   * @asType integer
   */
  readonly orderSeed?: number;
  /**
   * `--sample-depth`: runs sampled `getDepth()` and report its error
   * (`RunResult.depth`); absent when off.
   */
  readonly sampleDepth?: boolean;
  /**
   * `--no-stages`: `false` when runs did not time each delivery's stages;
   * absent when they did (the default).
   */
  readonly stages?: boolean;
}

/**
 * The schema version `deno task bench` writes: 2, whose files always carry
 * `suiteSeconds` and, once the environment is recorded,
 * `environment.commit` and `environment.command`.  Files of version 1 may
 * lack them; {@link READABLE_SCHEMA_VERSIONS} lists what is read.
 */
export const SCHEMA_VERSION = 2;

/** The schema versions this project reads: 1 (older files) and 2. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, SCHEMA_VERSION];

/** The whole results file. */
export interface ResultsDocument {
  /**
   * {@link SCHEMA_VERSION} in files written now; 1 in older files, whose
   * provenance fields may be absent.
   */
  readonly schemaVersion: 1 | 2;
  /**
   * ISO 8601.
   * @format date-time
   */
  readonly startedAt: string;
  /**
   * ISO 8601; `null` while the suite is still running.
   * @format date-time
   */
  readonly finishedAt: string | null;
  /** The suite's parameters. */
  readonly params: SuiteParams;
  /** Where it ran; absent in files written before it was recorded. */
  readonly environment?: Environment;
  /**
   * The suite's wall time so far, in seconds: from its start (before the
   * first calibration) to this write; at the end, the whole suite.  With
   * `--resume`, this invocation's only.  Absent in files written before it
   * was recorded.
   * @minimum 0
   */
  readonly suiteSeconds?: number;
  /**
   * The order the configurations ran in: one array of result ids per
   * round (a round runs every configuration once; round 2 holds every
   * configuration's second run), each in the order measured.  Ids kept
   * from `--resume` are not in it.  Absent in files written before it was
   * recorded.
   */
  readonly rounds?: readonly (readonly string[])[];
  /**
   * When `deno task remodel` applied a later model to the rows' recorded
   * figures: when, this project's commit then (the code of the model
   * fields; `environment.commit` stays the measurement's), and which rows.
   * Absent when the model fields are the measurement's own.
   */
  readonly remodelled?: {
    /**
     * @format date-time
     */
    readonly at: string;
    readonly commit: { readonly sha: string; readonly dirty: boolean } | null;
    readonly ids: readonly string[];
  };
  /**
   * One entry per configuration, in the suite's order of configurations
   * (baseline, then each driver as listed); {@link rounds} says in which
   * order they ran.
   */
  readonly results: readonly ConfigurationResult[];
}
