/**
 * The driver contract: how the bench talks to one kind of message queue.
 *
 * A driver has two halves.  {@link Driver.prepare} runs in the runner process
 * once per run and creates an empty, private queue namespace (a table, a key
 * prefix, a file); it returns a JSON-compatible configuration.  The sender and
 * worker processes then call {@link Driver.open} with that configuration to get
 * a Fedify `MessageQueue`.  The runner never branches on a driver's name.
 *
 * @module
 */
import type { MessageQueue } from "@fedify/fedify";
import type {
  Availability,
  ServiceDefinition,
} from "../lib/services/service_types.ts";
import type { RuntimeName } from "../lib/results/mod.ts";

/** A JSON-compatible value, as passed from the runner to child processes. */
export type Json =
  | null
  | boolean
  | number
  | string
  | Json[]
  | { [key: string]: Json };

/**
 * Which suite runs a driver without naming it; see {@link Driver.suite}.
 */
export type SuiteTier = "default" | "all" | "named";

/** What {@link Driver.prepare} gets from the runner. */
export interface PrepareContext {
  /** A unique id for this run, safe for table names and key prefixes. */
  readonly runId: string;
  /** A temporary folder private to this run, removed after it. */
  readonly tempDir: string;
  /**
   * The URL of the driver's {@link Driver.service}, either given by the user
   * (for example `REDIS_URL`) or of a throwaway server the bench started.
   */
  readonly serviceUrl?: string;
}

/** An empty queue namespace made for one run. */
export interface PreparedQueue {
  /** Passed verbatim to {@link Driver.open} in every process of the run. */
  readonly config: Json;
  /** Removes everything the run left behind (tables, keys, files). */
  cleanup(): Promise<void>;
}

/** A queue opened in a sender or worker process. */
export interface OpenedQueue {
  /** The Fedify message queue. */
  readonly queue: MessageQueue;
  /**
   * Releases connections.  Called after every listener on the queue has
   * stopped.
   */
  close(): Promise<void>;
}

/**
 * Whether a queue, as installed, implements `orderingKey` (Fedify 2.0's
 * option, which `sendActivity` turns into one key per object and receiving
 * server) or ignores it.  Declared from the package's source; whether
 * order then holds is measured (the results' `ordering.violations`).
 */
export interface OrderingSupport {
  /** Whether it does: claims to handle a key's messages one at a time, in order. */
  readonly supported: boolean;
  /**
   * What that rests on, for the report: how it keeps order, or why not
   * (starting "not supported by the installed version" when the package
   * predates the option).
   */
  readonly note: string;
}

/** What a queue's `getDepth()` reports; see {@link Driver.depth}. */
export type DepthReport = "queued" | "ready-and-delayed";

/**
 * What every driver has: its name, its description, and whether its queue
 * is shared by processes.  A driver with only these runs no queue (as
 * `none`, the baseline of sending without one).
 */
export interface DriverCore {
  /** Short, unique, lowercase name used on the command line. */
  readonly name: string;
  /** One line for `--list` and reports. */
  readonly description: string;
  /**
   * Whether several processes that open the same configuration share one
   * queue.  If `true`, the runner consumes the queue in separate worker
   * processes, as a real deployment would; otherwise the sender process
   * consumes its own queue.
   */
  readonly crossProcess: boolean;
}

/**
 * The queue's life, for a driver that has one: made empty by the runner
 * for each run, opened in the sender and worker processes.
 */
export interface DriverLifecycle {
  /** Runner side: makes an empty queue for one run.  Absent: no queue. */
  prepare?(context: PrepareContext): Promise<PreparedQueue>;
  /** Child side: opens the queue made by {@link prepare}. */
  open?(config: Json): Promise<OpenedQueue>;
}

/** The server a driver needs, and whether it can run here. */
export interface DriverService {
  /** The server this driver needs, if any. */
  readonly service?: ServiceDefinition;
  /**
   * Says whether the driver can run here; when it cannot, a one-line reason
   * that names the fix.  Drivers with a {@link service} need not implement
   * this: the service's availability is checked by the runner.
   */
  availability?(): Promise<Availability>;
}

/**
 * What the queue does, as declared for the reports and the run's checks
 * (each unknown, or the usual, when absent).
 */
export interface DriverTraits {
  /**
   * Whether the queue lives only in the memory of the process that consumes
   * it, so that a crash of that process loses every message it held, by
   * design.  Crash reports say so instead of presenting the loss as a fault.
   */
  readonly volatile?: boolean;
  /**
   * When the queue lets go of a message it hands out: `before-handler` (it
   * deletes the message, or takes it out of its list, before the handler
   * runs: at most once), or `after-handler` (it acknowledges once the
   * handler has settled: at least once).  The stage report says what the
   * queue's turnaround then holds; unknown when absent.
   */
  readonly removes?: "before-handler" | "after-handler";
  /**
   * What the queue promises about deliveries in normal operation (no crash):
   * `"exactly-once"` (the default) if every message is handled once;
   * `"at-least-once"` if the queue itself may hand a message to a consumer
   * again although it was handled (Deno KV does), so duplicates are
   * reported but are not a fault, while a missing delivery still is.
   */
  readonly delivery?: "exactly-once" | "at-least-once";
  /**
   * The longest quiet period, in seconds, that this queue shows in normal
   * operation (for example a polling interval).  Stall detection never fires
   * before this has passed with some margin.
   */
  readonly quietPeriodSeconds?: number;
  /**
   * Whether the queue honours `orderingKey`; the ordering results say "not
   * declared by the driver" and count it unsupported when absent.
   */
  readonly ordering?: OrderingSupport;
  /**
   * What the installed queue's `getDepth()` (optional in Fedify 2.3's
   * `MessageQueue`) reports: `"ready-and-delayed"` when it counts ready and
   * delayed messages apart, `"queued"` when it gives only their sum.
   * Absent when the queue has no `getDepth()`.  A run with
   * `--sample-depth` fails if the opened queue disagrees.
   */
  readonly depth?: DepthReport;
  /**
   * For a queue whose every dequeue reads its whole ready backlog, so that
   * a message takes longer to get the more are waiting (Redis's queue reads
   * its whole ready set; `@fedify/postgres` 1.8.7 sorts its unindexed
   * table): what a dequeue costs per message waiting, ms
   * (`lib/measure/backlog_cost.ts`, from results/dequeue-cost).  A stopped
   * row's estimate then lets a delivery's time fall with the backlog
   * instead of extrapolating a constant rate (`lib/measure/estimate.ts`).
   * Absent for a queue whose dequeue does not read its backlog.
   */
  readonly dequeueMsPerQueued?: number;
  /**
   * Why {@link dequeueMsPerQueued} is there, in words, with where it was
   * measured and its finding (`lib/measure/backlog_cost.ts`'s
   * `backlogCause`): a row stopped because it cannot finish in time names
   * it as the cause.
   */
  readonly backlogCause?: string;
}

/**
 * Which code the queue is and where it runs: its module and package, the
 * runtimes it runs on, and which suite runs it without naming it.
 */
export interface DriverPackaging {
  /**
   * The URL of a module whose default export is (or includes) this driver,
   * so that sender and worker processes can load it: set it to
   * `import.meta.url` in a driver of your own.  Built-in drivers need none.
   */
  readonly module?: string;
  /**
   * The bare specifier this driver imports its `MessageQueue` class from,
   * e.g. `@fedify/redis`.  The process that opens the queue resolves it with
   * its import map and the results record what ran (`implementation`): the
   * official package from a registry, or a stand-in that `deno.json` maps
   * under the official name.  Absent for drivers without a queue.
   */
  readonly queueSpecifier?: string;
  /** npm packages whose versions the results record. */
  readonly packages?: readonly string[];
  /**
   * The runtimes its queue runs on in the app's processes (`--runtime`);
   * every runtime when absent.  A configuration on another runtime is
   * skipped, with {@link runtimesNote} as its reason.
   */
  readonly runtimes?: readonly RuntimeName[];
  /** Why the queue runs on {@link runtimes} only. */
  readonly runtimesNote?: string;
  /**
   * Which suite runs this driver without naming it: `"default"` for the
   * original benchmark's queues, which `deno task bench` runs when
   * `--drivers` is not given; `"all"` (when absent) for the other queues a
   * Fedify user can deploy, which `--drivers all` adds; `"named"` for the
   * drivers that answer a narrower question (a persistence mode, an
   * ablation), which run only when named.
   */
  readonly suite?: SuiteTier;
}

/**
 * A driver's row in the table of drivers in docs/library.md, which
 * `deno task docs` writes from the registry; both cells are Markdown, with
 * links relative to docs/.  Drivers next to each other in the registry
 * whose rows are equal share one row.
 */
export interface DocsRow {
  /** The Queue column: which queue class, package and version it runs. */
  readonly queue: string;
  /** The Notes column: what sets it apart, its server, when it runs. */
  readonly notes: string;
}

/** How the documentation presents a driver. */
export interface DriverDocs {
  /**
   * Its row in docs/library.md's table of drivers; absent, the row gives
   * its {@link DriverCore.description} as its queue and no notes.
   */
  readonly docs?: DocsRow;
}

/**
 * One kind of outbox queue that the bench can measure: a small core
 * ({@link DriverCore}) and optional capabilities, each of which a driver
 * has or leaves out: a queue ({@link DriverLifecycle}), a server
 * ({@link DriverService}), declared traits ({@link DriverTraits}), its
 * code's packages, runtimes and suite ({@link DriverPackaging}), and its
 * row in the documentation ({@link DriverDocs}).  A driver is one object
 * literal with whichever members it has.
 */
export interface Driver
  extends
    DriverCore,
    DriverLifecycle,
    DriverService,
    DriverTraits,
    DriverPackaging,
    DriverDocs {}
