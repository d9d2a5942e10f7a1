/**
 * What one dequeue costs per message waiting, for the queues whose dequeue
 * reads their whole ready backlog: Redis's queue reads its whole ready set
 * for every message, and `@fedify/postgres` 1.8.7 sorts its unindexed
 * table.  The slopes of the lines `deno task dequeue-cost` fitted to each
 * queue's time per dequeue against its backlog in results/dequeue-cost
 * (Intel Xeon host; `backlog_cost.test.ts` checks them against that file).
 * A stopped row's estimate (`lib/measure/estimate.ts`) uses them to let a
 * delivery's time fall with the backlog.
 *
 * @module
 */

/** The queue packages whose dequeue reads their backlog. */
export type BacklogQueue = "redis" | "postgres";

/**
 * ms per dequeue per message waiting, by package and version, and the
 * `dequeue-cost` driver each comes from.
 */
export const DEQUEUE_MS_PER_QUEUED: Readonly<
  Record<string, {
    readonly ms: number;
    readonly measuredAs: string;
    /** What the dequeue does that makes it read its backlog, in words. */
    readonly does: string;
    /** Its finding, a path from the project's root with its anchor. */
    readonly finding: string;
  }>
> = {
  "redis@2.3.5": {
    ms: 0.004764,
    measuredAs: "redis",
    does: "reads its whole ready set (ZRANGEBYSCORE without a limit) on " +
      "every dequeue",
    finding: "docs/findings.md#4-redis-dequeue",
  },
  "redis@1.8.7": {
    ms: 0.005643,
    measuredAs: "redis-1.8.7",
    does: "reads its whole ready set (ZRANGEBYSCORE without a limit) on " +
      "every dequeue",
    finding: "docs/findings.md#4-redis-dequeue",
  },
  "postgres@1.8.7": {
    ms: 0.0001049,
    measuredAs: "postgres-1.8.7",
    does: "scans and sorts its unindexed table on every dequeue",
    finding: "docs/findings.md#5-postgres-index",
  },
};

/** The backlog the cause's figure is given at: the default's 50,000. */
const CAUSE_BACKLOG = 50_000;

/**
 * Why a queue package at `version` slows with its backlog, in words, for the
 * reason of a row stopped because it cannot finish in time: what its
 * dequeue does, what that costs at the default's backlog by the fitted
 * cost, and where it was measured (results/dequeue-cost) and explained
 * (its finding); `null` when its dequeue does not read its backlog.
 */
export function backlogCause(
  queue: BacklogQueue,
  version: string | null | undefined,
): string | null {
  const ms = dequeueMsPerQueued(queue, version);
  if (ms == null) return null;
  const entry =
    Object.entries(DEQUEUE_MS_PER_QUEUED).find(([key, e]) =>
      key.startsWith(`${queue}@`) && e.ms === ms
    )![1];
  const at = Math.round(ms * CAUSE_BACKLOG);
  return `@fedify/${queue} ${version} ${entry.does}: about ${at} ms a ` +
    `dequeue with ${CAUSE_BACKLOG.toLocaleString("en-US")} messages waiting ` +
    `(${
      Number((ms * 1000).toPrecision(4))
    } ms per 1,000, results/dequeue-cost; ${entry.finding})`;
}

/**
 * The cost per message waiting of a queue package's dequeue at `version`,
 * ms; `null` when its dequeue does not read its backlog (or was not
 * measured).  Redis's queue reads its whole ready set in every version, so
 * a version not measured takes the nearest measured one (1.x → 1.8.7,
 * later → 2.3.5).
 */
export function dequeueMsPerQueued(
  queue: BacklogQueue,
  version: string | null | undefined,
): number | null {
  const exact = DEQUEUE_MS_PER_QUEUED[`${queue}@${version}`];
  if (exact != null) return exact.ms;
  if (queue !== "redis" || version == null) return null;
  const major = Number(version.split(".")[0]);
  if (!Number.isFinite(major)) return null;
  return DEQUEUE_MS_PER_QUEUED[major < 2 ? "redis@1.8.7" : "redis@2.3.5"].ms;
}
