/**
 * Arrival order of the ordered workload: activity `index` of a run is step
 * `index % steps` of note `floor(index / steps)` (Create, Update, Delete
 * for three steps), and {@link OrderLedger} counts, per recipient and
 * note, the deliveries that arrive after a later step of the same note.
 *
 * A violation is defined once, here: the first accepted arrival of an
 * (activity, recipient) pair counts one violation when an accepted arrival
 * of a later step of the same note at the same recipient came before it.
 * Refused attempts (503, 410, dropped, unverified) are not arrivals: the
 * receiving server did not take them.  A retry accepted after a later
 * step is judged when it is accepted, and counts.  A pair accepted again (a
 * duplicate) is not judged again; the delivery ledger counts it as a
 * duplicate.
 *
 * @module
 */

/** The note and step of activity `index` when each note has `steps`. */
export function objectStep(
  index: number,
  steps: number,
): { readonly object: number; readonly step: number } {
  return { object: Math.floor(index / steps), step: index % steps };
}

/** Counts order violations among accepted first arrivals. */
export class OrderLedger {
  readonly #steps: number;
  readonly #recipients: number;
  /** Highest step accepted so far, per (note, recipient); -1 for none. */
  readonly #highest: Int8Array;
  #violations = 0;

  /**
   * An empty ledger for `total` activities in notes of `steps` activities
   * each, to `recipients` recipients.
   * @throws {RangeError} If `steps` is not between 2 and 127.
   */
  constructor(total: number, recipients: number, steps: number) {
    if (!Number.isInteger(steps) || steps < 2 || steps > 127) {
      throw new RangeError("steps per note must be a whole number, 2–127");
    }
    this.#steps = steps;
    this.#recipients = recipients;
    this.#highest = new Int8Array(Math.ceil(total / steps) * recipients)
      .fill(-1);
  }

  /**
   * Records the first accepted arrival of `pair`
   * (`activity × recipients + recipient`, as the delivery ledger indexes
   * it); returns whether it is a violation.
   */
  accept(pair: number): boolean {
    const activity = Math.floor(pair / this.#recipients);
    const recipient = pair % this.#recipients;
    const { object, step } = objectStep(activity, this.#steps);
    const slot = object * this.#recipients + recipient;
    if (step < this.#highest[slot]) {
      this.#violations++;
      return true;
    }
    this.#highest[slot] = step;
    return false;
  }

  /** Violations counted so far. */
  get violations(): number {
    return this.#violations;
  }
}
