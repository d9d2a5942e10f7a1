/**
 * Runs one configuration once, end to end: starts the inbox, the worker(s)
 * and the sender as separate processes, starts the clock once all are ready,
 * waits (bounded) until every expected delivery has arrived, stops
 * everything, and accounts for every delivery.
 *
 * Nothing here knows any driver by name: a driver's `crossProcess` flag says
 * whether separate workers consume its queue, its `service` says which
 * server it needs, and `quietPeriodSeconds` widens stall detection.
 *
 * @module
 */
import type {
  InboxArrivals,
  InboxOptions,
  InboxStats,
} from "../../fake_inbox/server.ts";
import type { ParallelImpl } from "../queue/awaiting_parallel_queue.ts";
import type { Driver, PreparedQueue } from "../../drivers/driver.ts";
import type { LogSpec } from "../child/fedify_log.ts";
import { percentiles } from "../measure/histogram.ts";
import { leftovers } from "../system/leftovers.ts";
import type { Implementation } from "../measure/implementation.ts";
import { Child } from "../system/process.ts";
import {
  type ProcessSample,
  resetPeakRss,
  sampleProcess,
  sampleTree,
} from "../system/procstat.ts";
import type { QueueSpec } from "../queue/spec.ts";
import type {
  CrashRecord,
  ProcessRecord,
  RestartRecord,
  RunResult,
  ServerRecord,
  SuiteParams,
} from "../results/types.ts";
import type { SenderSpec } from "../child/sender.ts";
import type { SentMessage } from "../ipc/messages.ts";
import type { ServiceManager } from "../services/mod.ts";
import { redactSecrets } from "../services/mod.ts";
import { buildTimeline } from "../measure/timeline.ts";
import type { WorkerSpec } from "../child/worker.ts";

const INBOX_SCRIPT = new URL("../../fake_inbox/server.ts", import.meta.url);
const SENDER_SCRIPT = new URL("../child/sender.ts", import.meta.url);
const WORKER_SCRIPT = new URL("../child/worker.ts", import.meta.url);

/** How long a child may take to report `ready`. */
const READY_TIMEOUT_MS = 60_000;
/** Worker restarts allowed after a server crash before the run fails. */
const MAX_RESTARTS = 8;
/** How often the runner asks the inbox for its counters. */
const POLL_MS = 250;
/** After the last expected delivery, how long to keep counting duplicates. */
const SETTLE_MS = 1_000;

/** One configuration: a driver at a parallelism. */
export interface Configuration {
  /** The driver. */
  readonly driver: Driver;
  /** `ParallelMessageQueue` workers; 1 means no wrapper. */
  readonly parallelism: number;
  /**
   * The baseline: no queue and no `sendActivity`; the sender signs and POSTs
   * every delivery itself, `parallelism` at a time.
   */
  readonly direct?: boolean;
  /** Fedify's fanout option; the suite's when absent. */
  readonly fanout?: "auto" | "skip" | "force";
  /** RSA modulus length of the sender's key; the suite's when absent. */
  readonly rsaBits?: number;
  /** The parallel wrapper above parallelism 1; Fedify's when absent. */
  readonly parallelImpl?: ParallelImpl;
}

/** The name a configuration goes by: its driver's, or `baseline`. */
export function configurationName(configuration: Configuration): string {
  return configuration.direct ? "baseline" : configuration.driver.name;
}

/** Progress of a running configuration, for live reporting. */
export interface Progress {
  /** Configuration id. */
  readonly id: string;
  /** Which run of the configuration (1-based) and of how many. */
  readonly run: number;
  /** Runs of this configuration in all. */
  readonly runs: number;
  /** Distinct deliveries so far. */
  readonly delivered: number;
  /** `total × recipients`. */
  readonly expected: number;
  /** Seconds since the first `sendActivity` call. */
  readonly elapsedSeconds: number;
  /** Deliveries per second over the last few seconds. */
  readonly currentRate: number;
  /** Activities whose `sendActivity` call returned. */
  readonly sent: number;
}

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
  /** Aborts the run (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Which run this is (1-based) and of how many, for progress reports. */
  readonly run?: { readonly index: number; readonly of: number };
  /** Called about every second while waiting. */
  readonly onProgress?: (progress: Progress) => void;
  /** Where the sender and workers append Fedify's log; none when absent. */
  readonly log?: LogSpec;
}

/** Stall window for a driver: the user's, widened past the driver's quiet period. */
export function stallWindowSeconds(
  driver: Driver,
  stallTimeout: number,
): number {
  const quiet = driver.quietPeriodSeconds ?? 0;
  return Math.max(stallTimeout, Math.ceil(quiet * 1.5));
}

function newRunId(): string {
  const random = crypto.getRandomValues(new Uint8Array(4));
  return `r${Date.now().toString(36)}${
    Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

class RunFailure extends Error {}

/** A process being measured: its record and CPU at the start of sending. */
interface Measured {
  readonly role: string;
  readonly pid: number;
  readonly tree: boolean;
  start?: ProcessSample | null;
  end?: ProcessSample | null;
}

/** Runs one configuration once and returns its result; never throws. */
export async function runOnce(
  configuration: Configuration,
  context: RunContext,
): Promise<RunResult> {
  const { driver, parallelism } = configuration;
  const { params } = context;
  const expected = params.total * params.recipients;
  const stallSeconds = stallWindowSeconds(driver, params.stallTimeoutSeconds);
  const workerCount = driver.crossProcess && driver.open != null
    ? Math.max(1, params.workers ?? 1)
    : 0;
  const children: Child[] = [];
  const measured: Measured[] = [];
  let server: ServerRecord | null = null;
  let prepared: PreparedQueue | undefined;
  const tempDir = await leftovers.makeTempDir("run");
  let stats: InboxStats | undefined;
  let sent: SentMessage | undefined;
  let sendStart: number | undefined;
  let arrivals: InboxArrivals | undefined;
  let inboxOrigin: string | undefined;
  let implementation: Implementation | null = null;
  const spawn = (role: string, script: URL, spec: unknown): Child => {
    const child = Child.spawn({ role, script, spec });
    children.push(child);
    measured.push({ role, pid: child.pid, tree: false });
    return child;
  };
  const killedOnPurpose = new Set<Child>();
  const crashes: CrashRecord[] = [];
  const restarts: RestartRecord[] = [];
  let workerCrashed = false;
  let serverCrashed = false;
  const crashRecord = (target: "worker" | "server"): CrashRecord => ({
    target,
    atSeconds: sendStart == null
      ? 0
      : round((epochNow() - sendStart) / 1000, 3),
    deliveredBefore: stats?.delivered ?? 0,
  });
  const depthSamples = (): [number, number][] =>
    children.flatMap((c) =>
      c.all("depth").map((m): [number, number] => [m.at, m.queued])
    );
  try {
    const runId = newRunId();
    let serviceUrl: string | undefined;
    if (driver.service != null) {
      const acquired = await context.services.acquire(
        driver.service,
        context.signal,
      );
      serviceUrl = acquired.url;
      server = {
        name: driver.service.name,
        version: acquired.version,
        startedByBench: acquired.startedByBench,
      };
      if (acquired.pid != null) {
        measured.push({ role: "server", pid: acquired.pid, tree: true });
      }
    }
    prepared = await driver.prepare?.({ runId, tempDir, serviceUrl });

    const inbox = spawn(
      "inbox",
      INBOX_SCRIPT,
      {
        runId,
        total: params.total,
        recipients: params.recipients,
        profile: params.inbox,
      } satisfies InboxOptions,
    );
    const ready = await inbox.waitFor(
      "ready",
      READY_TIMEOUT_MS,
      context.signal,
    );
    inboxOrigin = `http://127.0.0.1:${ready.port}`;

    const queue: QueueSpec = {
      driver: driver.name,
      driverModules: context.driverModules,
      config: prepared?.config ?? null,
      parallelism,
      parallelImpl: configuration.parallelImpl,
    };
    const spawnWorker = (index: number) =>
      spawn(
        "worker",
        WORKER_SCRIPT,
        {
          queue,
          reportDepth: index === 0,
          log: context.log,
        } satisfies WorkerSpec,
      );
    const startWorkers = () =>
      Array.from({ length: workerCount }, (_, i) => spawnWorker(i));
    let workers = startWorkers();
    const senderSpec: SenderSpec = {
      runId,
      total: params.total,
      recipients: params.recipients,
      inboxOrigin,
      queue,
      consume: workerCount === 0,
      fanout: configuration.fanout ?? params.fanout,
      rsaBits: configuration.rsaBits ?? params.rsaBits,
      direct: configuration.direct ? { concurrency: parallelism } : undefined,
      log: context.log,
    };
    const sender = spawn("sender", SENDER_SCRIPT, senderSpec);
    /** The process that consumes the queue when no worker does. */
    let consumer = sender;
    await Promise.all(
      [...workers, sender].map((c) =>
        c.waitFor("ready", READY_TIMEOUT_MS, context.signal)
      ),
    );

    // The process that consumes the queue opened it first; it says which
    // implementation the driver's specifier resolved to.
    implementation = (workers[0] ?? sender).latest("ready")
      ?.implementation ?? null;

    // Every process is ready: measure from here.
    for (const m of measured) {
      if (m.tree) resetPeakRss(m.pid);
      m.start = m.tree ? sampleTree(m.pid) : sampleProcess(m.pid);
    }
    await sender.send("go");

    const waitStart = performance.now();
    let lastActivity = waitStart;
    let lastCount = -1;
    let lastSent = -1;
    let lastReport = 0;
    let doneAt: number | undefined;
    const recent: [number, number][] = [];
    while (true) {
      await delay(POLL_MS, context.signal);
      const crashed = children.find((c) =>
        c.status != null && !killedOnPurpose.has(c)
      );
      if (crashed != null) {
        const index = workers.indexOf(crashed);
        if (
          !serverCrashed || index < 0 || restarts.length >= MAX_RESTARTS
        ) {
          throw new RunFailure(crashed.describeExit());
        }
        // A worker that died with its queue server is started again, as a
        // supervisor would; the queue's durability is what is measured.
        killedOnPurpose.add(crashed);
        const { atSeconds, deliveredBefore } = crashRecord("worker");
        restarts.push({
          atSeconds,
          deliveredBefore,
          exit: crashed.describeExit(),
        });
        workers[index] = spawnWorker(index);
        await workers[index].waitFor("ready", READY_TIMEOUT_MS, context.signal);
        lastActivity = performance.now();
      }
      const error = sender.latest("error");
      if (error != null) throw new RunFailure(`sender: ${error.message}`);
      stats = await fetchStats(inboxOrigin);
      sent ??= sender.latest("sent");
      sendStart ??= sent?.sendStart;
      // Crash tests strike once sending is over and a share F has arrived.
      const deliverable = expected - stats.goneDeliveries;
      const due = (share: number | undefined) =>
        share != null && sent != null &&
        stats!.delivered >= share * deliverable;
      if (!workerCrashed && due(params.crash?.workerAt)) {
        workerCrashed = true;
        const consumers = workers.length > 0 ? workers : [consumer];
        crashes.push(crashRecord("worker"));
        for (const child of consumers) {
          killedOnPurpose.add(child);
          await child.kill();
        }
        // Fresh consumers, as a supervisor would start them.
        if (workers.length > 0) {
          workers = startWorkers();
          await Promise.all(
            workers.map((c) =>
              c.waitFor("ready", READY_TIMEOUT_MS, context.signal)
            ),
          );
        } else {
          consumer = spawn(
            "sender",
            SENDER_SCRIPT,
            {
              ...senderSpec,
              consumeOnly: true,
            } satisfies SenderSpec,
          );
          await consumer.waitFor("ready", READY_TIMEOUT_MS, context.signal);
          await consumer.send("go");
        }
        lastActivity = performance.now();
      }
      if (!serverCrashed && due(params.crash?.serverAt)) {
        serverCrashed = true;
        if (driver.service == null) {
          throw new RunFailure("--crash-server-at: this driver has no server");
        }
        crashes.push(crashRecord("server"));
        await context.services.crash(driver.service);
        // The restarted server is other processes: its CPU is not comparable.
        for (const m of measured) if (m.role === "server") m.start = null;
        lastActivity = performance.now();
      }
      const sentCount = sent != null
        ? params.total
        : sender.latest("progress")?.sent ?? 0;
      const nowMs = performance.now();
      const count = stats.requests;
      if (count !== lastCount || sentCount !== lastSent) {
        lastCount = count;
        lastSent = sentCount;
        lastActivity = nowMs;
      }
      recent.push([nowMs, stats.delivered]);
      while (recent.length > 1 && nowMs - recent[0][0] > 5000) recent.shift();
      if (nowMs - lastReport >= 1000) {
        lastReport = nowMs;
        const [t0, d0] = recent[0];
        context.onProgress?.({
          id: context.id,
          run: context.run?.index ?? 1,
          runs: context.run?.of ?? 1,
          delivered: stats.delivered,
          expected,
          elapsedSeconds: (nowMs - waitStart) / 1000,
          currentRate: nowMs > t0
            ? (stats.delivered - d0) * 1000 / (nowMs - t0)
            : 0,
          sent: sentCount,
        });
      }
      if (settled(stats) && sent != null) {
        doneAt ??= nowMs;
        if (nowMs - doneAt >= SETTLE_MS) break;
        continue;
      }
      if (nowMs - lastActivity >= stallSeconds * 1000) {
        const missing = expected - stats.delivered - stats.goneDeliveries;
        const targets = crashes.map((c) => c.target).join(" and ");
        return await incomplete(
          crashes.length > 0
            ? `stalled after the ${targets} crash: ${missing} deliveries ` +
              `lost (no new delivery for ${stallSeconds} s)` +
              (driver.volatile
                ? `; ${driver.name} keeps its messages in the memory of ` +
                  `the process that was killed, so it loses them by design`
                : "")
            : `stalled: no new delivery for ${stallSeconds} s`,
        );
      }
      if (nowMs - waitStart >= params.timeoutSeconds * 1000) {
        return await incomplete(`timed out after ${params.timeoutSeconds} s`);
      }
    }
    await collect();
    const final = stats!;
    const last = final.lastAt!;
    const totalSeconds = (last - sent!.sendStart) / 1000;
    return finish({
      status: "ok",
      reason: null,
      receiveSeconds: (last - final.firstAt!) / 1000,
      totalSeconds,
      deliveriesPerSecond: final.delivered / totalSeconds,
      elapsedSeconds: totalSeconds,
    });
  } catch (error) {
    if (context.signal?.aborted) return await incomplete("interrupted");
    const message = error instanceof Error ? error.message : String(error);
    return finish({
      status: "failed",
      reason: redactSecrets(message),
      receiveSeconds: null,
      totalSeconds: null,
      deliveriesPerSecond: null,
      elapsedSeconds: null,
    });
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    try {
      await prepared?.cleanup();
    } catch (error) {
      console.error(redactSecrets(`${context.id}: cleanup failed: ${error}`));
    }
    await leftovers.removeTempDir(tempDir);
  }

  /** Final readings, taken while every process is still running. */
  async function collect(): Promise<void> {
    for (const m of measured) {
      m.end = m.tree ? sampleTree(m.pid) : sampleProcess(m.pid);
    }
    if (inboxOrigin == null) return;
    try {
      stats = await fetchStats(inboxOrigin);
      arrivals = await fetchArrivals(inboxOrigin);
    } catch { /* the inbox is gone; keep the last counters */ }
  }

  async function incomplete(reason: string): Promise<RunResult> {
    await collect();
    const elapsed = sendStart == null ? null : (epochNow() - sendStart) / 1000;
    const delivered = stats?.delivered ?? 0;
    return finish({
      status: "incomplete",
      reason,
      receiveSeconds: null,
      totalSeconds: null,
      deliveriesPerSecond: elapsed == null || elapsed <= 0
        ? null
        : delivered / elapsed,
      elapsedSeconds: elapsed,
    });
  }

  function finish(
    outcome: Pick<
      RunResult,
      | "status"
      | "reason"
      | "receiveSeconds"
      | "totalSeconds"
      | "deliveriesPerSecond"
      | "elapsedSeconds"
    >,
  ): RunResult {
    const delivered = stats?.delivered ?? 0;
    const gone = stats?.goneDeliveries ?? 0;
    const processes: ProcessRecord[] = measured.map((m) => ({
      role: m.role,
      pid: m.pid,
      cpuSeconds: m.start != null && m.end != null
        ? round(m.end.cpuSeconds - m.start.cpuSeconds, 2)
        : null,
      peakRssBytes: m.end?.peakRssBytes ?? null,
    }));
    const appCpu = processes
      .filter((p) => p.role === "sender" || p.role === "worker")
      .map((p) => p.cpuSeconds);
    const cpuMsPerDelivery = cpuMsPer(appCpu, delivered);
    const serverCpuMsPerDelivery = cpuMsPer(
      processes.filter((p) => p.role === "server").map((p) => p.cpuSeconds),
      delivered,
    );
    return {
      ...outcome,
      expected,
      delivered,
      duplicates: stats?.duplicates ?? 0,
      missing: expected - delivered - gone,
      unexpected: stats?.unexpected ?? 0,
      attempts: stats?.attempts ?? 0,
      retried: stats?.retried ?? 0,
      gone,
      ...(params.crash == null ? {} : {
        crashes,
        restarts,
        lost: crashes.length > 0 ? expected - delivered - gone : 0,
      }),
      sendSeconds: sent == null ? null : (sent.sendEnd - sent.sendStart) / 1000,
      sendErrors: sent?.sendErrors ?? 0,
      workers: workerCount,
      stallTimeoutSeconds: stallSeconds,
      timeoutSeconds: params.timeoutSeconds,
      server,
      processes,
      latencyMs: latencies(),
      sendCallMs: sent == null ? null : percentiles(sent.callMs),
      cpuMsPerDelivery,
      serverCpuMsPerDelivery,
      implementation,
      timeline: sendStart == null || arrivals == null
        ? null
        : buildTimeline(arrivals.firstArrival, sendStart, depthSamples()),
    };
  }

  function latencies() {
    if (sent == null || arrivals == null) return null;
    const { callStarts } = sent;
    const recipients = params.recipients;
    const first = arrivals.firstArrival;
    function* values(): Generator<number> {
      for (let k = 0; k < first.length; k++) {
        const at = first[k];
        if (at != null) yield at - callStarts[Math.floor(k / recipients)];
      }
    }
    return percentiles(values());
  }
}

/**
 * Whether every expected delivery has been accounted for: each deliverable
 * one arrived, and each one to a gone recipient was attempted.
 */
function settled(stats: InboxStats): boolean {
  return stats.delivered >= stats.expected - stats.goneDeliveries &&
    stats.goneAttempted >= stats.goneDeliveries;
}

/**
 * CPU milliseconds per delivery of some processes, or `null` when there are
 * none, one could not be read, or nothing was delivered.
 */
function cpuMsPer(
  cpuSeconds: readonly (number | null | undefined)[],
  delivered: number,
): number | null {
  if (delivered <= 0 || cpuSeconds.length === 0) return null;
  if (!cpuSeconds.every((c) => c != null)) return null;
  const sum = cpuSeconds.reduce((a, b) => a! + b!, 0)!;
  return round(sum * 1000 / delivered, 3);
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

async function fetchStats(origin: string): Promise<InboxStats> {
  const response = await fetch(`${origin}/_bench/stats`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) {
    throw new RunFailure(`inbox stats: HTTP ${response.status}`);
  }
  return await response.json();
}

async function fetchArrivals(origin: string): Promise<InboxArrivals> {
  const response = await fetch(`${origin}/_bench/arrivals`, {
    signal: AbortSignal.timeout(60_000),
  });
  if (!response.ok) {
    throw new RunFailure(`inbox arrivals: HTTP ${response.status}`);
  }
  return await response.json();
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
