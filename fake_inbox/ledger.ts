/**
 * Exact accounting of deliveries: which (activity, recipient) pairs arrived,
 * when each first arrived, and what arrived more than once or was never
 * expected at all.
 *
 * @module
 */

/** What a run expects the inbox to receive. */
export interface Expectation {
  /** The run id embedded in every activity id. */
  readonly runId: string;
  /** Number of activities. */
  readonly total: number;
  /** Number of recipients each activity goes to. */
  readonly recipients: number;
}

/** A snapshot of the ledger's counters. */
export interface LedgerStats {
  /** `total × recipients`. */
  readonly expected: number;
  /** Distinct (activity, recipient) pairs that arrived. */
  readonly delivered: number;
  /** Arrivals of a pair that had already arrived. */
  readonly duplicates: number;
  /** `expected - delivered`. */
  readonly missing: number;
  /** Requests that were not an expected delivery. */
  readonly unexpected: number;
  /** Every inbox request, expected or not. */
  readonly requests: number;
  /** Epoch milliseconds of the first delivery, or `null`. */
  readonly firstAt: number | null;
  /** Epoch milliseconds of the latest first-arrival, or `null`. */
  readonly lastAt: number | null;
  /** Epoch milliseconds of the latest accepted request of any kind. */
  readonly lastRequestAt: number | null;
  /** Requests for expected pairs, accepted or refused. */
  readonly attempts: number;
  /** Pairs attempted again after a refused attempt (retries). */
  readonly retried: number;
  /** Attempts the inbox refused on purpose, by how. */
  readonly refused: Readonly<Record<Refusal, number>>;
  /** Pairs addressed to a gone recipient that were attempted. */
  readonly goneAttempted: number;
}

/** How the inbox refused an attempt. */
export type Refusal = "error" | "gone" | "drop" | "unverified";

/** Why a request was not counted as a delivery. */
export type Rejection =
  | "bad-path"
  | "bad-recipient"
  | "bad-body"
  | "foreign-activity";

const ACTIVITY_PATH = /\/activities\/([^/]+)\/(\d+)$/;
const INBOX_PATH = /^\/users\/(\d+)\/inbox$/;

/**
 * Builds the id of activity number `index` of a run, under `origin`.  The
 * ledger recognizes exactly these ids.
 */
export function activityId(origin: string, runId: string, index: number): URL {
  return new URL(`/activities/${runId}/${index}`, origin);
}

/** The inbox URL of recipient `n` on an inbox server at `origin`. */
export function inboxUrl(origin: string, n: number): URL {
  return new URL(`/users/${n}/inbox`, origin);
}

/** The actor id of recipient `n` on an inbox server at `origin`. */
export function recipientId(origin: string, n: number): URL {
  return new URL(`/users/${n}`, origin);
}

/**
 * Counts deliveries of one run.  Memory is two typed arrays of
 * `total × recipients` entries.
 */
export class DeliveryLedger {
  readonly #expectation: Expectation;
  readonly #counts: Uint32Array;
  readonly #attempts: Uint32Array;
  #attemptTotal = 0;
  #retried = 0;
  #goneAttempted = 0;
  readonly #refused: Record<Refusal, number> = {
    error: 0,
    gone: 0,
    drop: 0,
    unverified: 0,
  };
  readonly #firstArrival: Float64Array;
  #delivered = 0;
  #duplicates = 0;
  #unexpected = 0;
  #requests = 0;
  #firstAt: number | null = null;
  #lastAt: number | null = null;
  #lastRequestAt: number | null = null;
  readonly #rejections: Record<Rejection, number> = {
    "bad-path": 0,
    "bad-recipient": 0,
    "bad-body": 0,
    "foreign-activity": 0,
  };

  /**
   * Creates an empty ledger for `expectation`.
   * @throws {RangeError} If `total × recipients` is negative or not a whole
   *   number.
   */
  constructor(expectation: Expectation) {
    const size = expectation.total * expectation.recipients;
    // No expected delivery (0 activities) is allowed: the idle measurement
    // and the load generator's run expect none, and count any as unexpected.
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new RangeError("total × recipients must be a whole number");
    }
    this.#expectation = expectation;
    this.#counts = new Uint32Array(size);
    this.#attempts = new Uint32Array(size);
    this.#firstArrival = new Float64Array(size).fill(NaN);
  }

  /**
   * Records one inbox request that the inbox accepts.
   * @param path The request's URL path, e.g. `/users/3/inbox`.
   * @param activityId The `id` of the posted activity, if it had one.
   * @param at Arrival time in epoch milliseconds.
   * @returns `"delivered"`, `"duplicate"`, or the reason it was unexpected.
   */
  record(
    path: string,
    activityId: string | undefined,
    at: number,
  ): "delivered" | "duplicate" | Rejection {
    const pair = this.locate(path, activityId, at);
    if (typeof pair !== "number") return pair;
    this.attempt(pair);
    return this.deliver(pair, at);
  }

  /**
   * Finds the expected pair a request is for, counting the request; an
   * unexpected request is counted as such and its reason returned.
   */
  locate(
    path: string,
    activityId: string | undefined,
    at: number,
  ): number | Rejection {
    this.#requests++;
    this.#lastRequestAt = at;
    const outcome = this.#classify(path, activityId);
    if (typeof outcome !== "number") {
      this.#unexpected++;
      this.#rejections[outcome]++;
    }
    return outcome;
  }

  /** Counts an attempt at `pair`; returns its number, 1 for the first. */
  attempt(pair: number): number {
    this.#attemptTotal++;
    const n = ++this.#attempts[pair];
    // A second attempt at a pair not yet accepted is a retry; one after an
    // acceptance is a duplicate, counted by deliver().
    if (n === 2 && this.#counts[pair] === 0) this.#retried++;
    return n;
  }

  /** Records that `pair` was accepted at `at`. */
  deliver(pair: number, at: number): "delivered" | "duplicate" {
    const seen = this.#counts[pair]++;
    if (seen > 0) {
      this.#duplicates++;
      return "duplicate";
    }
    this.#delivered++;
    this.#firstArrival[pair] = at;
    if (this.#firstAt == null || at < this.#firstAt) this.#firstAt = at;
    if (this.#lastAt == null || at > this.#lastAt) this.#lastAt = at;
    return "delivered";
  }

  /** Records that an attempt at `pair` was refused. */
  refuse(pair: number, how: Refusal): void {
    this.#refused[how]++;
    if (how === "gone" && this.#attempts[pair] === 1) this.#goneAttempted++;
  }

  #classify(path: string, id: string | undefined): number | Rejection {
    const inbox = INBOX_PATH.exec(path);
    if (inbox == null) return "bad-path";
    const recipient = Number(inbox[1]);
    if (recipient >= this.#expectation.recipients) return "bad-recipient";
    if (id == null) return "bad-body";
    let pathname: string;
    try {
      pathname = new URL(id).pathname;
    } catch {
      return "bad-body";
    }
    const match = ACTIVITY_PATH.exec(pathname);
    if (match == null || match[1] !== this.#expectation.runId) {
      return "foreign-activity";
    }
    const index = Number(match[2]);
    if (index >= this.#expectation.total) return "foreign-activity";
    return index * this.#expectation.recipients + recipient;
  }

  /** The current counters. */
  stats(): LedgerStats {
    const expected = this.#counts.length;
    return {
      expected,
      delivered: this.#delivered,
      duplicates: this.#duplicates,
      missing: expected - this.#delivered,
      unexpected: this.#unexpected,
      requests: this.#requests,
      firstAt: this.#firstAt,
      lastAt: this.#lastAt,
      lastRequestAt: this.#lastRequestAt,
      attempts: this.#attemptTotal,
      retried: this.#retried,
      refused: { ...this.#refused },
      goneAttempted: this.#goneAttempted,
    };
  }

  /** Counts of unexpected requests by reason. */
  rejections(): Readonly<Record<Rejection, number>> {
    return { ...this.#rejections };
  }

  /**
   * First-arrival time of every expected pair, indexed by
   * `activity × recipients + recipient`; `NaN` where none arrived.
   */
  arrivals(): Float64Array {
    return this.#firstArrival.slice();
  }

  /** How many times each expected pair was accepted, same indexing. */
  counts(): Uint32Array {
    return this.#counts.slice();
  }

  /** How many attempts each expected pair had, same indexing. */
  attemptCounts(): Uint32Array {
    return this.#attempts.slice();
  }
}
