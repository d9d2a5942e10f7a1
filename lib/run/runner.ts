/**
 * Runs one configuration once, end to end: starts the inbox, the worker(s)
 * and the sender as separate processes, starts the clock once all are ready,
 * waits (bounded) until every expected delivery has arrived, stops
 * everything, and accounts for every delivery.
 *
 * Its parts: `processes.ts` starts, replaces and measures the processes;
 * `crashes.ts` strikes crash tests and restarts workers; `watch.ts` decides
 * when the run is done, stalled, out of time or stopped by its budget
 * (`budget.ts`); `deployment.ts` pins the app to fewer cores (`--cpus`)
 * puts delay proxies between it and its queue server (`--queue-rtt`) and
 * its workers on hosts of their own (`--worker-hosts`);
 * `outcome.ts` builds the result from what the run observed.
 *
 * Nothing here knows any driver by name: a driver's `crossProcess` flag says
 * whether separate workers consume its queue, its `service` says which
 * server it needs, and `quietPeriodSeconds` widens stall detection.
 *
 * @module
 */
import type { InboxClient } from "../../fake_inbox/inbox_client.ts";
import type { InboxArrivals, InboxStats } from "../../fake_inbox/protocol.ts";
import type { Driver, PreparedQueue } from "../../drivers/driver.ts";
import type { LogSpec } from "../child/fedify_log.ts";
import { now } from "../ipc/child_io.ts";
import type { SentMessage } from "../ipc/messages.ts";
import type { QueueSpec } from "../child/queue.ts";
import type { SenderSpec } from "../child/specs.ts";
import type {
  EstimateRecord,
  IdleRecord,
  Implementation,
  RunResult,
  RuntimeIdentity,
  ServerRecord,
  SuiteParams,
} from "../results/mod.ts";
import type { AppLauncher, ServiceManager } from "../services/mod.ts";
import { errorMessage } from "../results/error_message.ts";
import { redactSecrets } from "../../drivers/mod.ts";
import { leftovers } from "../system/leftovers.ts";
import { sleep } from "../system/sleep.ts";
import { roundTo } from "../measure/stats.ts";
import { arrivalSchedule } from "../workload/arrivals.ts";
import type { RunLoad } from "../workload/plan.ts";
import { CrashInjector } from "./crashes.ts";
import { orderingKeyOf, orderingRecord } from "./ordering_outcome.ts";
import { stepsPerObject } from "../workload/ordering.ts";
import { resolvedBudget, type RunLimits } from "./budget.ts";
import { buildRunResult, type RunEnd } from "./outcome.ts";
import { gatherDepth } from "./depth_outcome.ts";
import { deadRecipients } from "../../fake_inbox/dead.ts";
import { INSTANT_INBOX } from "../params/mod.ts";
import { RunProcesses } from "./processes.ts";
import { RunDeployment } from "./deployment.ts";
import {
  type Progress,
  ProgressWatch,
  stallReason,
  type Verdict,
} from "./watch.ts";

import type { Configuration } from "./configurations.ts";

/** How often the runner asks the inbox for its counters. */
const POLL_MS = 250;

/**
 * Fedify's fanout threshold (`FANOUT_THRESHOLD` in its middleware): with
 * `fanout: "auto"`, an activity to at least this many inboxes goes through
 * one fanout message.  Every recipient here has an inbox of its own.
 */
export const FANOUT_THRESHOLD = 5;
/** How long an idle measurement lets the processes settle after start-up. */
const IDLE_SETTLE_MS = 2_000;

/** What {@link runOnce} needs besides the configuration. */
export interface RunContext {
  /** Configuration id, for progress reports. */
  readonly id: string;
  /** The suite's parameters. */
  readonly params: SuiteParams;
  /** Starts or connects to queue servers. */
  readonly services: ServiceManager;
  /** User driver modules that child processes must load too. */
  readonly driverModules: readonly string[];
  /**
   * The runtime the app's processes (the sender and the workers) run on,
   * ready to start them; Deno when absent.
   */
  readonly launcher?: AppLauncher;
  /** Aborts the run (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Which run this is (1-based) and of how many, for progress reports. */
  readonly run?: { readonly index: number; readonly of: number };
  /** Called about every second while waiting. */
  readonly onProgress?: (progress: Progress) => void;
  /** Where the sender and workers append Fedify's log; none when absent. */
  readonly log?: LogSpec;
  /** What the run sends; a burst of `params.total` when absent. */
  readonly load?: RunLoad;
}

/** Stall window for a driver: the user's, widened past the driver's quiet period. */
export function stallWindowSeconds(
  driver: Driver,
  stallTimeout: number,
): number {
  const quiet = driver.quietPeriodSeconds ?? 0;
  return Math.max(stallTimeout, Math.ceil(quiet * 1.5));
}

/** Runs one configuration once and returns its result; never throws. */
export async function runOnce(
  configuration: Configuration,
  context: RunContext,
): Promise<RunResult> {
  return await new Run(configuration, context).execute();
}

function newRunId(): string {
  const random = crypto.getRandomValues(new Uint8Array(4));
  return `r${Date.now().toString(36)}${
    Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

/** One run of a configuration, and what it has observed so far. */
class Run {
  readonly #configuration: Configuration;
  readonly #context: RunContext;
  readonly #expected: number;
  /** Recipients whose inbox fails every request (`--inbox-dead-rate`). */
  readonly #deadRecipients: readonly number[];
  /** Activities the sender sends. */
  readonly #total: number;
  /** A rate run's schedule, ms from the start of sending. */
  readonly #schedule: number[] | undefined;
  readonly #timeoutSeconds: number;
  readonly #stallSeconds: number;
  readonly #workers: number;
  readonly #processes: RunProcesses;
  readonly #crashes: CrashInjector;
  readonly #deployment: RunDeployment;
  #server: ServerRecord | null = null;
  #prepared: PreparedQueue | undefined;
  #inbox: InboxClient | undefined;
  #implementation: Implementation | null = null;
  /** The runtime the sender reported running on. */
  #runtime: RuntimeIdentity | null = null;
  #stats: InboxStats | undefined;
  #sent: SentMessage | undefined;
  #arrivals: InboxArrivals | undefined;
  #idle: IdleRecord | undefined;
  /** The burst's watch, once waiting began: it knows when the queue filled. */
  #watch: ProgressWatch | undefined;

  constructor(configuration: Configuration, context: RunContext) {
    const { driver } = configuration;
    const { params, services, load } = context;
    this.#configuration = configuration;
    this.#context = context;
    this.#schedule = load?.kind === "rate" ? arrivalSchedule(load) : undefined;
    this.#total = load?.kind === "idle"
      ? 0
      : load?.kind === "senders" && load.total != null
      ? load.total
      : this.#schedule?.length ?? params.total;
    this.#deadRecipients = deadRecipients(
      params.inbox ?? INSTANT_INBOX,
      params.recipients,
    );
    this.#expected = configuration.generator
      ? 0
      : this.#total * (params.recipients - this.#deadRecipients.length);
    this.#timeoutSeconds = load?.kind === "rate"
      ? Math.min(
        params.timeoutSeconds,
        load.durationSeconds + load.drainSeconds,
      )
      : params.timeoutSeconds;
    this.#stallSeconds = stallWindowSeconds(
      driver,
      params.stallTimeoutSeconds,
    );
    this.#workers = driver.crossProcess && driver.open != null
      ? Math.max(1, configuration.workers ?? params.workers ?? 1)
      : 0;
    this.#processes = new RunProcesses(context.signal);
    this.#deployment = new RunDeployment(configuration, params);
    const service = driver.service;
    this.#crashes = new CrashInjector({
      plan: params.crash,
      expected: this.#expected,
      processes: this.#processes,
      crashServer: service == null ? undefined : async () => {
        const { restartedPid } = await services.crash(service);
        await this.#deployment.repinServer(restartedPid);
      },
    });
  }

  /** Runs, stops everything, cleans up; never throws. */
  async execute(): Promise<RunResult> {
    const context = this.#context;
    const tempDir = await leftovers.makeTempDir("run");
    try {
      const inbox = await this.#start(tempDir);
      if (context.load?.kind === "idle") {
        return await this.#watchIdle(context.load.seconds);
      }
      return await this.#wait(inbox);
    } catch (error) {
      if (context.signal?.aborted) return await this.#incomplete("interrupted");
      const message = errorMessage(error);
      return this.#result({ status: "failed", reason: redactSecrets(message) });
    } finally {
      await this.#processes.stopAll();
      try {
        await this.#prepared?.cleanup();
      } catch (error) {
        console.error(redactSecrets(`${context.id}: cleanup failed: ${error}`));
      }
      // After the cleanup, which reaches the server through the proxy too.
      try {
        await this.#deployment.close();
      } catch (error) {
        console.error(
          `${context.id}: the deployment's proxies or pinning could not be ` +
            `undone: ${errorMessage(error)}`,
        );
      }
      await leftovers.removeTempDir(tempDir);
    }
  }

  /**
   * Acquires the queue server, prepares the queue, starts every process,
   * takes the first readings and tells the sender to go.
   */
  async #start(tempDir: string): Promise<InboxClient> {
    const { driver } = this.#configuration;
    const context = this.#context;
    const { params } = context;
    const runId = newRunId();
    const deployment = this.#deployment;
    await deployment.start(this.#workers, context.signal);
    const serviceUrl = await this.#acquireServer();
    this.#prepared = await driver.prepare?.({ runId, tempDir, serviceUrl });
    const inbox = await this.#processes.startInbox({
      runId,
      total: this.#expected === 0 ? 0 : this.#total,
      recipients: params.recipients,
      profile: params.inbox,
      stepsPerObject: stepsPerObject(params.workload),
    }, deployment.inboxLauncher());
    this.#inbox = inbox;
    // Each role's connections through its own proxy with --queue-rtt.
    const configs = deployment.configs(this.#prepared?.config ?? null);
    const queue = this.#queueSpec(configs.sender);
    const sender = this.#senderSpec(runId, queue, inbox);
    await this.#processes.startApp({
      launcher: deployment.senderLauncher(context.launcher),
      workerLauncher: (index) =>
        deployment.workerLauncher(context.launcher, index),
      workers: this.#workers,
      worker: { queue: { ...queue, config: configs.worker }, log: context.log },
      sender,
    });
    // The process that consumes the queue opened it first; it says which
    // implementation the driver's specifier resolved to.
    this.#implementation = this.#processes.implementation();
    this.#runtime = this.#processes.runtime();
    this.#checkRuntime();
    // Every process is ready: measure from here.
    await this.#processes.startMeasuring();
    deployment.startWindow();
    await this.#processes.go();
    return inbox;
  }

  /**
   * The driver's queue server, acquired and pinned, its process measured;
   * its URL as the app reaches it (through the delay proxies with
   * `--queue-rtt`), or `undefined` for a driver without a server.
   */
  async #acquireServer(): Promise<string | undefined> {
    const { driver } = this.#configuration;
    if (driver.service == null) return undefined;
    const acquired = await this.#context.services.acquire(
      driver.service,
      this.#context.signal,
    );
    await this.#deployment.pinServer(driver.service, acquired);
    this.#server = {
      name: driver.service.name,
      version: acquired.version,
      startedByBench: acquired.startedByBench,
      origin: acquired.origin,
    };
    if (acquired.pid != null) this.#processes.measureServer(acquired.pid);
    return this.#deployment.route(acquired.url);
  }

  /** The queue the app's processes open, with the sender's configuration. */
  #queueSpec(config: QueueSpec["config"]): QueueSpec {
    const { driver, parallelism } = this.#configuration;
    return {
      driver: driver.name,
      driverModules: this.#context.driverModules,
      config,
      parallelism,
      parallelImpl: this.#configuration.parallelImpl,
      // The counting wrapper only where something reads its log: a queue
      // with getDepth() to judge, or a delayed backlog to count.
      ...((this.#sampleDepth() && driver.depth != null) ||
          this.#countDelayed()
        ? { count: true }
        : {}),
      ...(this.#sampleDepth() || this.#countDelayed()
        ? { sampleDepth: true }
        : {}),
      ...(this.#timeStages() ? { stages: true } : {}),
    };
  }

  /** What the sender is told: what to send, where, and how. */
  #senderSpec(
    runId: string,
    queue: QueueSpec,
    inbox: InboxClient,
  ): SenderSpec {
    const context = this.#context;
    const { params, load } = context;
    const configuration = this.#configuration;
    const deployment = this.#deployment;
    return {
      runId,
      total: this.#total,
      recipients: params.recipients,
      // With --worker-hosts the workers post to the inboxes through
      // forwarders their hosts reach; the URLs are in the sender's messages.
      inboxOrigin: deployment.inboxOrigin(inbox.origin),
      queue,
      consume: this.#workers === 0,
      fanout: configuration.fanout ?? params.fanout,
      workload: params.workload,
      orderingKey: orderingKeyOf(configuration, params),
      rsaBits: configuration.rsaBits ?? params.rsaBits,
      direct: configuration.direct
        ? { concurrency: configuration.parallelism }
        : undefined,
      log: context.log,
      ...(inbox.deadOrigin == null ? {} : {
        deadInboxes: {
          origin: deployment.inboxOrigin(inbox.deadOrigin),
          recipients: this.#deadRecipients,
        },
      }),
      schedule: load?.kind === "rate" ? load : undefined,
      senders: load?.kind === "senders" ? load.senders : undefined,
      discard: configuration.generator,
      idle: load?.kind === "idle",
    };
  }

  /** Throws when the sender runs on another runtime than the one asked. */
  #checkRuntime(): void {
    const asked = this.#context.launcher?.runtime;
    if (
      asked != null && this.#runtime != null &&
      (asked.name !== this.#runtime.name ||
        asked.version !== this.#runtime.version)
    ) {
      throw new Error(
        `the app was to run on ${asked.name} ${asked.version}, but its ` +
          `sender runs on ${this.#runtime.name} ${this.#runtime.version}`,
      );
    }
  }

  /** Polls until the run is done, stalled or out of time. */
  async #wait(inbox: InboxClient): Promise<RunResult> {
    const context = this.#context;
    const watch = new ProgressWatch({
      id: context.id,
      run: context.run?.index ?? 1,
      runs: context.run?.of ?? 1,
      expected: this.#expected,
      stallSeconds: this.#stallSeconds,
      timeoutSeconds: this.#timeoutSeconds,
      startMs: performance.now(),
      onProgress: context.onProgress,
      limits: this.#limits(),
      dequeueMsPerQueued: this.#configuration.driver.dequeueMsPerQueued,
      backlogCause: this.#configuration.driver.backlogCause,
      parallelism: this.#configuration.parallelism,
      fansOut: this.#fansOut(),
    });
    this.#watch = watch;
    const seen = { stageBatches: 0 };
    while (true) {
      await sleep(POLL_MS, context.signal);
      const { verdict, stats } = await this.#poll(inbox, watch, seen);
      if (verdict === "done") break;
      const ended = await this.#ended(verdict, stats, watch);
      if (ended != null) return ended;
    }
    await this.#collect();
    return this.#result({ status: "ok" });
  }

  /**
   * One poll: progress of the queue's own work, crashes to recover or to
   * strike, the inbox's counts, and the watch's verdict on them.
   */
  async #poll(
    inbox: InboxClient,
    watch: ProgressWatch,
    seen: { stageBatches: number },
  ): Promise<{ verdict: Verdict; stats: InboxStats }> {
    const sender = this.#processes.sender;
    // The queue's own work counts as progress: a worker that is still
    // fanning out (Deno KV's worker in another process, which sees what
    // it enqueued only at its next poll) has not stalled.
    const batches = this.#processes.stageBatches();
    if (batches > seen.stageBatches) {
      seen.stageBatches = batches;
      watch.touch(performance.now());
    }
    const exited = this.#processes.unexpectedExit();
    if (exited != null) {
      await this.#crashes.recover(exited, this.#stats, this.#sent);
      watch.touch(performance.now());
    }
    const error = sender.latest("error");
    if (error != null) throw new Error(`sender: ${error.message}`);
    const stats = await inbox.stats();
    this.#stats = stats;
    this.#sent ??= sender.latest("sent");
    // Crash tests strike once sending is over and a share has arrived.
    if (await this.#crashes.strike(stats, this.#sent)) {
      watch.touch(performance.now());
    }
    const verdict = watch.observe({
      nowMs: performance.now(),
      stats,
      sent: this.#sent != null
        ? this.#total
        : sender.latest("progress")?.sent ?? 0,
      sendDone: this.#sent != null,
      fanoutsHandled: this.#processes.fanoutsHandled(),
      outboxHandlerMs: this.#processes.outboxHandlerMs(),
    });
    return { verdict, stats };
  }

  /**
   * The incomplete result a verdict ends the run with (stalled, stopped
   * or timed out), or `undefined` while it goes on.
   */
  async #ended(
    verdict: Verdict,
    stats: InboxStats,
    watch: ProgressWatch,
  ): Promise<RunResult | undefined> {
    if (verdict === "stalled") {
      const { driver } = this.#configuration;
      return await this.#incomplete(stallReason({
        stallSeconds: this.#stallSeconds,
        missing: this.#expected - stats.delivered - stats.goneDeliveries,
        crashes: this.#crashes.crashes,
        driver: driver.name,
        volatile: driver.volatile,
      }));
    }
    if (verdict === "stopped") {
      const stop = watch.stop!;
      const estimate = stop.estimate;
      return await this.#incomplete(
        stop.reason,
        estimate == null ? undefined : {
          totalSeconds: estimate.totalSeconds,
          lowSeconds: estimate.lowSeconds,
          highSeconds: estimate.highSeconds,
          deliveriesPerSecond: estimate.deliveriesPerSecond,
          settled: estimate.settled,
          halfRates: estimate.halfRates,
          stoppedBy: stop.stoppedBy,
          basis: estimate.basis,
        },
      );
    }
    if (verdict === "timed out") {
      const load = this.#context.load;
      if (
        load?.kind === "rate" &&
        this.#timeoutSeconds < this.#context.params.timeoutSeconds
      ) {
        const missing = this.#expected - stats.delivered -
          stats.goneDeliveries;
        return await this.#incomplete(
          `fell behind: ${missing} of ${this.#expected} deliveries had ` +
            `not arrived ${load.drainSeconds} s after the arrival window ` +
            "closed",
        );
      }
      return await this.#incomplete(
        `timed out after ${this.#timeoutSeconds} s`,
      );
    }
    return undefined;
  }

  /**
   * The budget and time limit of a burst run (the stop rule of
   * `budget.ts`); none for steady-load runs (rates, send loops, idle),
   * which keep their own schedule or duration, and crash tests, which wait for the crash's outcome.
   */
  #limits(): RunLimits | undefined {
    const { params, load } = this.#context;
    if (load != null) return undefined;
    if (params.crash != null || this.#expected === 0) return undefined;
    return {
      budgetSeconds: resolvedBudget(params),
      timeoutSeconds: this.#timeoutSeconds,
      ...(params.earlyStop === false ? { earlyStop: false } : {}),
    };
  }

  /**
   * The idle measurement: lets the processes settle, then reads each one's
   * CPU time, memory and wake-ups across `seconds` with nothing sent.
   */
  async #watchIdle(seconds: number): Promise<RunResult> {
    const signal = this.#context.signal;
    await sleep(IDLE_SETTLE_MS, signal);
    await this.#processes.startIdle();
    await sleep(seconds * 1000, signal);
    this.#idle = await this.#processes.idle(seconds);
    await this.#collect();
    return this.#result({ status: "ok" });
  }

  /** Final readings, taken while every process is still running. */
  async #collect(): Promise<void> {
    await this.#processes.finishMeasuring();
    await this.#deployment.endWindow();
    if (this.#timeStages()) await this.#processes.flushStages();
    if (this.#inbox == null) return;
    try {
      this.#stats = await this.#inbox.stats();
      this.#arrivals = await this.#inbox.arrivals();
    } catch { /* the inbox is gone; keep the last counters */ }
  }

  async #incomplete(
    reason: string,
    estimate?: EstimateRecord,
  ): Promise<RunResult> {
    await this.#collect();
    return this.#result({
      status: "incomplete",
      reason,
      endedAt: now(),
      ...(estimate == null ? {} : { estimate }),
    });
  }

  #result(end: RunEnd): RunResult {
    const { params } = this.#context;
    const ordering = orderingRecord(this.#configuration, params, this.#stats);
    const result = buildRunResult({
      end,
      expected: this.#expected,
      recipients: params.recipients,
      crashTest: params.crash != null,
      stats: this.#stats,
      arrivals: this.#arrivals,
      sent: this.#sent,
      crashes: this.#crashes.crashes,
      restarts: this.#crashes.restarts,
      processes: this.#processes.measured(),
      depth: this.#processes.depthSamples(),
      workers: this.#workers,
      stallTimeoutSeconds: this.#stallSeconds,
      timeoutSeconds: this.#timeoutSeconds,
      server: this.#server,
      implementation: this.#implementation,
      runtime: this.#runtime,
      ...(this.#configuration.driver.dequeueMsPerQueued == null ? {} : {
        dequeueMsPerQueued: this.#configuration.driver.dequeueMsPerQueued,
      }),
      started: this.#processes.senderStarted(),
      load: this.#context.load,
      schedule: this.#schedule,
      idle: this.#idle,
      ...(this.#timeStages()
        ? {
          stages: {
            processes: this.#processes.stageMessages(),
            parallelism: this.#configuration.parallelism,
            fedifyParallel: this.#configuration.parallelism > 1 &&
              (this.#configuration.parallelImpl ?? "fedify") !== "awaiting",
            hasQueue: this.#configuration.driver.open != null,
            ...(this.#configuration.driver.removes == null
              ? {}
              : { removes: this.#configuration.driver.removes }),
            cores: this.#deployment.cores,
            ...this.#deployment.consumerCpuLimit(),
          },
        }
        : {}),
      ...(this.#sampleDepth()
        ? {
          depthCheck: gatherDepth(
            this.#configuration.driver.depth != null,
            this.#processes.depthMessages(),
            now(),
          ),
        }
        : {}),
      ...(this.#countDelayed()
        ? {
          delayedCheck: {
            deadRate: params.inbox?.deadRate ?? 0,
            deadRecipients: this.#deadRecipients.length,
            deadAttempts: this.#stats?.deadAttempts ?? 0,
            reportsDelayed:
              this.#configuration.driver.depth === "ready-and-delayed",
            queue: gatherDepth(
              this.#configuration.driver.depth != null,
              this.#processes.depthMessages(),
              now(),
            ),
          },
        }
        : {}),
    });
    const deployed = {
      ...result,
      ...this.#filledAtField(),
      ...this.#deployment.fields(
        this.#stats?.delivered ?? 0,
        this.#workers,
        result.processes ?? [],
        result.latencyMs?.p50 ?? null,
      ),
    };
    return ordering == null ? deployed : { ...deployed, ordering };
  }

  /**
   * `filledAtSeconds`: when the queue filled, on the clock of the row's
   * other times (from the first `sendActivity` call); absent for a run that
   * does not fan out.
   */
  #filledAtField(): { filledAtSeconds?: number | null } {
    const watch = this.#watch;
    const filled = watch?.filledAtSeconds;
    if (filled === undefined) return {};
    const start = this.#sent?.sendStart ?? this.#processes.senderStarted();
    if (filled === null || start == null) return { filledAtSeconds: null };
    // The watch counts from its own start on the performance clock, whose
    // epoch is `now()`'s: the same instant in the sender's epoch ms.
    const epoch = performance.timeOrigin + watch!.startMs + filled * 1000;
    return {
      filledAtSeconds: roundTo(Math.max(0, epoch - start) / 1000, 3),
    };
  }

  /** Whether this run logs its queue for the delayed backlog: dead inboxes. */
  #countDelayed(): boolean {
    const { driver, direct, generator } = this.#configuration;
    return this.#deadRecipients.length > 0 && !direct && !generator &&
      driver.open != null;
  }

  /**
   * Whether this run times each delivery's stages: on (the default), and
   * Fedify sends (not the baseline's direct POSTs, not the generator's
   * discarding queue, not an idle run).
   */
  #timeStages(): boolean {
    const { direct, generator } = this.#configuration;
    return this.#context.params.stages !== false && !direct && !generator &&
      this.#context.load?.kind !== "idle";
  }

  /**
   * Whether this run's activities each go through a fanout message whose
   * handling the bench counts: its stages are timed, it has a queue, and
   * Fedify fans out (`--fanout force`, or `auto` with at least
   * {@link FANOUT_THRESHOLD} recipients).
   */
  #fansOut(): boolean {
    const { params } = this.#context;
    const mode = this.#configuration.fanout ?? params.fanout;
    return this.#timeStages() && this.#configuration.driver.open != null &&
      (mode === "force" ||
        (mode === "auto" && params.recipients >= FANOUT_THRESHOLD));
  }

  /** Whether this run samples `getDepth()`: asked, and it has a queue. */
  #sampleDepth(): boolean {
    const { driver, direct, generator } = this.#configuration;
    return this.#context.params.sampleDepth === true && !direct &&
      !generator && driver.open != null;
  }
}
