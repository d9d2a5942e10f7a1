/**
 * The machine and software a results file was measured on, the commit and
 * command it came from, and the calibrations of the machine's speed.
 *
 * @module
 */
import type { RuntimeIdentity } from "./configuration.ts";
import type { Spread } from "./figures.ts";

/**
 * What a text field of an {@link Environment} says when the bench could not
 * read it (a number it could not read is `null`, or `0` for the memory).
 */
export const UNKNOWN = "unknown";

/**
 * {@link Environment.noCommitReason} (and a source tree's) when the folder
 * has no `.git` of its own: a downloaded archive, or the project imported
 * as a library.
 */
export const NOT_A_GIT_CHECKOUT = "not a git checkout";

/**
 * {@link Environment.noCommitReason} (and a source tree's) when the folder
 * is a git checkout but no `git` executable is on `PATH`.
 */
export const GIT_NOT_FOUND = "git not found";

/** The machine and software a suite ran on, as the bench read them. */
export interface Environment {
  /** CPU model name, logical cores, and clock in MHz when known. */
  readonly cpu: {
    readonly model: string;
    /**
     * @minimum 0
     * @asType integer
     */
    readonly cores: number;
    readonly mhz: number | null;
  };
  /**
   * Total memory in bytes.
   * @minimum 0
   */
  readonly memoryBytes: number;
  /** Operating system: pretty name, kernel release, architecture. */
  readonly os: {
    readonly name: string;
    readonly kernel: string;
    readonly arch: string;
  };
  /** Runtime versions. */
  readonly runtime: {
    readonly deno: string;
    readonly v8: string;
    readonly typescript: string;
  };
  /** Exact versions of Fedify and every driver package, by package name. */
  readonly packages: Readonly<Record<string, string>>;
  /** Queue server versions, by service name (e.g. `redis`). */
  readonly servers: Readonly<Record<string, string>>;
  /** The sender's key types, e.g. `RSA-2048 (RSASSA-PKCS1-v1_5) + Ed25519`. */
  readonly senderKeys: string;
  /** Fedify's fanout option. */
  readonly fanout: string;
  /**
   * How fast the machine was at the suite's start and end; absent in files
   * written before it was recorded, or when the suite was not calibrated.
   */
  readonly calibration?: Calibration;
  /**
   * This project's git commit the suite ran from; `null` when it could not
   * be read ({@link noCommitReason} says why); absent in files written
   * before it was recorded.
   */
  readonly commit?: Commit | null;
  /**
   * Why {@link commit} is `null`: {@link NOT_A_GIT_CHECKOUT},
   * {@link GIT_NOT_FOUND}, or what went wrong (`git failed: …`, `git could
   * not run: …`).  Absent when a commit is recorded, and in files written
   * before it was recorded.
   * @minLength 1
   */
  readonly noCommitReason?: string;
  /**
   * The command line as run: the bench's environment variables that were
   * set (`TOTAL=20`), the script (`bench.ts`), then its arguments; `null`
   * for a suite run through the library (`runBenchmark()`); absent in files
   * written before it was recorded.
   */
  readonly command?: readonly string[] | null;
}

/** A git commit of this project, read when the suite started. */
export interface Commit {
  /**
   * The full hash of `HEAD`.
   * @pattern ^[0-9a-f]{40,64}$
   */
  readonly sha: string;
  /**
   * Whether the working tree had changes not committed (`git status
   * --porcelain` printed anything, untracked files included).
   */
  readonly dirty: boolean;
}

/**
 * The sign rate of the runtime the app ran on (`--runtime`), measured in a
 * process of that runtime just before the row (`lib/child/sign_rate.ts`):
 * RSA-2048 signatures per second on one thread, as
 * {@link CalibrationPoint.rsaSignsPerSecond} measures the bench's own
 * (Deno).  `deno task compare` normalises by the bench's calibration, not
 * by this.
 */
export interface AppSignRate {
  /** The runtime that signed. */
  readonly runtime: RuntimeIdentity;
  /** The median of the slices' rates. */
  readonly rsaSignsPerSecond: number;
  /** Min and max over the slices. */
  readonly spread: Spread;
  /**
   * How many slices.
   * @asType integer
   */
  readonly slices: number;
}

/**
 * One calibration: the machine's rate at the work a delivery costs, each the
 * median over short slices, with their min and max as its noise.
 */
export interface CalibrationPoint {
  /**
   * When it started, ISO 8601.
   * @format date-time
   */
  readonly measuredAt: string;
  /**
   * Slices each rate was measured in.
   * @minimum 1
   * @asType integer
   */
  readonly slices: number;
  /**
   * Seconds per slice.
   * @exclusiveMinimum 0
   */
  readonly sliceSeconds: number;
  /**
   * RSA-2048 RSASSA-PKCS1-v1_5 SHA-256 signatures per second, one at a time
   * on one core: the sender's dominant cost.
   * @exclusiveMinimum 0
   */
  readonly rsaSignsPerSecond: number;
  /**
   * RSA-2048 signatures per second on {@link threads} threads at once, one
   * signature at a time on each: the parallelism a row could get.  Absent
   * in files written before it was recorded.
   * @exclusiveMinimum 0
   */
  readonly rsaSignsPerSecondAllCores?: number;
  /**
   * Threads of {@link rsaSignsPerSecondAllCores}: the machine's cores.
   * @minimum 1
   * @asType integer
   */
  readonly threads?: number;
  /**
   * Loopback HTTP POSTs of a 2 KB JSON body per second, 8 in flight, to a
   * trivial server in its own process answering 202.
   * @exclusiveMinimum 0
   */
  readonly loopbackRequestsPerSecond: number;
  /** Min and max of each rate over the slices. */
  readonly spread: {
    readonly rsaSignsPerSecond: RateSpread;
    readonly rsaSignsPerSecondAllCores?: RateSpread;
    readonly loopbackRequestsPerSecond: RateSpread;
  };
}

/**
 * Smallest and largest of a calibration rate over its slices: a
 * {@link Spread} whose ends are rates, so above 0.
 */
export interface RateSpread {
  /**
   * Smallest.
   * @exclusiveMinimum 0
   */
  readonly min: number;
  /**
   * Largest.
   * @exclusiveMinimum 0
   */
  readonly max: number;
}

/** The machine's speed at the start and the end of a suite. */
export interface Calibration {
  /** Before the first configuration. */
  readonly start: CalibrationPoint;
  /** After the last; `null` while running or when the suite was stopped. */
  readonly end: CalibrationPoint | null;
}
