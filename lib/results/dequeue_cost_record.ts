/**
 * What `deno task dequeue-cost` records in its `latest.json`: the
 * measured cost of one dequeue per driver and backlog, the line fitted to
 * each driver's cost, and the drain times projected from it; and reading
 * that file back, for re-rendering its report.
 *
 * @module
 */
import { readJsonFile, ResultsFileError } from "./read.ts";
import type { Implementation } from "./configuration.ts";
import type { DepthRecord } from "./fedify2.ts";

/** The parameters a dequeue-cost file records (all but where it went). */
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
  /**
   * Backlog sizes at which a `getDepth()` call is timed, for drivers whose
   * queue has one; absent in files made before it was measured.
   */
  readonly depthBacklogs?: readonly number[];
  /**
   * Messages due in an hour enqueued before each point's backlog (and
   * before the `getDepth()` backlogs); absent or 0 for none.
   */
  readonly delayed?: number;
}

/** The percentiles of the gaps between consecutive messages, ms. */
export interface GapPercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
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
  readonly gapMs: GapPercentiles | null;
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

/** What a dequeue-cost folder's `latest.json` holds. */
export interface DequeueCostDocument {
  readonly kind: "dequeue-cost";
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly params: DequeueCostParams;
  readonly environment: unknown;
  /**
   * Which code each driver's queue ran, by driver name (as a bench row's
   * `implementation`); absent in files made before it was recorded.
   */
  readonly implementations?: Readonly<Record<string, Implementation>>;
  readonly points: readonly DequeueCostPoint[];
  readonly fits: readonly CostFit[];
  readonly projections: readonly DrainProjection[];
  /**
   * What one `getDepth()` call takes per driver at each of
   * `params.depthBacklogs`; absent in files made before it was measured.
   */
  readonly depth?: readonly DepthCost[];
}

/**
 * One driver's `getDepth()` cost: `supported: false` for a queue without
 * it; otherwise `callMs` by backlog (as far as measured) and, when the
 * measurement broke off, why.
 */
export interface DepthCost extends DepthRecord {
  readonly driver: string;
  /** Why the measurement stopped early, if it did. */
  readonly reason?: string;
}

/** Timed `getDepth()` calls per backlog; the median is recorded. */
export const DEPTH_CALLS = 5;

/** The file's name in its folder, as in every results folder. */
export const DEQUEUE_COST_FILE = "latest.json";

/** Its name in folders written before it was `latest.json`, still read. */
export const OLD_DEQUEUE_COST_FILE = "dequeue-cost.json";

/** Whether parsed JSON says it is a dequeue-cost file (`"kind"`). */
export function isDequeueCostValue(value: unknown): boolean {
  return typeof value === "object" && value != null &&
    (value as { kind?: unknown }).kind === "dequeue-cost";
}

/**
 * Checks parsed JSON as a dequeue-cost file.
 * @throws {ResultsFileError} If it is not one; the message starts with
 *   `path`.
 */
export function validateDequeueCostDocument(
  value: unknown,
  path: string,
): DequeueCostDocument {
  if (!isDequeueCostValue(value)) {
    throw new ResultsFileError(
      `${path}: not a dequeue-cost file (no "kind": "dequeue-cost")`,
    );
  }
  const document = value as Partial<DequeueCostDocument>;
  for (const key of ["params", "points", "fits", "projections"] as const) {
    if (document[key] == null) {
      throw new ResultsFileError(`${path}: missing "${key}"`);
    }
  }
  return document as DequeueCostDocument;
}

/**
 * Reads a dequeue-cost file back.
 * @throws {ResultsFileError} If it is missing ({@link ResultsFileError.missing}
 *   is then `true`), unreadable, not JSON, or not a dequeue-cost file; the
 *   message starts with `path`.
 */
export async function readDequeueCostDocument(
  path: string,
): Promise<DequeueCostDocument> {
  return validateDequeueCostDocument(await readJsonFile(path), path);
}
