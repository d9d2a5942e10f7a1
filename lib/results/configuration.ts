/**
 * What a configuration is: its driver (and the two pseudo-drivers), how a
 * parallel queue wraps it, which implementation ran, the workload and ordering
 * key it sent, and the inbox it sent to; with `configurationId`, which names
 * it.
 *
 * @module
 */

/**
 * How a parallel queue wraps a driver's queue: Fedify's
 * `ParallelMessageQueue`, or `AwaitingParallelMessageQueue`
 * (`lib/queue/awaiting_parallel_queue.ts`).
 */
export type ParallelImpl = "fedify" | "awaiting" | "prompt";

/** The runtimes the app's processes can run on (`--runtime`). */
export type RuntimeName = "deno" | "node" | "bun";

/** The runtime the app's processes ran on, as a row records it. */
export interface RuntimeIdentity {
  /** Which runtime. */
  readonly name: RuntimeName;
  /** Its version, e.g. `26.10.0`. */
  readonly version: string;
}

/**
 * The implementation of a driver's queue that a run measured (see
 * `drivers/packages.ts`, which loads and records it).
 * @required ["specifier", "resolved", "official"]
 */
export interface Implementation {
  /** The bare specifier the driver imports, e.g. `@fedify/denokv`. */
  readonly specifier: string;
  /**
   * What ran, with no absolute path of the machine: `name@version` for a
   * registry package, a path relative to the Fedify source tree for a
   * package loaded from one (`packages/redis/src/mod.ts`), a path relative
   * to this project for a stand-in.  (Files written before
   * {@link Implementation.origin} existed hold the URL as resolved.)
   */
  readonly resolved: string;
  /**
   * Whether it is the package's own released code: from a registry, or
   * from a Fedify source tree at that release (its tag, unchanged; or,
   * without git, a tree whose package declares a release version).  A tree
   * at another commit, and a stand-in, are not.
   */
  readonly official: boolean;
  /** The package's version: the registry's, or the source tree's `deno.json`. */
  readonly version: string | null;
  /**
   * Where the code came from: `registry` (the name `deno.json` maps to a
   * registry package), `fedify-source` (`--fedify-source`), `stand-in`
   * (the project's own module under the official name).  Absent in files
   * written before it existed.
   */
  readonly origin?: ImplementationOrigin;
  /** With `fedify-source`: the tree's git commit and tag, when it has them. */
  readonly ref?: SourceRefRecord;
}

/** See {@link Implementation.origin}. */
export type ImplementationOrigin = "registry" | "fedify-source" | "stand-in";

/**
 * Which code a Fedify source tree held; all `null` when its commit could
 * not be read ({@link SourceRefRecord.noCommitReason} says why).
 */
export interface SourceRefRecord {
  /** Its git commit. */
  readonly commit: string | null;
  /** The tag at exactly that commit. */
  readonly tag: string | null;
  /** Whether the checkout had uncommitted changes. */
  readonly dirty: boolean | null;
  /**
   * Why {@link commit} is `null`, in the words of the environment's
   * `noCommitReason` (`not a git checkout`, `git not found`, …).  Absent
   * when a commit is recorded, and in files written before it was recorded.
   * @minLength 1
   */
  readonly noCommitReason?: string;
}

/**
 * The driver name of the baseline's rows (no queue, no `sendActivity`: the
 * sender signs and POSTs every delivery itself), as
 * a result's `driver` records it.
 */
export const BASELINE_DRIVER = "baseline";

/**
 * Fedify's `fanout` option of `sendActivity`: `auto` fans out (one message
 * per activity, expanded into one per inbox by a worker) from 5 recipients
 * on, `skip` never does, `force` always does.
 */
export type FanoutMode = "auto" | "skip" | "force";

/**
 * What the sender sends: `create`, independent `Create(Note)` activities
 * (the default); `cud`, a `Create`, an `Update` and a `Delete` of each
 * note, back to back, as a user's edit-then-delete.
 */
export type Workload = "create" | "cud";

/**
 * The `orderingKey` each `sendActivity` passes: `none`, no key; `object`,
 * the note's id, so that Fedify keeps each note's activities in order per
 * receiving server where the queue honours it.
 */
export type OrderingKey = "none" | "object";

/** An inbox latency: fixed (`min === max`) or uniform over a range, in ms. */
export interface LatencyRange {
  /**
   * Shortest answer delay, ms.
   * @minimum 0
   */
  readonly minMs: number;
  /**
   * Longest answer delay, ms.
   * @minimum 0
   */
  readonly maxMs: number;
}

/** The fake inbox's behaviour profile, as given on the command line. */
export interface InboxProfile {
  /** Delay before each answer; `null` answers at once. */
  readonly latency: LatencyRange | null;
  /**
   * Share of deliveries answered 503 on their first attempt.
   * @minimum 0
   * @maximum 1
   */
  readonly errorRate: number;
  /**
   * Share of recipients whose inbox answers 410 Gone, always.
   * @minimum 0
   * @maximum 1
   */
  readonly goneRate: number;
  /**
   * Share of deliveries whose first attempt has its connection dropped.
   * @minimum 0
   * @maximum 1
   */
  readonly dropRate: number;
  /** Whether to verify each request's HTTP signature. */
  readonly verifySignatures: boolean;
  /** Seed of the draw of failing deliveries. */
  readonly seed: number;
  /**
   * Share of recipients whose inbox fails every request (503), on a host
   * of its own; absent when none (`--inbox-dead-rate`).
   * @minimum 0
   * @maximum 1
   */
  readonly deadRate?: number;
}

/**
 * The driver name of the load generator's row in a steady-load suite: the
 * sender's `sendActivity` calls, from several closed loops at once, into a
 * queue that accepts and discards every message; its `callsPerSecond` is
 * the highest rate the generator itself can offer here.
 */
export const GENERATOR_DRIVER = "generator";

/** The id of a configuration: the driver name, and `-xN` for parallelism N > 1. */
export function configurationId(driver: string, parallelism: number): string {
  return parallelism > 1 ? `${driver}-x${parallelism}` : driver;
}
