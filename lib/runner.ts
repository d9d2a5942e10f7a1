/**
 * Runs one configuration end to end: starts the inbox, the worker(s) and the
 * sender as separate processes, waits (bounded) until every expected delivery
 * has arrived, stops everything and accounts for every delivery.
 *
 * Nothing here knows any driver by name: a driver's `crossProcess` flag says
 * whether separate workers consume its queue, its `service` says which
 * server it needs, and `quietPeriodSeconds` widens stall detection.
 *
 * @module
 */
import type { InboxStats } from "../fake_inbox/server.ts";
import type { Driver, PreparedQueue } from "./driver.ts";
import { Child } from "./process.ts";
import type { QueueSpec } from "./queue_spec.ts";
import {
  type ConfigurationResult,
  configurationId,
  type ProcessRecord,
  type ServerRecord,
  type SuiteParams,
} from "./results.ts";
import type { SenderSpec, SentMessage } from "./sender.ts";
import type { ServiceManager } from "./services/mod.ts";
import { redactSecrets } from "./services/mod.ts";
import type { WorkerSpec } from "./worker.ts";

const INBOX_SCRIPT = new URL("../fake_inbox/server.ts", import.meta.url);
const SENDER_SCRIPT = new URL("./sender.ts", import.meta.url);
const WORKER_SCRIPT = new URL("./worker.ts", import.meta.url);

/** How long a child may take to report `ready`. */
const READY_TIMEOUT_MS = 60_000;
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
}

/** Progress of a running configuration, for live reporting. */
export interface Progress {
  /** Configuration id. */
  readonly id: string;
  /** Distinct deliveries so far. */
  readonly delivered: number;
  /** `total × recipients`. */
  readonly expected: number;
  /** Seconds since the first `sendActivity` call. */
  readonly elapsedSeconds: number;
  /** Activities whose `sendActivity` call returned. */
  readonly sent: number;
}

/** What {@link runConfiguration} needs besides the configuration. */
export interface RunContext {
  /** The suite's parameters. */
  readonly params: SuiteParams;
  /** Starts or connects to queue servers. */
  readonly services: ServiceManager;
  /** User driver modules that child processes must load too. */
  readonly driverModules: readonly string[];
  /** Aborts the run (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Called about every second while waiting. */
  readonly onProgress?: (progress: Progress) => void;
}

/** Stall window for a driver: the user's, widened past the driver's quiet period. */
export function stallWindowSeconds(driver: Driver, stallTimeout: number): number {
  const quiet = driver.quietPeriodSeconds ?? 0;
  return Math.max(stallTimeout, Math.ceil(quiet * 1.5));
}

function newRunId(): string {
  const random = crypto.getRandomValues(new Uint8Array(4));
  return `r${Date.now().toString(36)}${
    Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

class RunFailure extends Error {}

/** Runs one configuration and returns its result; never throws. */
export async function runConfiguration(
  configuration: Configuration,
  context: RunContext,
): Promise<ConfigurationResult> {
  const { driver, parallelism } = configuration;
  const { params } = context;
  const id = configurationId(driver.name, parallelism);
  const expected = params.total * params.recipients;
  const stallSeconds = stallWindowSeconds(driver, params.stallTimeoutSeconds);
  const children: Child[] = [];
  const processes: ProcessRecord[] = [];
  let server: ServerRecord | null = null;
  let prepared: PreparedQueue | undefined;
  const tempDir = await Deno.makeTempDir({ prefix: "fqb-run-" });
  const base = {
    id,
    driver: driver.name,
    parallelism,
    expected,
    stallTimeoutSeconds: stallSeconds,
    timeoutSeconds: params.timeoutSeconds,
  };
  let stats: InboxStats | undefined;
  let sent: SentMessage | undefined;
  let sendStart: number | undefined;
  let workers = 0;
  const spawn = (role: string, script: URL, spec: unknown): Child => {
    const child = Child.spawn({ role, script, spec });
    children.push(child);
    processes.push({ role, pid: child.pid });
    return child;
  };
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
        processes.push({ role: "server", pid: acquired.pid });
      }
    }
    prepared = await driver.prepare?.({ runId, tempDir, serviceUrl });

    const inbox = spawn("inbox", INBOX_SCRIPT, {
      runId,
      total: params.total,
      recipients: params.recipients,
    });
    const ready = await inbox.waitFor("ready", READY_TIMEOUT_MS, context.signal);
    const inboxOrigin = `http://127.0.0.1:${ready.port}`;

    const queue: QueueSpec = {
      driver: driver.name,
      driverModules: context.driverModules,
      config: prepared?.config ?? null,
      parallelism,
    };
    if (driver.crossProcess && driver.open != null) {
      const worker = spawn("worker", WORKER_SCRIPT, { queue } as WorkerSpec);
      workers++;
      await worker.waitFor("ready", READY_TIMEOUT_MS, context.signal);
    }
    const senderSpec: SenderSpec = {
      runId,
      total: params.total,
      recipients: params.recipients,
      inboxOrigin,
      queue,
      consume: !driver.crossProcess,
      fanout: params.fanout,
      rsaBits: params.rsaBits,
    };
    const sender = spawn("sender", SENDER_SCRIPT, senderSpec);
    await sender.waitFor("ready", READY_TIMEOUT_MS, context.signal);

    // Wait for every delivery, bounded by the stall window and the time limit.
    const waitStart = performance.now();
    let lastActivity = waitStart;
    let lastCount = -1;
    let lastSent = -1;
    let lastReport = 0;
    let doneAt: number | undefined;
    while (true) {
      await delay(POLL_MS, context.signal);
      const crashed = children.find((c) => c.status != null);
      if (crashed != null) throw new RunFailure(crashed.describeExit());
      const error = sender.latest("error");
      if (error != null) throw new RunFailure(`sender: ${error.message}`);
      stats = await fetchStats(inboxOrigin);
      sent ??= sender.latest("sent") as SentMessage | undefined;
      sendStart ??= sent?.sendStart;
      const sentCount = sent != null
        ? params.total
        : Number(sender.latest("progress")?.sent ?? 0);
      const nowMs = performance.now();
      if (stats.delivered + stats.duplicates !== lastCount || sentCount !== lastSent) {
        lastCount = stats.delivered + stats.duplicates;
        lastSent = sentCount;
        lastActivity = nowMs;
      }
      if (nowMs - lastReport >= 1000) {
        lastReport = nowMs;
        context.onProgress?.({
          id,
          delivered: stats.delivered,
          expected,
          elapsedSeconds: (nowMs - waitStart) / 1000,
          sent: sentCount,
        });
      }
      if (stats.delivered >= expected && sent != null) {
        doneAt ??= nowMs;
        if (nowMs - doneAt >= SETTLE_MS) break;
        continue;
      }
      if (nowMs - lastActivity >= stallSeconds * 1000) {
        return incomplete(
          `stalled: no new delivery for ${stallSeconds} s`,
        );
      }
      if (nowMs - waitStart >= params.timeoutSeconds * 1000) {
        return incomplete(`timed out after ${params.timeoutSeconds} s`);
      }
    }
    const final = stats!;
    const last = final.lastAt!;
    const start = sent!.sendStart;
    const totalSeconds = (last - start) / 1000;
    return finish({
      status: "ok",
      reason: null,
      receiveSeconds: (last - final.firstAt!) / 1000,
      totalSeconds,
      deliveriesPerSecond: final.delivered / totalSeconds,
      elapsedSeconds: totalSeconds,
    });
  } catch (error) {
    if (context.signal?.aborted) return incomplete("interrupted");
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
      console.error(redactSecrets(`${id}: cleanup failed: ${error}`));
    }
    await Deno.remove(tempDir, { recursive: true }).catch(() => {});
  }

  function incomplete(reason: string): ConfigurationResult {
    const elapsed = sendStart == null
      ? null
      : (performance.timeOrigin + performance.now() - sendStart) / 1000;
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
      ConfigurationResult,
      | "status"
      | "reason"
      | "receiveSeconds"
      | "totalSeconds"
      | "deliveriesPerSecond"
      | "elapsedSeconds"
    >,
  ): ConfigurationResult {
    const delivered = stats?.delivered ?? 0;
    return {
      ...base,
      ...outcome,
      delivered,
      duplicates: stats?.duplicates ?? 0,
      missing: expected - delivered,
      unexpected: stats?.unexpected ?? 0,
      sendSeconds: sent == null ? null : (sent.sendEnd - sent.sendStart) / 1000,
      sendErrors: sent?.sendErrors ?? 0,
      workers,
      server,
      processes,
    };
  }
}

async function fetchStats(origin: string): Promise<InboxStats> {
  const response = await fetch(`${origin}/_bench/stats`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new RunFailure(`inbox stats: HTTP ${response.status}`);
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
