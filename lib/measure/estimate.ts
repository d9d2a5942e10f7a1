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

/**
 * The bound below: the rest of the run taking this share of the time
 * estimated for it.  From the back-test (`deno task backtest`): where the
 * default first judges a finished row, the rows took 0.79–1.18 of the rest
 * estimated for them between the 5th and 95th percentiles
 * (docs/methodology.md); the bounds hold at least 80 % of them and stay
 * {@link MAX_BOUNDS_WIDTH} of the rest wide, and `lib/cli/backtest.test.ts`
 * checks that they still meet the back-test's targets on the published
 * results.
 */
export const REST_LOW = 0.7;
/** The bound above: the rest taking this share of its estimate. */
export const REST_HIGH = 1.3;
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
    readonly from: BacklogCostSource;
    readonly measuredMsPerQueued: number;
  };
  /** Deliveries within the window the rate was measured over. */
  readonly windowDeliveries: number;
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
  const { points, nowSeconds, expected } = input;
  const increases = increasesOf(points, nowSeconds);
  if (increases.length === 0) return null;
  const delivered = increases[increases.length - 1][1];
  const remaining = expected - delivered;
  if (remaining <= 0) return null;
  const first = increases[0][0];
  let longestGap = nowSeconds - increases[increases.length - 1][0];
  for (let i = 1; i < increases.length; i++) {
    longestGap = Math.max(longestGap, increases[i][0] - increases[i - 1][0]);
  }
  const wanted = Math.max(nowSeconds / 2, 2 * longestGap);
  const filling = input.filledAtSeconds === null;
  const filledAt = input.filledAtSeconds ?? -Infinity;
  const start = Math.max(first, nowSeconds - wanted, filledAt);
  const window = nowSeconds - start;
  if (window <= 0) return null;
  const inWindow = delivered - deliveredAt(increases, start);
  if (inWindow <= 0) return null;
  const rate = inWindow / window;
  // With a dequeue that reads the backlog, a delivery's time is a + c × the
  // messages still waiting: over the window, a + c × the backlog at its
  // middle delivery, and the rest is a × remaining + c × remaining² ÷ 2.
  const cost = input.dequeueMsPerQueued;
  const backlog = cost != null && cost > 0;
  const perDelivery = window / inWindow;
  const midBacklog = expected - (delivered - inWindow / 2);
  const model = backlog
    ? backlogModel(
      fitBacklogCost(increases, start, nowSeconds, expected),
      perDelivery,
      midBacklog,
      cost,
      input.fixedMsPerDelivery,
    )
    : null;
  const a = model?.a ?? 0;
  const c = model?.c ?? 0;
  const rest = backlog
    ? a * remaining + c * remaining * (remaining + 1) / 2
    : remaining / rate;
  const [low, high] = backlog
    ? [BACKLOG_REST_LOW, BACKLOG_REST_HIGH]
    : [REST_LOW, REST_HIGH];
  const bounds = boundsText(low, high);
  const how = model != null
    ? `the remaining ${fmt(remaining)} at a time per delivery that falls ` +
      `with the backlog, as this queue's dequeue reads its whole backlog: ` +
      `${ms(a * 1000)} plus ${
        ms(c * 1000)
      } per message still waiting (${model.source}), ${
        ms((a + c * remaining) * 1000)
      } a delivery now, ${bounds}`
    : `the remaining ${fmt(remaining)} at that rate, ${bounds}`;
  const capped = start > nowSeconds - wanted;
  const middle = start + window / 2;
  const atMiddle = deliveredAt(increases, middle);
  const older = (atMiddle - deliveredAt(increases, start)) / (window / 2);
  const newer = (delivered - atMiddle) / (window / 2);
  // One burst so far (a queue that delivers in batches has shown one): the
  // rate within it is all there is, and the reader must know.
  const oneBatch = window < 1;
  const settled = !oneBatch && !filling && older > 0 && newer > 0 &&
    Math.abs(newer / older - 1) <= SETTLED_WITHIN;
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
  const basis = oneBatch
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
  return {
    ...(model != null
      ? {
        backlog: {
          msPerQueued: c * 1000,
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
    basis,
  };
}

/**
 * Where a backlog estimate's cost per message waiting came from: `fitted`
 * on the window, where its backlog moved enough; the window's own time per
 * delivery less the row's `handler` time (its stages), per message waiting
 * at the window's middle; or `dequeue-cost`'s measurement (held to what the
 * window's time per delivery allows).
 */
export type BacklogCostSource = "fitted" | "handler" | "dequeue-cost";

/** The line a + c × backlog a backlog estimate goes by, and its source. */
interface BacklogModel {
  /** Seconds per delivery that do not grow with the backlog. */
  readonly a: number;
  /** Seconds per delivery per message waiting. */
  readonly c: number;
  /** Where c came from. */
  readonly from: BacklogCostSource;
  /** That, in words, with dequeue-cost's measurement beside it. */
  readonly source: string;
}

/**
 * The a + c × backlog of a window, in order of what the row itself tells:
 * a fit on the window where its backlog moved by at least
 * {@link FIT_MIN_BACKLOG_MOVE} of itself with a standard error within
 * {@link FIT_MAX_RELATIVE_ERROR}; else, with the row's own measure of the
 * work that does not grow with the backlog (`fixedMs`), the rest of the
 * window's time per delivery over the backlog at its middle; else
 * dequeue-cost's `costMs`.  c is never more than the window's whole time
 * per delivery allows (a ≥ 0).
 */
function backlogModel(
  fit: BacklogFit | null,
  perDelivery: number,
  midBacklog: number,
  costMs: number,
  fixedMs: number | undefined,
): BacklogModel {
  const ratio = (cMs: number) =>
    `dequeue-cost measured ${ms(costMs)}, this ${
      (cMs / costMs).toFixed(2)
    }× that`;
  const cap = perDelivery / midBacklog;
  if (
    fit != null && fit.move >= FIT_MIN_BACKLOG_MOVE && fit.cMs > 0 &&
    fit.seMs <= FIT_MAX_RELATIVE_ERROR * fit.cMs
  ) {
    const c = Math.min(fit.cMs / 1000, cap);
    return {
      a: perDelivery - c * midBacklog,
      c,
      from: "fitted",
      source: `${ms(fit.cMs)} ± ${ms(fit.seMs)} fitted on the window, ` +
        `where the backlog moved ${percent(fit.move)}; ${ratio(fit.cMs)}` +
        (c < fit.cMs / 1000 ? held(c) : ""),
    };
  }
  const unfit = `the window's backlog moved ${
    percent(fit?.move ?? 0)
  }, too little to fit the cost (a fit needs ${
    percent(FIT_MIN_BACKLOG_MOVE)
  } and a standard error within ${percent(FIT_MAX_RELATIVE_ERROR)})`;
  if (fixedMs != null && fixedMs >= 0) {
    const a = Math.min(fixedMs / 1000, perDelivery);
    const c = (perDelivery - a) / midBacklog;
    return {
      a,
      c,
      from: "handler",
      source: `${unfit}, so the window's time per delivery less the ` +
        `${ms(a * 1000)} its stages spend handling a delivery, over the ` +
        `${fmt(Math.round(midBacklog))} waiting; ${ratio(c * 1000)}`,
    };
  }
  const c = Math.min(costMs / 1000, cap);
  return {
    a: perDelivery - c * midBacklog,
    c,
    from: "dequeue-cost",
    source: `the ${ms(costMs)} measured by dequeue-cost, as ${unfit}` +
      (c < costMs / 1000 ? held(c) : ""),
  };
}

/** What a cost held to the window's time per delivery says, in words. */
function held(c: number): string {
  return `; held to ${
    ms(c * 1000)
  }, as the window's own time per delivery allows no more`;
}

/**
 * A fit of the window's time per delivery against its backlog needs the
 * backlog to move by at least this share of its size over the window:
 * less, and the slope is lost in the noise of the rate.
 */
export const FIT_MIN_BACKLOG_MOVE = 0.1;
/** … and a slope known to within this share of itself (its standard error). */
export const FIT_MAX_RELATIVE_ERROR = 0.25;
/** The slices of the window whose times per delivery the fit goes by. */
const FIT_SLICES = 8;

/** A line fitted to a window's time per delivery against its backlog. */
interface BacklogFit {
  /** The slope: ms per delivery per message waiting. */
  readonly cMs: number;
  /** The slope's standard error, ms. */
  readonly seMs: number;
  /** How far the backlog moved over the window, a share of its mean. */
  readonly move: number;
}

/**
 * Fits a line, ordinary least squares, to the time per delivery against the
 * backlog (`expected` minus the deliveries so far) over {@link FIT_SLICES}
 * equal slices of the window from `start` to `now`; `null` with fewer than
 * four slices that delivered.
 */
function fitBacklogCost(
  increases: readonly DeliveryPoint[],
  start: number,
  now: number,
  expected: number,
): BacklogFit | null {
  const xs: number[] = [];
  const ys: number[] = [];
  const width = (now - start) / FIT_SLICES;
  for (let i = 0; i < FIT_SLICES; i++) {
    const from = deliveredAt(increases, start + i * width);
    const to = deliveredAt(increases, start + (i + 1) * width);
    if (to <= from) continue;
    xs.push(expected - (from + to) / 2);
    ys.push(width * 1000 / (to - from));
  }
  const n = xs.length;
  if (n < 4) return null;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (sxx === 0 || mx <= 0) return null;
  const slope = sxy / sxx;
  let residuals = 0;
  for (let i = 0; i < n; i++) {
    residuals += (ys[i] - (my + slope * (xs[i] - mx))) ** 2;
  }
  return {
    cMs: slope,
    seMs: Math.sqrt(residuals / (n - 2) / sxx),
    move: (Math.max(...xs) - Math.min(...xs)) / mx,
  };
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

function rate2(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}

/** A time in ms, in words: `1.25 ms`. */
function ms(valueMs: number): string {
  return `${valueMs.toPrecision(3)} ms`;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function fmt(count: number): string {
  return count.toLocaleString("en-US");
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

function seconds(value: number): string {
  return `${Math.round(value)} s`;
}
