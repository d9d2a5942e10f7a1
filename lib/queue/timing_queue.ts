/**
 * The bench's timings at the queue seam, where Fedify has no span: each
 * enqueue call, the wait from a message's enqueue to the driver's queue
 * handing it to a handler, the queue's turnaround between handlers, and
 * under `ParallelMessageQueue` the wait for a free worker slot and the
 * hand-over to it.
 *
 * {@link StageTiming.inner} wraps the driver's queue, inside Fedify's
 * `ParallelMessageQueue`: it writes the instant a message is due into the
 * message (one number under {@link READY_AT_KEY}, about 30 bytes beside an
 * outbox message's several KB), so that a worker in another process can
 * time its wait on the clock every process of a run shares, and removes it
 * again before Fedify's handler sees the message.  {@link StageTiming.outer}
 * wraps the parallel queue and splits, per message, the time between the
 * driver's hand-off and Fedify's handler starting in two: the wait for a
 * free slot (until the parallel wrapper's handler returns to the driver's
 * queue, which it does once it has started the work on a slot) and the
 * hand-over (from there to Fedify's handler starting: Fedify's
 * `ParallelMessageQueue` yields a `setTimeout(0)` first, and the timer
 * waits its turn on the event loop).
 *
 * The wrappers have `enqueueMany()` and `getDepth()` exactly when the
 * wrapped queue has them, and pass `nativeRetrial` on.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type { StageSamples } from "../measure/stage_samples.ts";
import type { Clock } from "./counting_queue.ts";

/** The key of the instant a message is due, epoch ms, inside the message. */
export const READY_AT_KEY = "__fqb_ready_at__";

type Handler = (message: unknown) => Promise<void> | void;

/**
 * When the driver's queue handed a message to the handler inside the
 * timing (`at`), and when that handler returned to it (`returned`): under
 * `ParallelMessageQueue`, once the work has started on a slot.
 */
interface Handed {
  readonly at: number;
  returned?: number;
}

/**
 * What the two wrappers share about the parallel wrapper's slots: when
 * each message was handed over, and when slots' handlers ended.
 */
class SlotLedger {
  /** When each message was handed over, for the slot wait and hand-over. */
  readonly handed = new WeakMap<object, Handed>();
  /** When slots' handlers ended, oldest first, not yet taken up. */
  readonly #freed: number[] = [];
  /** Whether the slots are timed (a wrapper that returns early wraps). */
  tracking = false;

  /** A slot's handler ended at `at`. */
  free(at: number): void {
    if (this.tracking) this.#freed.push(at);
  }

  /**
   * The pick-up of a message the parallel wrapper took at
   * `handed.returned`: from the slot's freeing it waited for (the oldest
   * one after its hand-over) to its being taken; `null` when no slot ended
   * while it waited (one was free when it came).  Slots freed before it
   * came waited for a message, not the other way round, and are dropped.
   */
  pickUp(handed: Handed): number | null {
    if (!this.tracking || handed.returned == null) return null;
    while (this.#freed.length > 0 && this.#freed[0] < handed.at) {
      this.#freed.shift();
    }
    const freed = this.#freed.shift();
    return freed == null ? null : handed.returned - freed;
  }
}

/** A message as Fedify enqueues it: an object with a `type`. */
type Stampable = Record<string, unknown>;

function isObject(message: unknown): message is Stampable {
  return typeof message === "object" && message != null &&
    !Array.isArray(message);
}

/** Times the stages at the queue seam of one process into `samples`. */
export class StageTiming {
  readonly #samples: StageSamples;
  readonly #clock: Clock;
  /** The slots' ledger, shared by the two wrappers. */
  readonly #slots = new SlotLedger();

  constructor(samples: StageSamples, clock: Clock) {
    this.#samples = samples;
    this.#clock = clock;
  }

  /** Wraps the driver's queue (inside any parallel wrapper). */
  inner(queue: MessageQueue): MessageQueue {
    return new InnerTimingQueue(
      queue,
      this.#samples,
      this.#clock,
      this.#slots,
    );
  }

  /**
   * Wraps the parallel queue around {@link inner}'s, timing the slot wait;
   * without a parallel wrapper there is no slot to wait for, and `queue`
   * is returned as it is.
   * @param returnsEarly Whether the parallel wrapper returns to the
   *   driver's queue once it has taken a message on a slot, as Fedify's
   *   does (then the pick-up and the hand-over are timed apart); `false`
   *   for one that returns when the work is done.
   */
  outer(
    queue: MessageQueue,
    parallel: boolean,
    returnsEarly = true,
  ): MessageQueue {
    if (!parallel) return queue;
    this.#slots.tracking = returnsEarly;
    return new SlotTimingQueue(
      queue,
      this.#samples,
      this.#clock,
      this.#slots,
    );
  }
}

/** Passes `enqueueMany`, `getDepth` and `nativeRetrial` through. */
abstract class Wrapper implements MessageQueue {
  protected readonly queue: MessageQueue;
  readonly nativeRetrial?: boolean;
  readonly enqueueMany?: (
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ) => Promise<void>;
  readonly getDepth?: () => Promise<MessageQueueDepth>;

  constructor(queue: MessageQueue) {
    this.queue = queue;
    this.nativeRetrial = queue.nativeRetrial;
    if (queue.enqueueMany != null) {
      this.enqueueMany = (messages, options) =>
        this.enqueueAll(messages, options);
    }
    if (queue.getDepth != null) this.getDepth = () => queue.getDepth!();
  }

  enqueue(
    message: unknown,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.queue.enqueue(message, options);
  }

  protected enqueueAll(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.queue.enqueueMany!(messages, options);
  }

  abstract listen(
    handler: Handler,
    options?: MessageQueueListenOptions,
  ): Promise<void>;
}

/** Stamps, and times the enqueue calls, the waits and the turnaround. */
class InnerTimingQueue extends Wrapper {
  readonly #samples: StageSamples;
  readonly #clock: Clock;
  readonly #slots: SlotLedger;
  #inFlight = 0;
  /** When the last handler returned with none left running, else `null`. */
  #idleSince: number | null = null;

  constructor(
    queue: MessageQueue,
    samples: StageSamples,
    clock: Clock,
    slots: SlotLedger,
  ) {
    super(queue);
    this.#samples = samples;
    this.#clock = clock;
    this.#slots = slots;
  }

  override async enqueue(
    message: unknown,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    const start = this.#clock();
    await this.queue.enqueue(this.#stamp(message, start, options), options);
    this.#samples.add("enqueue", this.#clock() - start);
  }

  protected override async enqueueAll(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    const start = this.#clock();
    await this.queue.enqueueMany!(
      messages.map((m) => this.#stamp(m, start, options)),
      options,
    );
    this.#samples.add("enqueue", this.#clock() - start);
  }

  listen(
    handler: Handler,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return this.queue.listen(async (message) => {
      const handed = this.#clock();
      const readyAt = this.#unstamp(message);
      if (readyAt != null) {
        const type = (message as Stampable).type;
        if (type === "outbox") {
          this.#samples.add("queue.wait", handed - readyAt);
        } else if (type === "fanout") {
          this.#samples.add("fanout.wait", handed - readyAt);
        }
        // The turnaround: this message was due before the last handler
        // returned, and nothing ran since, so the gap is the queue's own.
        if (
          this.#inFlight === 0 && this.#idleSince != null &&
          readyAt <= this.#idleSince
        ) {
          this.#samples.add("queue.after", handed - this.#idleSince);
        }
      }
      const record: Handed | null = isObject(message) ? { at: handed } : null;
      if (record != null) this.#slots.handed.set(message as object, record);
      this.#inFlight++;
      this.#idleSince = null;
      this.#samples.inFlight(this.#inFlight);
      try {
        return await handler(message);
      } finally {
        if (record != null) {
          record.returned = this.#clock();
          const pickUp = this.#slots.pickUp(record);
          if (pickUp != null) this.#samples.add("queue.pickup", pickUp);
        }
        this.#inFlight--;
        if (this.#inFlight === 0) this.#idleSince = this.#clock();
      }
    }, options);
  }

  /** The message with the instant it is due, or as it is if no object. */
  #stamp(
    message: unknown,
    start: number,
    options?: MessageQueueEnqueueOptions,
  ): unknown {
    if (!isObject(message)) return message;
    const delay = Math.max(0, options?.delay?.total("millisecond") ?? 0);
    return { ...message, [READY_AT_KEY]: start + delay };
  }

  /** Takes the stamp out of the message; `null` when it has none. */
  #unstamp(message: unknown): number | null {
    if (!isObject(message)) return null;
    const readyAt = message[READY_AT_KEY];
    if (typeof readyAt !== "number") return null;
    delete message[READY_AT_KEY];
    return readyAt;
  }
}

/**
 * Times the wait for a free slot of the parallel wrapper it wraps, and the
 * hand-over from the wrapper taking a message on a slot to the handler
 * starting.
 */
class SlotTimingQueue extends Wrapper {
  readonly #samples: StageSamples;
  readonly #clock: Clock;
  readonly #slots: SlotLedger;

  constructor(
    queue: MessageQueue,
    samples: StageSamples,
    clock: Clock,
    slots: SlotLedger,
  ) {
    super(queue);
    this.#samples = samples;
    this.#clock = clock;
    this.#slots = slots;
  }

  listen(
    handler: Handler,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return this.queue.listen(async (message) => {
      const handed = isObject(message)
        ? this.#slots.handed.get(message)
        : undefined;
      if (handed != null) {
        const start = this.#clock();
        // Returned before the start, as the parallel wrapper returns once
        // it has scheduled the work; if not, the whole wait is the slot's.
        const taken = handed.returned ?? start;
        if ((message as Stampable).type === "outbox") {
          this.#samples.add("queue.slot", taken - handed.at);
        }
        if (this.#slots.tracking) {
          this.#samples.add("queue.handover", start - taken);
        }
      }
      try {
        return await handler(message);
      } finally {
        this.#slots.free(this.#clock());
      }
    }, options);
  }
}
