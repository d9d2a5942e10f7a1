/**
 * Where a row's app ran, as the results record it: on how many cores
 * (`--cpus`), how far from its queue server (`--queue-rtt`), its workers on
 * how many hosts of their own (`--worker-hosts`), what the delay
 * proxy carried, and how many round trips to the server each delivery took.
 *
 * @module
 */

import type { AgentsRecord, WorkerCpuLimitRecord } from "./agents_record.ts";

/**
 * A row's deployment.  Every field is `null` for the default deployment:
 * the app on every core, its queue server on loopback.
 * @additionalProperties false
 */
export interface DeploymentRecord {
  /**
   * The cores the app's processes were pinned to (`--cpus`); `null`: all.
   * @minimum 1
   * @asType integer
   * @nullable
   */
  readonly cpus: number | null;
  /**
   * The round trip the delay proxy added between the app and its queue
   * server, ms (`--queue-rtt`); `null` when there was no proxy (not asked,
   * or the queue has no server: see {@link notApplied}).
   * @minimum 0
   */
  readonly queueRttMs: number | null;
  /**
   * Hosts of their own (network namespaces) the workers were spread over,
   * round-robin (`--worker-hosts`); `null`: the bench's host (not asked, or
   * the queue has no separate workers: see {@link notApplied}).
   * @minimum 1
   * @asType integer
   * @nullable
   */
  readonly workerHosts: number | null;
  /**
   * With `--worker-hosts`: each host's own address, one per namespace
   * made (no more than the worker processes).
   * @minItems 1
   */
  readonly hostAddresses?: readonly string[];
  /**
   * The row's worker processes when the suite swept them (`--scale`).
   * @minimum 1
   * @asType integer
   */
  readonly scale?: number;
  /**
   * With `--agents`, where the row's workers ran: on the agents, or on the
   * bench's host beside them (`--placement`).
   */
  readonly placement?: "agents" | "local";
  /** With `--cpus`: the CPUs each part of the run was pinned to. */
  readonly pinning?: PinningRecord;
  /**
   * With agents (`--agents`, `--sender-agent`): which role ran where, each
   * agent's CPU, memory and clock.
   */
  readonly agents?: AgentsRecord;
  /**
   * With `--worker-cpu-limit`: the CPU limit each worker process the bench
   * ran itself was held to.
   */
  readonly workerCpuLimit?: WorkerCpuLimitRecord;
  /**
   * Deployment flags the suite set that do not apply to this row, by the
   * field they would have set (`queueRttMs`, `workerHosts`), each with why.
   */
  readonly notApplied?: Readonly<Record<string, string>>;
}

/**
 * Which CPUs the parts of a run were pinned to (`taskset`), as CPU lists.
 * @additionalProperties false
 */
export interface PinningRecord {
  /** The app's processes, the sender and the workers: e.g. `0`. */
  readonly app: string;
  /**
   * The inbox and the bench's own process (with the delay proxy): the CPUs
   * the app did not get, e.g. `1`; `null` when the app had every CPU, and
   * nothing was pinned apart.
   */
  readonly others: string | null;
  /**
   * The queue server's process tree: the others' CPUs (every CPU when the
   * app had all); `null` when it was not pinned (see {@link serverNote}).
   */
  readonly server: string | null;
  /** Why the server was not pinned: the user's own, or no server. */
  readonly serverNote?: string;
}

/**
 * What one delay proxy carried over a run's measured window.
 * @additionalProperties false
 */
export interface ProxyTraffic {
  /**
   * Connections carried: open when the window started, or opened in it.
   * @minimum 0
   * @asType integer
   */
  readonly connections: number;
  /**
   * Round trips: chunks from the app that followed one from the server (or
   * opened a connection).  Pipelined requests sent together count once.
   * @minimum 0
   * @asType integer
   */
  readonly turns: number;
  /**
   * Chunks carried, both ways (reads from a socket, not packets).
   * @minimum 0
   * @asType integer
   */
  readonly chunks: number;
  /**
   * Bytes from the app to the server.
   * @minimum 0
   * @asType integer
   */
  readonly bytesUp: number;
  /**
   * Bytes from the server to the app.
   * @minimum 0
   * @asType integer
   */
  readonly bytesDown: number;
  /**
   * The delay the proxy added to each chunk one way, read to written, ms:
   * never below the one asked; how far above says whether it kept up.
   * @additionalProperties false
   */
  readonly addedDelayMs: {
    /**
     * @minimum 0
     */
    readonly median: number | null;
    /**
     * @minimum 0
     */
    readonly p99: number | null;
  };
  /**
   * The most chunks it carried within one second.
   * @minimum 0
   * @asType integer
   */
  readonly busiestChunksPerSecond: number;
}

/**
 * The delay proxies of a `--queue-rtt` row: one for the sender's
 * connections and one for the workers', both to the same server.
 * @additionalProperties false
 */
export interface ProxyRecord {
  /**
   * The delay added each way, ms: half the round trip.
   * @minimum 0
   */
  readonly oneWayMs: number;
  /** The sender's connections. */
  readonly sender: ProxyTraffic;
  /** The workers' connections; `null` when the sender consumes its queue. */
  readonly workers: ProxyTraffic | null;
}

/**
 * Round trips to the queue server per delivery that arrived, counted at
 * the delay proxies (turns over distinct deliveries).
 * @additionalProperties false
 */
export interface RoundTripsRecord {
  /**
   * The sender's: `sendActivity`'s enqueues (one fanout message per
   * activity with Fedify's fanout, or an outbox message per recipient
   * without).  With no separate workers, the sender's whole traffic, its
   * dequeues included.  `null` when nothing arrived.
   * @minimum 0
   */
  readonly enqueue: number | null;
  /**
   * The workers': taking messages and acknowledging them, a fanout
   * message's enqueue of its outbox messages, polls, and with
   * `--sample-depth` the first worker's `getDepth()` calls.  `null` without
   * separate workers or when nothing arrived.
   * @minimum 0
   */
  readonly dequeue: number | null;
}
