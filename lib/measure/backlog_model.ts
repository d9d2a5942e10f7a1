/**
 * The model of a queue whose dequeue reads its whole backlog (Redis's
 * queue; `@fedify/postgres` 1.8.7): each message the queue hands out takes
 * a + c × the messages waiting, with a and c taken from the run itself
 * (fitted on its window, or its handler time and the rest) or from
 * `deno task dequeue-cost`, and the time the rest of such a run takes, also
 * while its queue still fills.  Pure arithmetic, used by the estimator
 * (`estimate.ts`).
 *
 * @module
 */

/**
 * Where a backlog estimate's cost per message waiting came from: `fitted`
 * on the window, where its backlog moved enough; the window's own time per
 * delivery less the row's `handler` time (its stages), per message waiting
 * as the window's messages were handed out; or `dequeue-cost`'s measurement
 * (held to what the window's time per delivery allows).
 */
export type BacklogCostSource = "fitted" | "handler" | "dequeue-cost";

/** The line a + c × backlog a backlog estimate goes by, and its source. */
export interface BacklogModel {
  /** Seconds per message handed out that do not grow with the backlog. */
  readonly a: number;
  /** Seconds per message handed out per message waiting. */
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
 * window's time per delivery over its backlog; else dequeue-cost's
 * `costMs`.  c is never more than the window's whole time per delivery
 * allows (a ≥ 0).  `midBacklog` is the backlog the window's messages were
 * handed out at, on average over the messages ({@link meanBacklogHanded}):
 * the window's time is the sum of a + c × that backlog over them.
 */
export function backlogModel(
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
  const unfit = whyUnfit(fit);
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

/**
 * Why a window's fit of the cost per message waiting was not gone by, in
 * words: no fit at all, a backlog that moved too little, a slope not above
 * zero, or a slope known too loosely (its standard error), whichever held
 * first, with what a fit needs.
 */
export function whyUnfit(fit: BacklogFit | null): string {
  const needs = `(a fit needs the backlog to move ${
    percent(FIT_MIN_BACKLOG_MOVE)
  } and a standard error within ${percent(FIT_MAX_RELATIVE_ERROR)})`;
  if (fit == null) {
    return "the window gave no fit of the cost (fewer than four of its " +
      "slices handed messages out, or its backlog stood still) " + needs;
  }
  if (fit.move < FIT_MIN_BACKLOG_MOVE) {
    return `the window's backlog moved ${
      percent(fit.move)
    }, too little to fit the cost ${needs}`;
  }
  const fitted = `the cost fitted on the window, ${ms(fit.cMs)} ± ${
    ms(fit.seMs)
  } where the backlog moved ${percent(fit.move)},`;
  if (!(fit.cMs > 0)) return `${fitted} is not above zero ${needs}`;
  return `${fitted} is too uncertain to go by ${needs}`;
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

/** The slices {@link meanBacklogHanded} weighs the backlog over. */
const MEAN_SLICES = 64;

/**
 * The backlog the messages handed out from `start` to `now` found waiting,
 * on average over those messages (each of {@link MEAN_SLICES} slices' backlog
 * at its middle, weighted by the messages handed out in it).  Where the
 * backlog moved, this is not the backlog at the window's middle in time: a
 * queue whose dequeue reads its backlog hands out more messages while its
 * backlog is small.  Redis 2.3.5 ×4 on an Intel Xeon host handed out 1,100
 * of its window's 1,431 messages in its first 36 s, with a few thousand
 * waiting, and the rest with 10,000–42,000, so the backlog at the window's
 * middle in time (22,864) held its cost to 0.0033 ms per message waiting
 * where the window's own fit measured 0.0074.  The backlog at the middle in
 * time when nothing was handed out.
 */
export function meanBacklogHanded(
  handedAt: (seconds: number) => number,
  backlogAt: (seconds: number) => number,
  start: number,
  now: number,
): number {
  const width = (now - start) / MEAN_SLICES;
  let handed = 0;
  let weighted = 0;
  for (let i = 0; i < MEAN_SLICES && width > 0; i++) {
    const from = start + i * width;
    const n = handedAt(from + width) - handedAt(from);
    if (n <= 0) continue;
    handed += n;
    weighted += n * backlogAt(from + width / 2);
  }
  return handed > 0 ? weighted / handed : backlogAt((start + now) / 2);
}

/** A line fitted to a window's time per delivery against its backlog. */
export interface BacklogFit {
  /** The slope: ms per delivery per message waiting. */
  readonly cMs: number;
  /** The slope's standard error, ms. */
  readonly seMs: number;
  /** How far the backlog moved over the window, a share of its mean. */
  readonly move: number;
}

/**
 * Fits a line, ordinary least squares, to the time per message handed out
 * against the backlog over {@link FIT_SLICES} equal slices of the window
 * from `start` to `now`: `handedAt(t)` counts the messages the queue handed
 * out by `t` (deliveries; with fanout messages while the queue fills) and
 * `backlogAt(t)` the messages waiting then.  `null` with fewer than four
 * slices that handed any out.
 */
export function fitBacklogCost(
  handedAt: (seconds: number) => number,
  backlogAt: (seconds: number) => number,
  start: number,
  now: number,
): BacklogFit | null {
  const xs: number[] = [];
  const ys: number[] = [];
  const width = (now - start) / FIT_SLICES;
  for (let i = 0; i < FIT_SLICES; i++) {
    const from = start + i * width;
    const handed = handedAt(from + width) - handedAt(from);
    if (handed <= 0) continue;
    xs.push(backlogAt(from + width / 2));
    ys.push(width * 1000 / handed);
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
 * Seconds the rest of a run takes at a + c × the messages waiting per
 * message handed out, once its queue has filled: `remaining` deliveries,
 * each with all the rest still waiting behind it.
 */
export function drainSeconds(remaining: number, a: number, c: number): number {
  return a * remaining + c * remaining * (remaining + 1) / 2;
}

/** Where a run whose queue still fills stands, for {@link restWhileFilling}. */
export interface FillState {
  /** Deliveries still to come. */
  readonly remainingDeliveries: number;
  /** Fanout messages still to be handled. */
  readonly remainingFanouts: number;
  /** Messages waiting in the queue now. */
  readonly backlog: number;
  /** Outbox messages one fanout message enqueues. */
  readonly perFanout: number;
  /**
   * The share of fanout messages among the messages the queue handed out
   * over the window: how the consumer divides its time while it fills.
   */
  readonly fanoutShare: number;
}

/** The rest of a run whose queue still fills, in its two parts. */
export interface FillRest {
  /** Seconds until the last fanout message is handled. */
  readonly fillSeconds: number;
  /** Deliveries made by then. */
  readonly deliveriesWhileFilling: number;
  /** Seconds from then to the last delivery. */
  readonly drainSeconds: number;
}

/**
 * The rest of a run whose queue still fills, at a + c × the messages
 * waiting per message handed out: the consumer goes on handing out fanout
 * messages in the window's share ({@link FillState.fanoutShare}) until the
 * last is handled, each adding its outbox messages to the backlog while
 * each delivery takes one away, then drains what is left.  `null` when the
 * window handed out no fanout message, so that nothing says when the
 * queue would fill.
 */
export function restWhileFilling(
  state: FillState,
  a: number,
  c: number,
): FillRest | null {
  const share = state.fanoutShare;
  if (!(share > 0)) return null;
  const handed = state.remainingFanouts / Math.min(share, 1);
  const delivering = Math.min(
    handed * (1 - Math.min(share, 1)),
    state.remainingDeliveries,
  );
  const filled = Math.max(
    0,
    state.backlog + state.remainingFanouts * (state.perFanout - 1) -
      delivering,
  );
  const left = state.remainingDeliveries - delivering;
  return {
    fillSeconds: handed * a + c * handed * (state.backlog + filled) / 2,
    deliveriesWhileFilling: delivering,
    drainSeconds: drainSeconds(left, a, c),
  };
}

/** A time in ms, in words: `1.25 ms`. */
export function ms(valueMs: number): string {
  return `${valueMs.toPrecision(3)} ms`;
}

/** A count in words, with thousands separated: `48,560`. */
export function fmt(count: number): string {
  return count.toLocaleString("en-US");
}

/** A share in words: `10 %`. */
export function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}
