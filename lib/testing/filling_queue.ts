/**
 * A made-up queue whose dequeue reads its whole backlog, filling from
 * fanout messages: its deliveries and fanout messages handled over time,
 * for tests of the estimate and the stop rule while such a queue fills.
 *
 * @module
 */
import type { DeliveryPoint } from "../measure/estimate.ts";

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
): { deliveries: DeliveryPoint[]; fanouts: DeliveryPoint[]; end: number } {
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
  return { deliveries, fanouts, end: t };
}
