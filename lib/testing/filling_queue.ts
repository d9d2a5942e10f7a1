/**
 * A made-up queue whose dequeue reads its whole backlog, filling from
 * fanout messages: its deliveries and fanout messages handled over time,
 * for tests of the estimate and the stop rule while such a queue fills.
 *
 * @module
 */
import {
  type DeliveryPoint,
  estimateTotal,
  type TotalEstimate,
} from "../measure/estimate.ts";

/** A made-up filling queue's timeline and the parameters that made it. */
export interface FillingQueue {
  readonly activities: number;
  readonly perFanout: number;
  /** Seconds every hand-out takes, whatever waits. */
  readonly a: number;
  /** Seconds every hand-out takes per message waiting. */
  readonly c: number;
  readonly deliveries: DeliveryPoint[];
  readonly fanouts: DeliveryPoint[];
  /** When its last delivery came, seconds. */
  readonly end: number;
}

/**
 * A queue whose every hand-out takes `a + c × waiting` seconds, filling
 * from `activities` fanout messages of `perFanout` outbox messages each,
 * one fanout message in every `every` hand-outs while any is left (and
 * whenever nothing else waits), and every hand-out a fanout message once
 * `fanoutsFirstFrom` of them are handled (as Redis's queue, which hands out
 * its oldest messages first, does with the fanout messages still waiting):
 * its deliveries and fanout points, once a second, and when its last
 * delivery came.
 */
export function fillingQueue(
  activities: number,
  perFanout: number,
  every: number,
  a: number,
  c: number,
  fanoutsFirstFrom = activities,
): FillingQueue {
  const deliveries: DeliveryPoint[] = [];
  const fanouts: DeliveryPoint[] = [];
  let t = 0;
  let fanned = 0;
  let delivered = 0;
  let outbox = 0;
  let next = 1;
  for (let handed = 0; delivered < activities * perFanout; handed++) {
    t += a + c * (activities - fanned + outbox);
    if (
      fanned < activities &&
      (handed % every === 0 || outbox === 0 || fanned >= fanoutsFirstFrom)
    ) {
      fanned++;
      outbox += perFanout;
    } else {
      outbox--;
      delivered++;
    }
    while (t >= next) {
      deliveries.push([next, delivered]);
      fanouts.push([next, fanned]);
      next++;
    }
  }
  return { activities, perFanout, a, c, deliveries, fanouts, end: t };
}

/**
 * The estimate of a {@link fillingQueue} once `fanned` of its fanout
 * messages are handled, as the watch makes it then: its driver declaring
 * the queue's own cost per message waiting, its stages its own time per
 * hand-out, its queue not yet filled.
 */
export function estimateWhenFanned(
  queue: FillingQueue,
  fanned: number,
): { nowSeconds: number; estimate: TotalEstimate | null } {
  const nowSeconds = queue.fanouts.find(([, n]) => n >= fanned)![0];
  const estimate = estimateTotal({
    points: queue.deliveries,
    nowSeconds,
    expected: queue.activities * queue.perFanout,
    dequeueMsPerQueued: queue.c * 1000,
    filledAtSeconds: null,
    fixedMsPerDelivery: queue.a * 1000,
    fanouts: {
      points: queue.fanouts,
      total: queue.activities,
      perFanout: queue.perFanout,
    },
  });
  return { nowSeconds, estimate };
}
