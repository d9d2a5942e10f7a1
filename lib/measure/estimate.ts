/**
 * Estimates when a run that is still delivering would deliver its last
 * message, from its delivery timeline so far: the rate over the recent half
 * of the run (at least twice the longest gap between deliveries, so that a
 * queue that delivers in batches is measured over whole batches), the
 * remaining deliveries at that rate (or, for a queue whose dequeue reads
 * its whole backlog, at a time per delivery that falls with the backlog by
 * the dequeue's measured cost per message waiting), and bounds from the
 * back-test: the
 * rest taking {@link REST_LOW} to {@link REST_HIGH} of the time estimated
 * for it ({@link BACKLOG_REST_LOW} to {@link BACKLOG_REST_HIGH} for a
 * queue that reads its backlog).  Pure arithmetic on `[seconds, delivered]` points:
 * the runner feeds it live readings, `deno task backtest` a published
 * timeline.  See docs/methodology.md for the method and its back-test.
 *
 * @module
 */
import {
  type BacklogCostSource,
  type BacklogModel,
  backlogModel,
  drainSeconds,
  type FillRest,
  fitBacklogCost,
  fmt,
  meanBacklogHanded,
  ms,
  percent,
  restWhileFilling,
} from "./backlog_model.ts";

/**
 * The bound below: the rest of the run taking this share of the time
 * estimated for it.  From the back-test (`deno task backtest`): where the
 * default first judges a finished row, the rows took 0.49–1.18 of the rest
 * estimated for them between the 5th and 95th percentiles, the low tail
 * Deno KV's ({@link FASTEST_REST}; docs/methodology.md); the bounds hold at
 * least 80 % of them and stay
 * {@link MAX_BOUNDS_WIDTH} of the rest wide, and `lib/cli/backtest.test.ts`
 * checks that they still meet the back-test's targets on the published
 * results.
 */
export const REST_LOW = 0.7;
/** The bound above: the rest taking this share of its estimate. */
export const REST_HIGH = 1.3;
/**
 * The least share of its estimated rest that the stop rule believes a row's
 * rest may take: a row is stopped before its limit only when even a rest
 * this short would end past it.  Not a bound of the estimate (those stay
 * {@link MAX_BOUNDS_WIDTH} wide): the fastest rest the back-test has seen,
 * rounded down.  Where the default first judges a finished row, the rest of
 * Deno KV consumed by the sender took as little as 0.46 of its estimate (its
 * rate falls for minutes after its queue fills and rises again near its
 * end), below {@link REST_LOW}; a rule that stopped at the optimistic bound
 * stopped such a row that, in a run at the same commit on the same host,
 * finished within the limit (docs/methodology.md).
 * `lib/cli/backtest.test.ts` checks that no published row's rest was faster.
 */
export const FASTEST_REST = 0.45;
/**
 * The widest the bounds may be, as a share of the rest estimated (so at
 * most this share of the estimated total): wider bounds would say little
 * about where a row ends.
 */
export const MAX_BOUNDS_WIDTH = 0.6;
/**
 * A rate has settled when the newer half of the estimate's window ran
 * within this share of the older half's rate (either way).
 */
export const SETTLED_WITHIN = 0.25;

/**
 * The bound below for a queue whose dequeue reads its whole backlog
 * (`EstimateInput.dequeueMsPerQueued`), from the back-test of such rows
 * (Redis; PostgreSQL 1.8.7; docs/methodology.md).
 */
export const BACKLOG_REST_LOW = 0.7;
/** The bound above for a queue whose dequeue reads its whole backlog. */
export const BACKLOG_REST_HIGH = 1.3;

/** The bounds in words, for an estimate's basis. */
function boundsText(low: number, high: number): string {
  return `bounds: the rest taking ${low}–${high} of that time, the ` +
    "back-test's range";
}

/** `[seconds since the first sendActivity call, distinct deliveries so far]`. */
export type DeliveryPoint = readonly [number, number];

/** What {@link estimateTotal} needs. */
export interface EstimateInput {
  /**
   * Cumulative deliveries over time, in time order; points where the count
   * did not change may be left out.
   */
  readonly points: readonly DeliveryPoint[];
  /** Seconds since the first `sendActivity` call, now. */
  readonly nowSeconds: number;
  /** Deliveries the run must see in all (expected minus gone ones). */
  readonly expected: number;
  /**
   * For a queue whose dequeue reads its whole backlog, so that a delivery
   * takes longer the more are waiting: what a dequeue costs per message
   * waiting, ms (`lib/measure/backlog_cost.ts`).  A delivery's time is then
   * a + c × the messages still waiting, with c that cost (or less, where
   * the window's own time per delivery is less than c × its backlog: a
   * faster host) and a the rest of the window's time per delivery, instead
   * of a constant rate; the bounds are then {@link BACKLOG_REST_LOW} and
   * {@link BACKLOG_REST_HIGH}.
   */
  readonly dequeueMsPerQueued?: number;
  /**
   * Seconds since the start at which the queue held all it will hold
   * (every activity's fanout handled, so every delivery's message
   * enqueued), `null` while it is still filling, absent when not known.
   * The window never reaches back before it, and while the queue fills the
   * rate has not settled: the consumer still shares its time with fanning
   * out, and the backlog is not yet what remains.
   */
  readonly filledAtSeconds?: number | null;
  /**
   * For a queue whose dequeue reads its backlog: the part of a delivery's
   * time that does not grow with the backlog, ms, as the row's own stages
   * measure it (its outbox handler's mean time ÷ its parallelism: the work
   * a delivery waits for between two dequeues).  Where the window's backlog
   * moved too little to fit the cost, the rest of the window's time per
   * delivery is then the backlog's.  Absent when not measured.
   */
  readonly fixedMsPerDelivery?: number;
  /**
   * For a queue whose dequeue reads its backlog and that fans out: the
   * fanout messages handled so far (`[seconds, handled]` where the count
   * rose), how many there are in all (the activities sent) and how many
   * outbox messages each enqueues.  While such a queue still fills, its
   * consumer hands out fanout messages and outbox messages from one
   * backlog that grows with every fanout, so the estimate goes by the
   * messages handed out rather than by deliveries alone (see
   * {@link TotalEstimate.windowHanded}).
   */
  readonly fanouts?: FanoutProgress;
}

/** What a queue that fans out has handled of its fanout messages. */
export interface FanoutProgress {
  /** `[seconds since the start, fanout messages handled]`, in time order. */
  readonly points: readonly DeliveryPoint[];
  /** Fanout messages in all: one for each activity sent. */
  readonly total: number;
  /** Outbox messages each fanout message enqueues (its recipients' inboxes). */
  readonly perFanout: number;
}

/** An estimate of a run's total time and how it was made. */
export interface TotalEstimate {
  /** Estimated seconds from the start to the last delivery. */
  readonly totalSeconds: number;
  /** If the rest took {@link REST_LOW} of its estimate. */
  readonly lowSeconds: number;
  /** If the rest took {@link REST_HIGH} of its estimate. */
  readonly highSeconds: number;
  /** Deliveries per second over the window. */
  readonly deliveriesPerSecond: number;
  /** The window the rate was measured over, in seconds, ending now. */
  readonly windowSeconds: number;
  /** The longest gap between deliveries so far, in seconds. */
  readonly longestGapSeconds: number;
  /**
   * Whether the rate has settled: the window's newer half ran within
   * {@link SETTLED_WITHIN} of its older half's rate.  A window of one
   * burst has not.
   */
  readonly settled: boolean;
  /** Deliveries per second over the window's older and newer halves. */
  readonly halfRates: readonly [number, number];
  /**
   * Whether the queue was still filling (`EstimateInput.filledAtSeconds`
   * `null`): such a rate has not settled.
   */
  readonly filling: boolean;
  /** Deliveries so far. */
  readonly delivered: number;
  /** Deliveries the run must see in all (`EstimateInput.expected`). */
  readonly expected: number;
  /** How it was made, in words. */
  readonly basis: string;
  /**
   * For a queue whose dequeue reads its backlog: the cost per message
   * waiting the estimate used, ms, where it came from
   * ({@link BacklogCostSource}), and dequeue-cost's measurement.
   */
  readonly backlog?: {
    readonly msPerQueued: number;
    /**
     * The part of a message's time that does not grow with the backlog,
     * ms (the a of a + c × the messages waiting).
     */
    readonly fixedMs: number;
    readonly from: BacklogCostSource;
    readonly measuredMsPerQueued: number;
    /**
     * While the queue still filled: the cost per message waiting over the
     * window's older and newer halves, ms, whose agreement within
     * {@link SETTLED_WITHIN} is what settled means then (the rate falls as
     * the backlog grows).
     */
    readonly halvesMsPerQueued?: readonly [number, number];
  };
  /** Deliveries within the window the rate was measured over. */
  readonly windowDeliveries: number;
  /**
   * Messages the queue handed out within the window (deliveries and fanout
   * messages), for an estimate made while a backlog queue still filled,
   * which goes by them: the rate it is judged over.
   */
  readonly windowHanded?: number;
}

/**
 * The estimated total time of a run from its deliveries so far, or `null`
 * when there is no rate to go by: nothing delivered yet, nothing delivered
 * within the window, or everything already delivered.
 *
 * The window ends now and spans half the time so far, or twice the longest
 * gap between two deliveries (the trailing wait since the last delivery
 * counts as a gap) when that is longer; it never reaches back before the
 * first delivery, so the start-up wait does not dilute the rate, and the
 * deliveries at its very start do not count in it.
 */
export function estimateTotal(input: EstimateInput): TotalEstimate | null {
  const { nowSeconds, expected } = input;
  const increases = increasesOf(input.points, nowSeconds);
  const w = rateWindow(input, increases);
  if (w == null) return null;
  const { delivered, start, window, inWindow, longestGap } = w;
  const remaining = expected - delivered;
  const filling = input.filledAtSeconds === null;
  const rate = inWindow / window;
  // With a dequeue that reads the backlog, a delivery's time is a + c × the
  // messages still waiting: over the window, a + c × the backlog at its
  // middle delivery, and the rest is a × remaining + c × remaining² ÷ 2.
  const cost = input.dequeueMsPerQueued;
  const backlog = cost != null && cost > 0;
  const perDelivery = window / inWindow;
  const midBacklog = expected - (delivered - inWindow / 2);
  if (filling && backlog && input.fanouts != null) {
    const whileFilling = estimateWhileFilling({
      input,
      fanouts: input.fanouts,
      costMs: cost,
      increases,
      start,
      longestGap,
    });
    if (whileFilling != null) return whileFilling;
  }
  const model = backlog
    ? backlogModel(
      fitBacklogCost(
        (t) => deliveredAt(increases, t),
        (t) => expected - deliveredAt(increases, t),
        start,
        nowSeconds,
      ),
      perDelivery,
      midBacklog,
      cost,
      input.fixedMsPerDelivery,
    )
    : null;
  const a = model?.a ?? 0;
  const c = model?.c ?? 0;
  const rest = backlog ? drainSeconds(remaining, a, c) : remaining / rate;
  const [low, high] = backlog
    ? [BACKLOG_REST_LOW, BACKLOG_REST_HIGH]
    : [REST_LOW, REST_HIGH];
  const middle = start + window / 2;
  const atMiddle = deliveredAt(increases, middle);
  const older = (atMiddle - deliveredAt(increases, start)) / (window / 2);
  const newer = (delivered - atMiddle) / (window / 2);
  // One burst so far (a queue that delivers in batches has shown one): the
  // rate within it is all there is, and the reader must know.
  const oneBatch = window < 1;
  const settled = !oneBatch && !filling && older > 0 && newer > 0 &&
    Math.abs(newer / older - 1) <= SETTLED_WITHIN;
  const how = restText(remaining, model, boundsText(low, high));
  return {
    ...(model != null
      ? {
        backlog: {
          msPerQueued: c * 1000,
          fixedMs: a * 1000,
          from: model.from,
          measuredMsPerQueued: cost!,
        },
      }
      : {}),
    windowDeliveries: inWindow,
    expected,
    totalSeconds: round1(nowSeconds + rest),
    lowSeconds: round1(nowSeconds + rest * low),
    highSeconds: round1(nowSeconds + rest * high),
    deliveriesPerSecond: Math.round(rate * 100) / 100,
    windowSeconds: round1(window),
    longestGapSeconds: round1(longestGap),
    settled,
    halfRates: [round2(older), round2(newer)],
    filling,
    delivered,
    basis: rateBasis(input, w, { rate, older, newer, settled, how }),
  };
}

/** The window {@link estimateTotal} measures a rate over. */
interface RateWindow {
  /** Deliveries so far. */
  readonly delivered: number;
  /** The longest gap between deliveries so far, the trailing wait included. */
  readonly longestGap: number;
  /** The length wanted: half the time so far, or twice the longest gap. */
  readonly wanted: number;
  /** When the queue filled, seconds; `-Infinity` when not known. */
  readonly filledAt: number;
  /** The window's start and length, seconds. */
  readonly start: number;
  readonly window: number;
  /** Deliveries within it. */
  readonly inWindow: number;
}

/**
 * The window of {@link estimateTotal}, or `null` when there is no rate to go
 * by: nothing delivered yet, everything delivered, or nothing delivered
 * within the window.
 */
function rateWindow(
  input: EstimateInput,
  increases: readonly DeliveryPoint[],
): RateWindow | null {
  const { nowSeconds, expected } = input;
  if (increases.length === 0) return null;
  const delivered = increases[increases.length - 1][1];
  if (expected - delivered <= 0) return null;
  const first = increases[0][0];
  let longestGap = nowSeconds - increases[increases.length - 1][0];
  for (let i = 1; i < increases.length; i++) {
    longestGap = Math.max(longestGap, increases[i][0] - increases[i - 1][0]);
  }
  const wanted = Math.max(nowSeconds / 2, 2 * longestGap);
  const filledAt = input.filledAtSeconds ?? -Infinity;
  const start = Math.max(first, nowSeconds - wanted, filledAt);
  const window = nowSeconds - start;
  if (window <= 0) return null;
  const inWindow = delivered - deliveredAt(increases, start);
  if (inWindow <= 0) return null;
  return { delivered, longestGap, wanted, filledAt, start, window, inWindow };
}

/** How the rest was estimated, in words, with its bounds. */
function restText(
  remaining: number,
  model: BacklogModel | null,
  bounds: string,
): string {
  if (model == null) {
    return `the remaining ${fmt(remaining)} at that rate, ${bounds}`;
  }
  const { a, c } = model;
  return `the remaining ${fmt(remaining)} at a time per delivery that falls ` +
    `with the backlog, as this queue's dequeue reads its whole backlog: ` +
    `${ms(a * 1000)} plus ${
      ms(c * 1000)
    } per message still waiting (${model.source}), ${
      ms((a + c * remaining) * 1000)
    } a delivery now, ${bounds}`;
}

/** The basis of an estimate from its window's rate, in words. */
function rateBasis(
  input: EstimateInput,
  w: RateWindow,
  figures: {
    readonly rate: number;
    readonly older: number;
    readonly newer: number;
    readonly settled: boolean;
    readonly how: string;
  },
): string {
  const { nowSeconds, expected } = input;
  const { delivered, start, window, wanted, filledAt, longestGap } = w;
  const { rate, older, newer, settled, how } = figures;
  const filling = input.filledAtSeconds === null;
  const oneBatch = window < 1;
  const capped = start > nowSeconds - wanted;
  const pace = filling
    ? "; the queue was still filling (not every activity's fanout handled), " +
      "so its consumer still shared its time with fanning out: the rate " +
      "has not settled"
    : settled
    ? `; the rate has settled (${rate2(older)}/s, then ${rate2(newer)}/s ` +
      "over the window's halves)"
    : oneBatch
    ? ""
    : `; the rate has not settled (${rate2(older)}/s, then ` +
      `${rate2(newer)}/s over the window's halves)`;
  return oneBatch
    ? `${fmt(delivered)} of ${fmt(expected)} delivered in ` +
      `${seconds(nowSeconds)}, all in one burst of ${window.toFixed(1)} s ` +
      `at its end; ${rate.toFixed(1)}/s within that burst stands for the ` +
      `rate, as no second burst came to measure the rate between bursts; ` +
      how
    : `${fmt(delivered)} of ${fmt(expected)} delivered in ` +
      `${seconds(nowSeconds)}; ${rate.toFixed(rate < 10 ? 2 : 1)}/s over the ` +
      `last ${seconds(window)} (${
        start === filledAt
          ? `since the queue filled, at ${seconds(filledAt)}`
          : capped
          ? "since the first delivery"
          : wanted > nowSeconds / 2
          ? `twice the longest gap between deliveries, ${seconds(longestGap)}`
          : "the recent half of the run"
      })${pace}; ${how}`;
}

/** When an estimate says a run reaches some count of deliveries. */
export interface EstimateTo {
  /** Estimated seconds from the start to that delivery. */
  readonly totalSeconds: number;
  /** The optimistic bound, with the estimate's own share of the rest. */
  readonly lowSeconds: number;
  /** The pessimistic bound, likewise. */
  readonly highSeconds: number;
}

/**
 * When an estimate made at `nowSeconds` says its run reaches its
 * `target`-th delivery, for a target short of all it expects: the rest to
 * it at the estimate's rate, or, for a queue whose dequeue reads its
 * backlog, the whole rest less the drain of the deliveries after the
 * target (the last expected − target messages, handed out with as many
 * and fewer waiting), as its backlog holds every delivery still to come,
 * not only those up to the target.  That holds for a target reached once
 * the queue has filled.  The bounds take the same share of the rest as the
 * estimate's own.  `null` for a target already reached; the estimate's own
 * times for one at or past all it expects.
 */
export function estimateTo(
  estimate: TotalEstimate,
  nowSeconds: number,
  target: number,
): EstimateTo | null {
  const { delivered, expected } = estimate;
  if (target <= delivered) return null;
  if (target >= expected) return estimate;
  const rest = estimate.totalSeconds - nowSeconds;
  if (!(rest > 0)) return null;
  const low = (estimate.lowSeconds - nowSeconds) / rest;
  const high = (estimate.highSeconds - nowSeconds) / rest;
  const backlog = estimate.backlog;
  const toTarget = backlog == null
    ? rest * (target - delivered) / (expected - delivered)
    : rest - drainSeconds(
      expected - target,
      backlog.fixedMs / 1000,
      backlog.msPerQueued / 1000,
    );
  if (!(toTarget > 0)) return null;
  return {
    totalSeconds: round1(nowSeconds + toTarget),
    lowSeconds: round1(nowSeconds + toTarget * low),
    highSeconds: round1(nowSeconds + toTarget * high),
  };
}

/**
 * An estimate made while a backlog queue still fills has settled only once
 * this share of its fanout messages is handled, so that its backlog is near
 * its peak: the cost per message waiting grows with the backlog (Redis 2.3.5
 * ×1 on an AMD EPYC host: 0.014 ms at about 15,000 waiting, 0.03 ms at
 * about 45,000), so a cost measured on a small backlog, carried to the
 * peak, puts the total at about half of what the full queue shows.
 */
export const FILLED_ENOUGH = 0.9;

/** What {@link estimateWhileFilling} works from. */
interface FillingContext {
  readonly input: EstimateInput;
  readonly fanouts: FanoutProgress;
  /** dequeue-cost's cost per message waiting, ms. */
  readonly costMs: number;
  /** The delivery count's rises up to now. */
  readonly increases: readonly DeliveryPoint[];
  /** The window's start, seconds. */
  readonly start: number;
  /** The longest gap between deliveries so far, seconds. */
  readonly longestGap: number;
}

/**
 * The counts of a queue still filling, each a function of the time in
 * seconds: fanout messages handled, deliveries, messages handed out (the
 * two together), and the backlog (the fanout messages left, the outbox
 * messages the handled ones enqueued, less the deliveries).
 */
function fillingCounts(
  fanouts: FanoutProgress,
  increases: readonly DeliveryPoint[],
  nowSeconds: number,
) {
  const fanned = increasesOf(fanouts.points, nowSeconds);
  const fannedAt = (t: number) => deliveredAt(fanned, t);
  const deliveredBy = (t: number) => deliveredAt(increases, t);
  const handedAt = (t: number) => deliveredBy(t) + fannedAt(t);
  const backlogAt = (t: number) =>
    Math.max(
      0,
      fanouts.total - fannedAt(t) + fanouts.perFanout * fannedAt(t) -
        deliveredBy(t),
    );
  return { fannedAt, deliveredBy, handedAt, backlogAt };
}

/**
 * The estimate of a run whose dequeue reads its backlog while its queue
 * still fills: the queue hands out fanout messages and outbox messages from
 * one backlog, each at a + c × the messages waiting, so the window's
 * messages handed out (deliveries and fanout messages) against its backlog
 * (the fanout messages left, the outbox messages the handled ones enqueued,
 * less the deliveries) give a and c, and the rest is the fanout messages
 * left at the window's share of them, then the drain
 * (`restWhileFilling`).  Its pace has settled when c over the window's two
 * halves agrees within {@link SETTLED_WITHIN}: the rate itself falls as the
 * backlog grows.  `null` when the window handed out no fanout message, so
 * that nothing says when the queue would fill (the caller's estimate then
 * says it had not settled).
 */
function estimateWhileFilling(
  context: FillingContext,
): TotalEstimate | null {
  const { input, fanouts, costMs, increases, start, longestGap } = context;
  const { nowSeconds, expected } = input;
  const { fannedAt, deliveredBy, handedAt, backlogAt } = fillingCounts(
    fanouts,
    increases,
    nowSeconds,
  );
  const window = nowSeconds - start;
  const handed = handedAt(nowSeconds) - handedAt(start);
  const fannedInWindow = fannedAt(nowSeconds) - fannedAt(start);
  if (window <= 0 || handed <= 0 || fannedInWindow <= 0) return null;
  const middle = start + window / 2;
  const waitingFor = (from: number, to: number) =>
    meanBacklogHanded(handedAt, backlogAt, from, to);
  const meanWaiting = waitingFor(start, nowSeconds);
  const model = backlogModel(
    fitBacklogCost(handedAt, backlogAt, start, nowSeconds),
    window / handed,
    meanWaiting,
    costMs,
    input.fixedMsPerDelivery,
  );
  const { a, c } = model;
  const halfCost = (from: number, to: number) => {
    const n = handedAt(to) - handedAt(from);
    const waiting = waitingFor(from, to);
    return n > 0 && waiting > 0 ? ((to - from) / n - a) / waiting : 0;
  };
  const older = halfCost(start, middle);
  const newer = halfCost(middle, nowSeconds);
  const nearlyFilled = fannedAt(nowSeconds) >=
    FILLED_ENOUGH * fanouts.total;
  const settled = nearlyFilled && older > 0 && newer > 0 &&
    Math.abs(newer / older - 1) <= SETTLED_WITHIN;
  const delivered = deliveredBy(nowSeconds);
  const remaining = expected - delivered;
  const share = fannedInWindow / handed;
  const left = fanouts.total - fannedAt(nowSeconds);
  const rest = restWhileFilling(
    {
      remainingDeliveries: remaining,
      remainingFanouts: left,
      backlog: backlogAt(nowSeconds),
      perFanout: fanouts.perFanout,
      fanoutShare: share,
    },
    a,
    c,
  );
  if (rest == null) return null;
  const restSeconds = rest.fillSeconds + rest.drainSeconds;
  const inWindow = delivered - deliveredBy(start);
  const deliveredOlder = deliveredBy(middle) - deliveredBy(start);
  const basis = fillingBasis({
    delivered,
    expected,
    nowSeconds,
    total: fanouts.total,
    left,
    handed,
    window,
    share,
    meanWaiting,
    model,
    settled,
    older,
    newer,
    rest,
  });
  return {
    backlog: {
      msPerQueued: c * 1000,
      fixedMs: a * 1000,
      from: model.from,
      measuredMsPerQueued: costMs,
      halvesMsPerQueued: [sig3(older * 1000), sig3(newer * 1000)],
    },
    windowDeliveries: inWindow,
    windowHanded: handed,
    expected,
    totalSeconds: round1(nowSeconds + restSeconds),
    lowSeconds: round1(nowSeconds + restSeconds * BACKLOG_REST_LOW),
    highSeconds: round1(nowSeconds + restSeconds * BACKLOG_REST_HIGH),
    deliveriesPerSecond: Math.round(inWindow / window * 100) / 100,
    windowSeconds: round1(window),
    longestGapSeconds: round1(longestGap),
    settled,
    halfRates: [
      round2(deliveredOlder / (window / 2)),
      round2((inWindow - deliveredOlder) / (window / 2)),
    ],
    filling: true,
    delivered,
    basis,
  };
}

/** What {@link fillingBasis} says: the figures of an estimate while filling. */
interface FillingFigures {
  readonly delivered: number;
  readonly expected: number;
  readonly nowSeconds: number;
  /** Fanout messages in all, and those left. */
  readonly total: number;
  readonly left: number;
  /** Messages handed out over the window, and the window's seconds. */
  readonly handed: number;
  readonly window: number;
  /** The share of fanout messages among those handed out. */
  readonly share: number;
  /** Messages waiting on average as they were handed out. */
  readonly meanWaiting: number;
  readonly model: BacklogModel;
  readonly settled: boolean;
  /** The cost per message waiting over the window's halves, seconds. */
  readonly older: number;
  readonly newer: number;
  readonly rest: FillRest;
}

/** The basis of an estimate made while a backlog queue still fills, in words. */
function fillingBasis(f: FillingFigures): string {
  const { delivered, expected, nowSeconds, left, handed, window, share } = f;
  const { meanWaiting, model, settled, older, newer, rest } = f;
  const { a, c } = model;
  const remaining = expected - delivered;
  const nearlyFilled = f.total - left >= FILLED_ENOUGH * f.total;
  return `${fmt(delivered)} of ${fmt(expected)} delivered in ` +
    `${seconds(nowSeconds)}, while the queue still filled (${
      fmt(f.total - left)
    } of ${fmt(f.total)} fanout messages handled); the queue handed ` +
    `out ${fmt(handed)} messages over the last ${seconds(window)}, ${
      percent(share)
    } of them fanout messages, ${ms(window / handed * 1000)} each with ` +
    `${fmt(Math.round(meanWaiting))} waiting on average as they were ` +
    "handed out; " +
    `this queue's dequeue reads its whole backlog, so each takes ` +
    `${ms(a * 1000)} plus ${
      ms(c * 1000)
    } per message waiting (${model.source}); that cost has ${
      settled ? "" : "not "
    }settled (${ms(older * 1000)}, then ${
      ms(newer * 1000)
    } over the window's halves${
      nearlyFilled
        ? ""
        : `; it can settle only once ${
          percent(FILLED_ENOUGH)
        } of the fanout messages are handled, as the cost per message ` +
          "waiting grows with the backlog"
    }); the rest: the ${fmt(left)} fanout messages left in that share, about ${
      seconds(rest.fillSeconds)
    } with ${
      fmt(Math.round(rest.deliveriesWhileFilling))
    } deliveries, then the ${
      fmt(Math.round(remaining - rest.deliveriesWhileFilling))
    } left draining, about ${seconds(rest.drainSeconds)}; ${
      boundsText(BACKLOG_REST_LOW, BACKLOG_REST_HIGH)
    }`;
}

/**
 * The points up to `nowSeconds` at which the count rose, in time order
 * (the first with a count above zero included).
 */
function increasesOf(
  points: readonly DeliveryPoint[],
  nowSeconds: number,
): DeliveryPoint[] {
  const increases: DeliveryPoint[] = [];
  let last = 0;
  for (const point of points) {
    if (point[0] > nowSeconds) break;
    if (point[1] > last) {
      increases.push(point);
      last = point[1];
    }
  }
  return increases;
}

/** Deliveries counted at or before `seconds` (0 before the first). */
function deliveredAt(
  increases: readonly DeliveryPoint[],
  seconds: number,
): number {
  let low = 0;
  let high = increases.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (increases[mid][0] <= seconds) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? 0 : increases[low - 1][1];
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Three significant figures: a cost per message waiting is ~0.005 ms. */
function sig3(value: number): number {
  return Number(value.toPrecision(3));
}

function rate2(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function seconds(value: number): string {
  return `${Math.round(value)} s`;
}
