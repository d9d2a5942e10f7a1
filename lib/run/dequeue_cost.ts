/**
 * `deno task dequeue-cost`: what one dequeue costs each queue as its backlog
 * grows.  For every driver and backlog size, the tool fills an empty queue
 * (the driver's own `prepare()`, on the server the bench would use) with
 * that many outbox-sized messages through the official queue's
 * `enqueueMany()`, then lets the official queue's `listen()` hand a fixed
 * number of them to a handler that does nothing, and times the gaps between
 * consecutive messages: each gap is one dequeue.  The start of `listen()`
 * (a queue may wait for its first poll) is not counted.
 *
 * It writes `dequeue-cost.json`, `dequeue-cost.md` and `dequeue-cost.svg`
 * (ms per dequeue against backlog) to `--out`, fits a line to each driver's
 * cost, and from that fit projects, clearly labelled as a projection, how
 * long draining a 500 × 100 backlog would take.  See `--help`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import type { Driver } from "../../drivers/driver.ts";
import { collectEnvironment } from "../measure/environment.ts";
import { leftovers } from "../system/leftovers.ts";
import { errorMessage, ServiceManager } from "../services/mod.ts";
import { driverAvailability } from "./suite.ts";
import { sleep } from "../system/sleep.ts";

/** The tool's parameters. */
export interface DequeueCostParams {
  /** Driver names, in the order measured. */
  readonly drivers: readonly string[];
  /** Backlog sizes, ascending. */
  readonly backlogs: readonly number[];
  /** Dequeues timed at each backlog. */
  readonly dequeues: number;
  /** Dequeues done, untimed, before timing starts (warm-up). */
  readonly warmup: number;
  /** Approximate size of each message's JSON, in bytes. */
  readonly messageBytes: number;
  /** Longest a single dequeue may take before the driver is cut off. */
  readonly stepTimeoutSeconds: number;
  /** The backlog the projection drains (500 activities × 100 inboxes). */
  readonly projectionBacklog: number;
  /** The drivers whose fitted cost is projected to a drain time. */
  readonly project: readonly string[];
  /** Where the results go. */
  readonly outDir: string;
}

/** One driver at one backlog. */
export interface DequeueCostPoint {
  readonly driver: string;
  readonly backlog: number;
  /**
   * `ok`; `timeout` when one dequeue took longer than the step limit (larger
   * backlogs are then skipped); `skipped`; or `failed`.
   */
  readonly status: "ok" | "timeout" | "skipped" | "failed";
  /** Why, when not `ok`. */
  readonly reason?: string;
  /** Seconds the fill took (`enqueueMany` of the whole backlog). */
  readonly fillSeconds: number | null;
  /** Dequeues timed (gaps between consecutive messages). */
  readonly dequeued: number;
  /** Mean milliseconds per dequeue: (last − first message) ÷ dequeued. */
  readonly msPerDequeue: number | null;
  /** Percentiles of the individual gaps, milliseconds. */
  readonly gapMs: {
    readonly p50: number;
    readonly p90: number;
    readonly max: number;
  } | null;
}

/** A least-squares line `ms per dequeue = interceptMs + slopeMs × backlog`. */
export interface CostFit {
  readonly driver: string;
  readonly interceptMs: number;
  readonly slopeMs: number;
  /** Coefficient of determination; `null` with two points. */
  readonly r2: number | null;
  /** The backlogs the fit is made of. */
  readonly backlogs: readonly number[];
}

/** A drain time projected from a fit; not a measurement. */
export interface DrainProjection {
  readonly driver: string;
  /** The backlog when draining starts. */
  readonly backlog: number;
  /** Projected seconds to dequeue all of it, one at a time. */
  readonly seconds: number;
  /** Projected dequeues in the bench's default 600 s time limit. */
  readonly dequeuesIn600Seconds: number;
}

/** What `dequeue-cost.json` holds. */
export interface DequeueCostDocument {
  readonly kind: "dequeue-cost";
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly params: Omit<DequeueCostParams, "outDir">;
  readonly environment: unknown;
  readonly points: readonly DequeueCostPoint[];
  readonly fits: readonly CostFit[];
  readonly projections: readonly DrainProjection[];
}

/** The usage text of `--help`. */
export const HELP = `Usage: deno task dequeue-cost [options]

Fills an empty queue with BACKLOG messages, times DEQUEUES dequeues by the
official queue's listen() with a no-op handler, and reports ms per dequeue
against backlog (Markdown on stdout; JSON, Markdown and SVG in --out).

Options:
  --drivers a,b          drivers (default redis,redis-limit1,postgres,postgres-indexed)
  --backlogs n,m         backlog sizes (default 1000,5000,20000,50000)
  --dequeues N           dequeues timed per backlog (default 200)
  --warmup N             untimed dequeues before those (default 20)
  --message-bytes N      size of each message's JSON (default 4096)
  --step-timeout S       cut a driver off when one dequeue takes longer (default 60)
  --projection-backlog N backlog the drain projection starts from (default 50000)
  --project a,b          drivers to project a drain time for (default redis)
  --out DIR              where the files go (default results/dequeue-cost)
  -h, --help             this text

Servers come from REDIS_URL, POSTGRES_URL, … or are throwaway ones, as in
deno task bench.`;

/** Bad command-line input; the message names the fix. */
export class UsageError extends Error {}

function positiveInteger(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${name} must be a positive integer, not "${text}"`);
  }
  return value;
}

/**
 * Parses the command line.
 * @throws {UsageError} On unknown options or bad values.
 * @returns `null` for `--help`.
 */
export function parseDequeueCostArgs(
  args: readonly string[],
): DequeueCostParams | null {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        drivers: {
          type: "string",
          default: "redis,redis-limit1,postgres,postgres-indexed",
        },
        backlogs: { type: "string", default: "1000,5000,20000,50000" },
        dequeues: { type: "string", default: "200" },
        warmup: { type: "string", default: "20" },
        project: { type: "string", default: "redis" },
        "message-bytes": { type: "string", default: "4096" },
        "step-timeout": { type: "string", default: "60" },
        "projection-backlog": { type: "string", default: "50000" },
        out: { type: "string", default: "results/dequeue-cost" },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    throw new UsageError(`${errorMessage(error)}; see --help`);
  }
  if (values.help) return null;
  const drivers = values.drivers.split(",").map((s) => s.trim()).filter((s) =>
    s !== ""
  );
  if (drivers.length === 0) throw new UsageError("--drivers names no driver");
  for (const name of drivers) {
    const driver = findDriver(builtinDrivers, name);
    if (driver == null) {
      throw new UsageError(
        `unknown driver "${name}"; deno task bench --list shows them`,
      );
    }
    if (driver.prepare == null || driver.open == null) {
      throw new UsageError(`driver "${name}" has no queue to measure`);
    }
  }
  const dequeues = positiveInteger("--dequeues", values.dequeues);
  const warmup = values.warmup === "0"
    ? 0
    : positiveInteger("--warmup", values.warmup);
  const backlogs = [
    ...new Set(
      values.backlogs.split(",").map((s) => positiveInteger("--backlogs", s)),
    ),
  ].sort((a, b) => a - b);
  if (backlogs[0] <= warmup + dequeues) {
    throw new UsageError(
      `every backlog must exceed --warmup + --dequeues (${
        warmup + dequeues
      }); raise the backlog ${backlogs[0]} or lower those`,
    );
  }
  const project = values.project.split(",").map((s) => s.trim()).filter((
    s,
  ) => s !== "");
  const messageBytes = positiveInteger(
    "--message-bytes",
    values["message-bytes"],
  );
  if (messageBytes < 1024) {
    throw new UsageError("--message-bytes must be at least 1024");
  }
  return {
    drivers,
    backlogs,
    dequeues,
    warmup,
    messageBytes,
    stepTimeoutSeconds: positiveInteger(
      "--step-timeout",
      values["step-timeout"],
    ),
    projectionBacklog: positiveInteger(
      "--projection-backlog",
      values["projection-backlog"],
    ),
    project,
    outDir: values.out,
  };
}

function base64url(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Makes outbox messages shaped like Fedify's: the activity (a `Create` of a
 * `Note`), the sender's RSA-2048 and Ed25519 private keys as JWKs, and the
 * inbox, each message about `bytes` of JSON and every one distinct
 * (100 inboxes per activity).
 */
export function outboxMessages(
  bytes: number,
): (index: number) => Record<string, unknown> {
  const rsa = {
    kty: "RSA",
    alg: "RS256",
    e: "AQAB",
    n: base64url(256),
    d: base64url(256),
    p: base64url(128),
    q: base64url(128),
    dp: base64url(128),
    dq: base64url(128),
    qi: base64url(128),
    key_ops: ["sign"],
    ext: true,
  };
  const ed25519 = {
    kty: "OKP",
    crv: "Ed25519",
    x: base64url(32),
    d: base64url(32),
    key_ops: ["sign"],
    ext: true,
  };
  const actor = "https://sender.example/users/alice";
  const make = (index: number, content: string) => {
    const activity = Math.floor(index / 100);
    const id = `https://sender.example/activities/${activity}`;
    return {
      type: "outbox",
      id: crypto.randomUUID(),
      baseUrl: "https://sender.example",
      keys: [
        { keyId: `${actor}#main-key`, privateKey: rsa },
        { keyId: `${actor}#ed25519-key`, privateKey: ed25519 },
      ],
      activity: {
        "@context": [
          "https://www.w3.org/ns/activitystreams",
          "https://w3id.org/security/data-integrity/v1",
        ],
        type: "Create",
        id,
        actor,
        to: "https://www.w3.org/ns/activitystreams#Public",
        object: {
          type: "Note",
          id: `https://sender.example/notes/${activity}`,
          attributedTo: actor,
          content,
          published: "2025-01-01T00:00:00Z",
        },
      },
      activityId: id,
      activityType: "https://www.w3.org/ns/activitystreams#Create",
      inbox: `https://recipient${index % 100}.example/inbox`,
      sharedInbox: false,
      started: new Date(0).toISOString(),
      attempt: 0,
      headers: {},
      traceContext: {},
    };
  };
  const bare = JSON.stringify(make(0, "")).length;
  const content = "<p>" + "lorem ipsum ".repeat(
    Math.max(0, Math.ceil((bytes - bare - 7) / 12)),
  ).slice(0, Math.max(0, bytes - bare - 7)) + "</p>";
  return (index) => make(index, content);
}

/** The `q`-quantile of sorted values (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Summarises message arrival times (ms) into a point's timing fields. */
export function summariseArrivals(times: readonly number[]): Pick<
  DequeueCostPoint,
  "dequeued" | "msPerDequeue" | "gapMs"
> {
  if (times.length < 2) return { dequeued: 0, msPerDequeue: null, gapMs: null };
  const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b);
  return {
    dequeued: gaps.length,
    msPerDequeue: (times.at(-1)! - times[0]) / gaps.length,
    gapMs: {
      p50: quantile(gaps, 0.5),
      p90: quantile(gaps, 0.9),
      max: gaps.at(-1)!,
    },
  };
}

/** Fits a line to a driver's `ok` points; `null` with fewer than two. */
export function fitCost(
  driver: string,
  points: readonly DequeueCostPoint[],
): CostFit | null {
  const ok = points.filter((p) =>
    p.driver === driver && p.status === "ok" && p.msPerDequeue != null
  );
  if (ok.length < 2) return null;
  const xs = ok.map((p) => p.backlog);
  const ys = ok.map((p) => p.msPerDequeue!);
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0, sxy = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
    syy += (ys[i] - my) ** 2;
  }
  const slopeMs = sxy / sxx;
  const interceptMs = my - slopeMs * mx;
  let sse = 0;
  for (let i = 0; i < n; i++) {
    sse += (ys[i] - (interceptMs + slopeMs * xs[i])) ** 2;
  }
  return {
    driver,
    interceptMs,
    slopeMs,
    r2: n > 2 && syy > 0 ? 1 - sse / syy : null,
    backlogs: xs,
  };
}

/**
 * Projects, from a fit, the time to dequeue a backlog of `backlog` messages
 * one at a time (the k-th dequeue costs the fit at backlog − k + 1, never
 * less than zero), and how many dequeues fit in 600 s.
 */
export function projectDrain(fit: CostFit, backlog: number): DrainProjection {
  let ms = 0;
  let in600 = 0;
  for (let remaining = backlog; remaining >= 1; remaining--) {
    ms += Math.max(0, fit.interceptMs + fit.slopeMs * remaining);
    if (ms <= 600_000) in600++;
  }
  return {
    driver: fit.driver,
    backlog,
    seconds: ms / 1000,
    dequeuesIn600Seconds: in600,
  };
}

/** How long a stopped listener gets to finish its queries before closing. */
const SETTLE_MS = 1000;

/** Fills one queue and times its dequeues. */
async function measure(
  driver: Driver,
  backlog: number,
  params: DequeueCostParams,
  services: ServiceManager,
  signal: AbortSignal,
): Promise<DequeueCostPoint> {
  const base = { driver: driver.name, backlog };
  const serviceUrl = driver.service == null
    ? undefined
    : (await services.acquire(driver.service, signal)).url;
  // Owned by this process, so a killed run's folder is swept by the next
  // bench (see lib/system/leftovers.ts).
  const tempDir = await leftovers.makeTempDir("dequeue-cost");
  const runId = `dc${Date.now().toString(36)}${
    Math.random().toString(36).slice(2, 6)
  }`;
  try {
    const prepared = await driver.prepare!({ runId, tempDir, serviceUrl });
    try {
      const opened = await driver.open!(prepared.config);
      try {
        const { queue } = opened;
        const message = outboxMessages(params.messageBytes);
        const fillStart = performance.now();
        const batch = 500;
        for (let i = 0; i < backlog && !signal.aborted; i += batch) {
          const messages = Array.from(
            { length: Math.min(batch, backlog - i) },
            (_, j) => message(i + j),
          );
          if (queue.enqueueMany != null) await queue.enqueueMany(messages);
          else for (const m of messages) await queue.enqueue(m);
        }
        signal.throwIfAborted();
        const fillSeconds = (performance.now() - fillStart) / 1000;

        const wanted = params.warmup + params.dequeues + 1;
        const times: number[] = [];
        const stop = new AbortController();
        const onAbort = () => stop.abort();
        signal.addEventListener("abort", onAbort);
        // The first message may wait for the queue's first poll.
        const graceMs = ((driver.quietPeriodSeconds ?? 0) + 10) * 1000;
        let last = performance.now();
        let timedOut = false;
        const watchdog = setInterval(() => {
          const limit = params.stepTimeoutSeconds * 1000 +
            (times.length === 0 ? graceMs : 0);
          if (performance.now() - last > limit) {
            timedOut = true;
            stop.abort();
          }
        }, 100);
        const listening = queue.listen(() => {
          if (times.length >= wanted) return;
          last = performance.now();
          times.push(last);
          if (times.length >= wanted) stop.abort();
        }, { signal: stop.signal });
        try {
          await Promise.race([
            listening,
            new Promise((resolve) =>
              stop.signal.addEventListener("abort", resolve)
            ),
          ]);
          // Let the listener settle before closing (a slow read may be in
          // flight); never wait longer than one more step.
          await Promise.race([
            listening.catch(() => {}),
            sleep(params.stepTimeoutSeconds * 1000),
          ]);
          // Polls the queue started on its own (timers, notifications) may
          // still be finishing a query.
          await sleep(SETTLE_MS);
        } finally {
          clearInterval(watchdog);
          signal.removeEventListener("abort", onAbort);
        }
        signal.throwIfAborted();
        const timing = summariseArrivals(times.slice(params.warmup));
        if (timedOut) {
          return {
            ...base,
            status: "timeout",
            reason: `one dequeue took over ${params.stepTimeoutSeconds} s ` +
              `(after ${times.length} of ${wanted} messages)`,
            fillSeconds,
            ...timing,
          };
        }
        return { ...base, status: "ok", fillSeconds, ...timing };
      } finally {
        await opened.close();
      }
    } finally {
      await prepared.cleanup();
    }
  } finally {
    await leftovers.removeTempDir(tempDir);
  }
}

function ms(value: number | null | undefined): string {
  if (value == null) return "—";
  return value >= 100
    ? value.toFixed(0)
    : value >= 10
    ? value.toFixed(1)
    : value.toFixed(2);
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Renders the Markdown report. */
export function renderDequeueCost(document: DequeueCostDocument): string {
  const { params } = document;
  const lines = [
    "# Dequeue cost against backlog",
    "",
    `${params.dequeues} dequeues timed per backlog (after ${params.warmup} ` +
    "untimed) by the official queue's `listen()` with a no-op handler, " +
    "from the gaps between consecutive messages; messages of about " +
    `${params.messageBytes} bytes of JSON (an outbox message with its ` +
    "activity and keys); every backlog starts from an empty queue.  A " +
    "queue's own timers and notifications run as usual (for example " +
    "`PostgresMessageQueue` 1.8.7 starts another poll loop every 5 s).",
    "",
    "| Driver | Backlog | Fill | Dequeued | ms/dequeue | p50 gap | p90 gap | max gap | Status |",
    "| ------ | ------: | ---: | -------: | ---------: | ------: | ------: | ------: | ------ |",
  ];
  for (const p of document.points) {
    lines.push(
      `| ${p.driver} | ${p.backlog.toLocaleString("en-US")} | ${
        p.fillSeconds == null ? "—" : `${p.fillSeconds.toFixed(1)} s`
      } | ${p.dequeued} | ${ms(p.msPerDequeue)} | ${ms(p.gapMs?.p50)} | ${
        ms(p.gapMs?.p90)
      } | ${ms(p.gapMs?.max)} | ${p.status}${
        p.reason == null ? "" : `: ${p.reason}`
      } |`,
    );
  }
  if (document.fits.length > 0) {
    lines.push(
      "",
      "Least-squares fit, ms per dequeue against backlog:",
      "",
      "| Driver | ms/dequeue ≈ | R² | From backlogs |",
      "| ------ | ------------ | -: | ------------- |",
    );
    for (const f of document.fits) {
      lines.push(
        `| ${f.driver} | ${f.interceptMs.toFixed(3)} ${
          f.slopeMs < 0 ? "−" : "+"
        } ${Math.abs(f.slopeMs * 1000).toFixed(4)} × backlog/1000 | ${
          f.r2 == null ? "—" : f.r2.toFixed(3)
        } | ${f.backlogs.join(", ")} |`,
      );
    }
  }
  if (document.projections.length > 0) {
    lines.push(
      "",
      `**Projection, not a measurement**: draining a backlog that starts at ` +
        `${params.projectionBacklog.toLocaleString("en-US")} outbox messages ` +
        "(500 activities × 100 recipients), one dequeue at a time, at the " +
        "fitted cost (dequeue alone: no delivery, no concurrent enqueues):",
      "",
    );
    for (const p of document.projections) {
      lines.push(
        `- projection: ${p.driver} would take about ${
          duration(p.seconds)
        } to drain it, and dequeue about ${
          p.dequeuesIn600Seconds.toLocaleString("en-US")
        } messages in the bench's 600 s limit`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

/** Renders ms per dequeue against backlog, one line per driver, as SVG. */
export async function renderDequeueCostChart(
  document: DequeueCostDocument,
): Promise<string> {
  const values = document.points.filter((p) => p.msPerDequeue != null).map((
    p,
  ) => ({ driver: p.driver, backlog: p.backlog, ms: p.msPerDequeue }));
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: {
      text: "Time per dequeue against backlog",
      subtitle: `${document.params.dequeues} dequeues per point, ` +
        `~${document.params.messageBytes}-byte messages, no-op handler`,
    },
    width: 600,
    height: 320,
    background: "#ffffff",
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: {
        field: "backlog",
        type: "quantitative",
        title: "Messages in the queue",
      },
      y: { field: "ms", type: "quantitative", title: "ms per dequeue" },
      color: {
        field: "driver",
        type: "nominal",
        title: "Driver",
        sort: document.params.drivers as string[],
        legend: { orient: "bottom" },
      },
    },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), {
    renderer: "none",
  });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Runs the measurement and writes its files. */
export async function runDequeueCost(
  params: DequeueCostParams,
  options: { signal?: AbortSignal; log?: (line: string) => void } = {},
): Promise<DequeueCostDocument> {
  const signal = options.signal ?? new AbortController().signal;
  const log = options.log ?? ((line: string) => console.error(line));
  const startedAt = new Date().toISOString();
  const services = new ServiceManager();
  const points: DequeueCostPoint[] = [];
  const servers: Record<string, string> = {};
  const drivers = params.drivers.map((name) =>
    findDriver(builtinDrivers, name)!
  );
  try {
    for (const driver of drivers) {
      const availability = await driverAvailability(driver, services);
      let cutOff: string | null = availability.available
        ? null
        : availability.reason;
      for (const backlog of params.backlogs) {
        if (signal.aborted) break;
        if (cutOff != null) {
          points.push({
            driver: driver.name,
            backlog,
            status: "skipped",
            reason: cutOff,
            fillSeconds: null,
            dequeued: 0,
            msPerDequeue: null,
            gapMs: null,
          });
          continue;
        }
        log(`[${driver.name}] backlog ${backlog}: filling…`);
        let point: DequeueCostPoint;
        try {
          point = await measure(driver, backlog, params, services, signal);
          if (driver.service != null) {
            servers[driver.service.name] ??=
              (await services.acquire(driver.service)).version;
          }
        } catch (error) {
          if (signal.aborted) break;
          point = {
            driver: driver.name,
            backlog,
            status: "failed",
            reason: errorMessage(error),
            fillSeconds: null,
            dequeued: 0,
            msPerDequeue: null,
            gapMs: null,
          };
        }
        points.push(point);
        log(
          `[${driver.name}] backlog ${backlog}: ${point.status}, ${
            ms(point.msPerDequeue)
          } ms/dequeue over ${point.dequeued}` +
            (point.fillSeconds == null
              ? ""
              : ` (fill ${point.fillSeconds.toFixed(1)} s)`) +
            (point.reason == null ? "" : `; ${point.reason}`),
        );
        if (point.status !== "ok") {
          cutOff = `cut off at backlog ${backlog} (${point.status})`;
        }
      }
    }
  } finally {
    await services.stopAll();
  }
  const fits = drivers.map((d) => fitCost(d.name, points)).filter((f) =>
    f != null
  );
  const { outDir: _, ...recorded } = params;
  const { senderKeys: _k, fanout: _f, ...environment } =
    await collectEnvironment({
      params: {
        total: 0,
        recipients: 0,
        fanout: "auto",
        rsaBits: 2048,
        timeoutSeconds: 0,
        stallTimeoutSeconds: 0,
      },
      packages: [...new Set(drivers.flatMap((d) => d.packages ?? []))],
      servers,
    });
  const document: DequeueCostDocument = {
    kind: "dequeue-cost",
    startedAt,
    finishedAt: new Date().toISOString(),
    params: recorded,
    environment,
    points,
    fits,
    projections: fits.filter((f) => params.project.includes(f.driver)).map((
      f,
    ) => projectDrain(f, params.projectionBacklog)),
  };
  await Deno.mkdir(params.outDir, { recursive: true });
  await Deno.writeTextFile(
    `${params.outDir}/dequeue-cost.json`,
    JSON.stringify(document, null, 2) + "\n",
  );
  await Deno.writeTextFile(
    `${params.outDir}/dequeue-cost.md`,
    renderDequeueCost(document),
  );
  await Deno.writeTextFile(
    `${params.outDir}/dequeue-cost.svg`,
    await renderDequeueCostChart(document),
  );
  return document;
}

if (import.meta.main) {
  let params: DequeueCostParams | null;
  try {
    params = parseDequeueCostArgs(Deno.args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    Deno.exit(2);
  }
  if (params == null) {
    console.log(HELP);
    Deno.exit(0);
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onSignal);
  const document = await runDequeueCost(params, { signal: controller.signal });
  Deno.removeSignalListener("SIGINT", onSignal);
  console.log(renderDequeueCost(document));
  console.error(`wrote ${params.outDir}/dequeue-cost.{json,md,svg}`);
  const ok = !controller.signal.aborted &&
    document.points.every((p) => p.status === "ok");
  Deno.exit(controller.signal.aborted ? 130 : ok ? 0 : 1);
}
