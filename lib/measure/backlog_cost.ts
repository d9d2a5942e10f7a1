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
  Record<string, { readonly ms: number; readonly measuredAs: string }>
> = {
  "redis@2.3.5": { ms: 0.004764, measuredAs: "redis" },
  "redis@1.8.7": { ms: 0.005643, measuredAs: "redis-1.8.7" },
  "postgres@1.8.7": { ms: 0.0001049, measuredAs: "postgres-1.8.7" },
};

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
