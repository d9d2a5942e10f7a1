/**
 * Where a row's roles ran when agents ran some of them (`--agents`,
 * `--sender-agent`, `swarm:SERVICE`): each agent's host, image, runtime and
 * limits, the roles it ran, their CPU and memory, and its clock against the
 * bench's before and after the row; and the per-process CPU limit of the
 * workers the bench ran itself (`--worker-cpu-limit`).
 *
 * @module
 */

/**
 * An agent's clock against the bench's, from round trips (NTP's way: the
 * reading with the shortest round trip).
 * @additionalProperties false
 */
export interface ClockEstimate {
  /** The agent's clock minus the bench's, ms. */
  readonly offsetMs: number;
  /**
   * Half the shortest round trip, ms: the offset is right within this.
   * @minimum 0
   */
  readonly uncertaintyMs: number;
  /**
   * The round trips taken.
   * @minimum 1
   * @asType integer
   */
  readonly roundTrips: number;
}

/**
 * An agent's clock over a row.
 * @additionalProperties false
 */
export interface AgentClockRecord {
  /** Estimated before the row; its children's timestamps were moved by it. */
  readonly before: ClockEstimate;
  /** Estimated after the row; `null` when the agent no longer answered. */
  readonly after: ClockEstimate | null;
  /**
   * The row's timestamps from this agent are right within this, ms: the
   * larger half round trip plus half the drift between the two estimates.
   * @minimum 0
   */
  readonly uncertaintyMs: number;
}

/**
 * An agent that ran some of a row's processes.
 * @additionalProperties false
 */
export interface AgentRecord {
  /** Its address as the bench reached it, `host:port`. */
  readonly address: string;
  /** Its host name. */
  readonly host: string;
  /** The image it ran from, `null` outside one. */
  readonly image: string | null;
  /** The runtime its children ran on, e.g. `deno 2.9.6`. */
  readonly runtime: string;
  /**
   * CPUs its host showed.
   * @minimum 1
   * @asType integer
   */
  readonly cpus: number;
  /**
   * Its CPU limit in cores (e.g. a swarm replica's), `null` without one.
   * @exclusiveMinimum 0
   */
  readonly cpuLimit: number | null;
  /**
   * Its memory limit in bytes, `null` without one.
   * @minimum 0
   */
  readonly memoryLimit: number | null;
  /** The roles it ran, one per process, e.g. `["worker"]`. */
  readonly roles: readonly string[];
  /**
   * CPU seconds of its processes from the start of sending to the end of
   * the row, read on its host; `null` when one could not be read.
   * @minimum 0
   */
  readonly cpuSeconds: number | null;
  /**
   * The largest peak RSS of its processes, bytes; `null` when unknown.
   * @minimum 0
   */
  readonly peakRssBytes: number | null;
  /** Its clock over the row. */
  readonly clock: AgentClockRecord;
}

/**
 * The agents of a row.
 * @additionalProperties false
 */
export interface AgentsRecord {
  /** Each agent, in the order the workers were spread over them. */
  readonly agents: readonly AgentRecord[];
  /**
   * The bench's address as the agents reach it: its queue server's and
   * inbox's forwarders listened there.
   */
  readonly gateway: string;
  /**
   * The largest clock uncertainty of the agents, ms: latencies and other
   * figures that compare timestamps of two hosts are right within it.
   * @minimum 0
   */
  readonly clockUncertaintyMs: number;
  /**
   * Whether the clock uncertainty is above a tenth of the median latency:
   * the row's latency figures are then marked as uncertain.
   */
  readonly latencyClockMarked: boolean;
}

/**
 * The CPU limit each worker the bench ran itself was held to
 * (`--worker-cpu-limit`): a control group's CFS quota, as Docker sets one.
 * @additionalProperties false
 */
export interface WorkerCpuLimitRecord {
  /**
   * Cores per worker process.
   * @exclusiveMinimum 0
   */
  readonly cpus: number;
  /**
   * The CFS quota per period, µs.
   * @minimum 1
   * @asType integer
   */
  readonly quotaMicros: number;
  /**
   * The CFS period, µs.
   * @minimum 1
   * @asType integer
   */
  readonly periodMicros: number;
  /** The control groups' version. */
  readonly cgroup: "v1" | "v2";
}
