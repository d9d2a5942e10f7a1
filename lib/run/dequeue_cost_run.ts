/**
 * The measurement of `deno task dequeue-cost`: what one dequeue costs each
 * queue as its backlog grows.  For every driver and backlog size it
 * measures one point (`dequeue_point.ts`: an empty queue on the server the
 * bench would use, filled, then timed dequeue by dequeue), fits a line to
 * each driver's cost and projects from it, clearly labelled as a
 * projection, how long draining a 500 × 100 backlog would take
 * (`dequeue_fit.ts`).  It returns the document; the CLI
 * (`lib/cli/dequeue_cost.ts`) writes it and its report.
 *
 * @module
 */
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import type { Driver } from "../../drivers/driver.ts";
import { implementationFor } from "../../drivers/packages.ts";
import { collectEnvironment } from "../measure/environment.ts";
import { readCommitReading } from "../measure/provenance.ts";
import type { Implementation } from "../results/mod.ts";
import { errorMessage } from "../results/error_message.ts";
import { ServiceManager } from "../services/mod.ts";
import { fitCost, projectDrain } from "./dequeue_fit.ts";
import { measurePoint } from "./dequeue_point.ts";
import { measureDepthCost } from "./depth_cost.ts";
import { driverAvailability } from "./configurations.ts";
import type {
  DepthCost,
  DequeueCostDocument,
  DequeueCostParams,
  DequeueCostPoint,
} from "../results/dequeue_cost_record.ts";

/**
 * Told about each point: `null` when its fill starts, then the point
 * measured (or skipped, or failed).
 */
export type DequeueCostProgress = (
  driver: string,
  backlog: number,
  point: DequeueCostPoint | null,
) => void;

/** How {@link runDequeueCost} is run. */
export interface DequeueCostRunOptions {
  /** Stops the measurement; the points so far are kept. */
  readonly signal?: AbortSignal;
  /** Told about each point. */
  readonly onProgress?: DequeueCostProgress;
  /** Told about each driver's `getDepth()` cost. */
  readonly onDepth?: (cost: DepthCost) => void;
  /**
   * The command line as run, recorded as `environment.command`; not
   * recorded when absent.
   */
  readonly command?: readonly string[];
}

/**
 * Measures every driver at every backlog, in order, and returns the
 * document `dequeue-cost.json` holds.  A driver whose server is not
 * available is skipped; after a point that is not `ok`, the driver's
 * larger backlogs are skipped.
 * @throws {Error} If `params.drivers` names a driver that is not built in.
 */
export async function runDequeueCost(
  params: DequeueCostParams,
  options: DequeueCostRunOptions = {},
): Promise<DequeueCostDocument> {
  const signal = options.signal ?? new AbortController().signal;
  const progress = options.onProgress ?? (() => {});
  const startedAt = new Date().toISOString();
  const drivers = params.drivers.map(builtinDriver);
  const services = new ServiceManager();
  const points: DequeueCostPoint[] = [];
  const servers: Record<string, string> = {};
  const depth: DepthCost[] = [];
  const implementations: Record<string, Implementation> = {};
  try {
    for (const driver of drivers) {
      const availability = await driverAvailability(driver, services, {
        signal,
      });
      let cutOff: string | null = availability.available
        ? null
        : availability.reason;
      for (const backlog of params.backlogs) {
        if (signal.aborted) break;
        if (cutOff != null) {
          points.push(unmeasured(driver, backlog, "skipped", cutOff));
          continue;
        }
        progress(driver.name, backlog, null);
        let point: DequeueCostPoint;
        try {
          point = await measurePoint(driver, backlog, params, services, signal);
          // What the driver's open() just loaded, before another driver
          // loads the same package name (redis and redis-1.8.7).
          const implementation = driver.queueSpecifier == null
            ? null
            : implementationFor(driver.queueSpecifier);
          if (implementation != null) {
            implementations[driver.name] ??= implementation;
          }
          if (driver.service != null) {
            servers[driver.service.name] ??=
              (await services.acquire(driver.service)).version;
          }
        } catch (error) {
          if (signal.aborted) break;
          point = unmeasured(driver, backlog, "failed", errorMessage(error));
        }
        points.push(point);
        progress(driver.name, backlog, point);
        if (point.status !== "ok") {
          cutOff = `cut off at backlog ${backlog} (${point.status})`;
        }
      }
      const depthBacklogs = params.depthBacklogs ?? [];
      if (depthBacklogs.length > 0 && !signal.aborted) {
        const cost = availability.available
          ? await measureDepthCost(
            driver,
            depthBacklogs,
            params.messageBytes,
            services,
            signal,
            params.delayed ?? 0,
          )
          : {
            driver: driver.name,
            supported: driver.depth != null,
            ...(driver.depth == null ? {} : { reason: cutOff ?? "" }),
          };
        depth.push(cost);
        options.onDepth?.(cost);
      }
    }
  } finally {
    await services.stopAll();
  }
  const fits = drivers.map((d) => fitCost(d.name, points)).filter((f) =>
    f != null
  );
  return {
    kind: "dequeue-cost",
    startedAt,
    finishedAt: new Date().toISOString(),
    params: recorded(params),
    environment: await environmentOf(drivers, servers, options.command),
    ...(Object.keys(implementations).length > 0 ? { implementations } : {}),
    points,
    fits,
    projections: fits.filter((f) => params.project.includes(f.driver)).map((
      f,
    ) => projectDrain(f, params.projectionBacklog)),
    ...(depth.length > 0 ? { depth } : {}),
  };
}

/** The built-in driver of that name, which must have a queue. */
function builtinDriver(name: string): Driver {
  const driver = findDriver(builtinDrivers, name);
  if (driver?.prepare == null || driver.open == null) {
    throw new Error(`"${name}" is no built-in driver with a queue`);
  }
  return driver;
}

/** A point that was not measured, and why. */
function unmeasured(
  driver: Driver,
  backlog: number,
  status: "skipped" | "failed",
  reason: string,
): DequeueCostPoint {
  return {
    driver: driver.name,
    backlog,
    status,
    reason,
    fillSeconds: null,
    dequeued: 0,
    msPerDequeue: null,
    gapMs: null,
  };
}

/** The parameters as the document records them, in its key order. */
function recorded(params: DequeueCostParams): DequeueCostParams {
  return {
    drivers: params.drivers,
    backlogs: params.backlogs,
    dequeues: params.dequeues,
    warmup: params.warmup,
    messageBytes: params.messageBytes,
    stepTimeoutSeconds: params.stepTimeoutSeconds,
    projectionBacklog: params.projectionBacklog,
    project: params.project,
    ...(params.depthBacklogs == null
      ? {}
      : { depthBacklogs: params.depthBacklogs }),
    ...(params.delayed == null ? {} : { delayed: params.delayed }),
  };
}

/**
 * The machine and software, as the bench records them, without what only a
 * bench run has (the sender's keys, the fanout).
 */
async function environmentOf(
  drivers: readonly Driver[],
  servers: Record<string, string>,
  command: readonly string[] | undefined,
): Promise<unknown> {
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
      ...await readCommitReading(),
      ...(command == null ? {} : { command }),
    });
  return environment;
}
