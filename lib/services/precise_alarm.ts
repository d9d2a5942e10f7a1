/**
 * Waiting until a moment with sub-millisecond precision, for the delay
 * proxy: Deno's timers fire about a millisecond after the time asked and
 * no sooner than about 1 ms, too coarse for a round trip of 1 ms.  A worker
 * thread sleeps in `Atomics.wait` (a futex, whose timeout is fine-grained)
 * until the earliest moment asked, and posts back; measured here, it wakes
 * the main thread about 0.2 ms late.  Moments are handed over through
 * shared memory, so the worker never needs its event loop, and a wait is
 * never short: {@link PreciseAlarm.until} checks the clock itself after
 * every wake-up.
 *
 * @module
 */

/** Waits that can be pending at once; more fall back to timers. */
const SLOTS = 256;

/** Slot states in the shared memory. */
const FREE = 0;
const PENDING = 1;
const FIRED = 2;

/**
 * The worker: on its one message (the shared buffer) it loops until told to
 * stop, firing every pending slot whose moment has come and sleeping until
 * the next one or until the main thread adds one.
 */
const WORKER_SOURCE = `
self.onmessage = (event) => {
  const { buffer, slots } = event.data;
  const control = new Int32Array(buffer, 0, 2);
  const state = new Int32Array(buffer, 8, slots);
  const due = new Float64Array(buffer, 8 + 4 * slots + (slots % 2 === 0 ? 0 : 4), slots);
  for (;;) {
    if (Atomics.load(control, 1) !== 0) return;
    const seen = Atomics.load(control, 0);
    const now = performance.timeOrigin + performance.now();
    let next = Infinity;
    for (let i = 0; i < slots; i++) {
      if (Atomics.load(state, i) !== ${PENDING}) continue;
      if (due[i] <= now) {
        Atomics.store(state, i, ${FIRED});
        self.postMessage(i);
      } else if (due[i] < next) next = due[i];
    }
    if (next === Infinity) Atomics.wait(control, 0, seen);
    else Atomics.wait(control, 0, seen, next - now);
  }
};
`;

/** Waits until `performance.now()` reaches `due` with timers alone. */
async function timerUntil(due: number): Promise<void> {
  for (;;) {
    const left = due - performance.now();
    if (left <= 0) return;
    // Timers fire about 1 ms late: ask a millisecond less, at least 1 ms.
    const ask = Math.max(1, Math.ceil(left) - 1);
    await new Promise((resolve) => setTimeout(resolve, ask));
  }
}

/** A worker thread that wakes waits on time; {@link close} it when done. */
export class PreciseAlarm {
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #state: Int32Array;
  readonly #due: Float64Array;
  readonly #free: number[] = [];
  readonly #waiting = new Map<number, () => void>();
  #closed = false;

  private constructor() {
    const padding = SLOTS % 2 === 0 ? 0 : 4;
    const buffer = new SharedArrayBuffer(8 + 4 * SLOTS + padding + 8 * SLOTS);
    this.#control = new Int32Array(buffer, 0, 2);
    this.#state = new Int32Array(buffer, 8, SLOTS);
    this.#due = new Float64Array(buffer, 8 + 4 * SLOTS + padding, SLOTS);
    for (let slot = SLOTS - 1; slot >= 0; slot--) this.#free.push(slot);
    const url = URL.createObjectURL(
      new Blob([WORKER_SOURCE], { type: "text/javascript" }),
    );
    try {
      this.#worker = new Worker(url, { type: "module" });
    } finally {
      URL.revokeObjectURL(url);
    }
    this.#worker.onmessage = (event: MessageEvent<number>) => {
      const slot = event.data;
      const wake = this.#waiting.get(slot);
      this.#waiting.delete(slot);
      Atomics.store(this.#state, slot, FREE);
      this.#free.push(slot);
      wake?.();
    };
    this.#worker.postMessage({ buffer, slots: SLOTS });
  }

  /** Starts the worker thread. */
  static start(): PreciseAlarm {
    return new PreciseAlarm();
  }

  /**
   * Waits until `performance.now()` reaches `due`, never less: on the
   * worker's wake-up, or on timers when every slot is taken or the alarm
   * is closed.
   */
  async until(due: number): Promise<void> {
    for (;;) {
      if (performance.now() >= due) return;
      const slot = this.#closed ? undefined : this.#free.pop();
      if (slot == null) return await timerUntil(due);
      await new Promise<void>((resolve) => {
        this.#waiting.set(slot, resolve);
        this.#due[slot] = performance.timeOrigin + due;
        Atomics.store(this.#state, slot, PENDING);
        Atomics.add(this.#control, 0, 1);
        Atomics.notify(this.#control, 0);
      });
    }
  }

  /** Stops the worker; pending waits go on with timers. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    Atomics.store(this.#control, 1, 1);
    Atomics.add(this.#control, 0, 1);
    Atomics.notify(this.#control, 0);
    this.#worker.terminate();
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const wake of waiting) wake();
  }
}
