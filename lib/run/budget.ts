/**
 * The stop rule of a burst run: when to stop a run that is still delivering
 * because it will not, or did not, finish within its budget (`--budget`)
 * or the time limit (`--timeout`), and what the result then says.  Pure:
 * the watch (`watch.ts`) asks it at each poll, and `deno task backtest`
 * replays it over published timelines to simulate a default run.
 *
 * @module
 */
import {
  FASTEST_REST,
  FILLED_ENOUGH,
  type TotalEstimate,
} from "../measure/estimate.ts";
import { ms } from "../measure/backlog_model.ts";
import { NEAR_END } from "../params/mod.ts";

/**
 * The least time a run is watched before it is judged by its estimate; a
 * quarter of its limit when that is shorter.
 */
export const MIN_OBSERVED_SECONDS = 30;

/**
 * The least deliveries a rate is judged over, or {@link MIN_WINDOW_SHARE} of
 * the run's deliveries when that is fewer: counted over fewer, a rate moves
 * by its counting noise (about 1 ÷ √n: 5 % at 400), and two runs of a slow
 * queue (Redis, 2–3 deliveries a second after its queue filled) estimated
 * 18 % apart from 15 s windows of about 40 deliveries.
 */
export const MIN_WINDOW_DELIVERIES = 400;
/**
 * … a share of the run's deliveries, for a small run, whose whole count is
 * no more than a few windows.
 */
export const MIN_WINDOW_SHARE = 0.05;

/** The least deliveries a rate of a run of `expected` is judged over. */
function leastWindow(expected: number): number {
  return Math.min(
    MIN_WINDOW_DELIVERIES,
    Math.ceil(MIN_WINDOW_SHARE * expected),
  );
}

/** What was asked of a row's time: `--budget` and `--until-done`. */
export interface AskedBudget {
  /** `--budget S`: absent when not given. */
  readonly budgetSeconds?: number;
  /** `--until-done`: no budget even where one was given. */
  readonly untilDone?: boolean;
}

/**
 * The budget a row is held to, resolved from what was asked: the one place
 * `--until-done` lifts `--budget`; `null` for none.
 */
export function resolvedBudget(asked: AskedBudget): number | null {
  return asked.untilDone === true ? null : asked.budgetSeconds ?? null;
}

/** The limits one run is held to. */
export interface RunLimits {
  /**
   * The per-row budget in seconds, resolved ({@link resolvedBudget});
   * `null` with `--until-done` or without `--budget`.
   */
  readonly budgetSeconds: number | null;
  /** The time limit in seconds. */
  readonly timeoutSeconds: number;
  /**
   * `false` with `--no-early-stop`: the run is never stopped on its
   * estimate, only at its budget or time limit.  Absent: it may be.
   */
  readonly earlyStop?: boolean;
}

/** Why a run is stopped before its last delivery. */
export interface StopDecision {
  /** Which limit stopped it. */
  readonly stoppedBy: "budget" | "time limit";
  /** The result's reason, in words. */
  readonly reason: string;
  /**
   * The estimate the result carries: the one the rule was given when its
   * rate had settled, `null` when it had not (no estimate from a pace the
   * run had not settled into) or there was none.
   */
  readonly estimate: TotalEstimate | null;
}

/** The limit a run is held to and what it is called. */
function bindingLimit(
  limits: RunLimits,
): { seconds: number; stoppedBy: StopDecision["stoppedBy"]; name: string } {
  const { budgetSeconds, timeoutSeconds } = limits;
  return budgetSeconds != null && budgetSeconds < timeoutSeconds
    ? { seconds: budgetSeconds, stoppedBy: "budget", name: "budget" }
    : { seconds: timeoutSeconds, stoppedBy: "time limit", name: "time limit" };
}

/**
 * What holds a suite's burst rows to their time, in words, as the bench
 * says it before the first row: the time limit, or the budget when one is
 * given (and not lifted by `--until-done`).
 */
export function limitsNote(
  params: AskedBudget & {
    readonly timeoutSeconds: number;
    readonly earlyStop?: boolean;
  },
): string {
  const limit = `${params.timeoutSeconds.toLocaleString("en-US")} s`;
  const early = params.earlyStop !== false;
  const budget = resolvedBudget(params);
  if (budget != null) {
    return `budget ${budget} s a row (--budget): a row still ` +
      `delivering then` +
      (early
        ? `, or sure by its measured rate not to finish within ` +
          `${NEAR_END}× that,`
        : "") +
      ` is stopped and reported incomplete; a row whose ` +
      `estimate is within ${NEAR_END}× it runs to its end, up to its time ` +
      `limit of ${limit} (--timeout)` +
      (early ? "" : "; none is stopped earlier on its estimate " +
        "(--no-early-stop)");
  }
  return `each row runs to its last delivery, up to its time limit of ` +
    `${limit} (--timeout); ` +
    (early
      ? `a row whose own measured rate shows it cannot ` +
        `finish within that (even the fastest rest the back-test has seen ` +
        `would end past it) ` +
        `is stopped earlier and reported incomplete, with that estimate`
      : "none is stopped earlier on its estimate (--no-early-stop)");
}

/**
 * When a run would end were the rest of it to take only
 * {@link FASTEST_REST} of the time its estimate gives the rest: the
 * earliest end the stop rule believes, seconds since the start.
 * @param estimate The run's estimate now.
 * @param elapsedSeconds Seconds since the first `sendActivity` call.
 */
export function fastestEnd(
  estimate: TotalEstimate,
  elapsedSeconds: number,
): number {
  return elapsedSeconds +
    FASTEST_REST * Math.max(0, estimate.totalSeconds - elapsedSeconds);
}

/** Seconds in words, with thousands separated: `1,200`. */
function secondsText(seconds: number): string {
  return seconds.toLocaleString("en-US");
}

/** A rate in words: one decimal, two below 10. */
function perSecond(rate: number): string {
  return rate.toFixed(rate < 10 ? 2 : 1);
}

/**
 * The least time a run is watched before it is judged, for a limit of
 * `limitSeconds`: {@link MIN_OBSERVED_SECONDS}, or a third of the limit when
 * that is shorter.
 */
function observedSeconds(limitSeconds: number): number {
  return Math.min(MIN_OBSERVED_SECONDS, limitSeconds / 3);
}

/**
 * Whether an estimate may stand for a run's pace: its rate settled
 * (`TotalEstimate.settled`) over a window of at least half the least watch
 * (`observed`) and {@link leastWindow} deliveries, the same the
 * early stop asks for; a window cut short where the queue filled a second
 * before the budget measures no pace.
 */
function judged(
  estimate: TotalEstimate | null,
  observed: number,
): boolean {
  return estimate != null && estimate.settled &&
    estimate.windowSeconds >= observed / 2 &&
    windowCount(estimate) >= leastWindow(estimate.expected);
}

/**
 * What an estimate's rate was counted over: the messages its queue handed
 * out, for one made while a backlog queue still filled
 * (`TotalEstimate.windowHanded`), else its deliveries.
 */
function windowCount(estimate: TotalEstimate): number {
  return estimate.windowHanded ?? estimate.windowDeliveries;
}

/**
 * Whether the stop rule could judge a run by its estimate at
 * `elapsedSeconds` under a limit of `limitSeconds` (its send loop over is
 * the caller's to check): watched for the least time
 * ({@link MIN_OBSERVED_SECONDS}, or a third of the limit when shorter), and
 * its estimate may stand for its pace (settled over a window of at least
 * half that time).  The earliest a run can be stopped early.
 */
export function judgedAt(
  elapsedSeconds: number,
  estimate: TotalEstimate | null,
  limitSeconds: number,
): boolean {
  const observed = observedSeconds(limitSeconds);
  return elapsedSeconds >= observed && judged(estimate, observed);
}

/**
 * What a stop's reason adds for an estimate that may not stand for the run's
 * pace ({@link judged}), which the result then does not carry: the count so
 * far and why the rate is not the run's pace.
 */
function unsettledNote(
  estimate: TotalEstimate | null,
  observed: number,
): string {
  if (estimate == null || judged(estimate, observed)) return "";
  const [older, newer] = estimate.halfRates;
  const why = estimate.settled &&
      estimate.windowSeconds < observed / 2
    ? `its rate held over only the last ${
      Number(estimate.windowSeconds.toFixed(1))
    } s, under the ${Number((observed / 2).toFixed(1))} s a rate is ` +
      "judged over"
    : estimate.settled
    ? `its rate held over only the last ${
      windowCount(estimate).toLocaleString("en-US")
    } ${
      estimate.windowHanded == null ? "deliveries" : "messages handed out"
    }, under the ${leastWindow(estimate.expected)} a rate is judged over`
    : estimate.backlog?.halvesMsPerQueued != null
    ? `its queue still filled: such an estimate settles once ${
      Math.round(FILLED_ENOUGH * 100)
    } % of the fanout messages are handled and its cost per message ` +
      `waiting holds over the window's halves (it went from ${
        ms(estimate.backlog.halvesMsPerQueued[0])
      } to ${ms(estimate.backlog.halvesMsPerQueued[1])} over the two halves ` +
      `of the last ${Math.round(estimate.windowSeconds)} s)`
    : estimate.filling
    ? "its queue was still filling (not every activity's fanout handled), " +
      "so its consumer still shared its time with fanning out"
    : estimate.windowSeconds < 1
    ? "its deliveries so far came in one burst"
    : `${perSecond(older)}/s, then ${perSecond(newer)}/s over the two ` +
      `halves of the last ${Math.round(estimate.windowSeconds)} s`;
  return `, before its rate had settled (${why}); ` +
    `${estimate.delivered.toLocaleString("en-US")} delivered by then, and ` +
    "no estimate of its total, as none rests on a pace the run had not " +
    "settled into";
}

/**
 * The stop rule of one run, asked at each poll ({@link StopRule.decide}):
 * the time limit always binds; the budget binds unless the run, when it
 * reached its budget, was near its end ({@link NEAR_END}), from when on it
 * runs to its end; and a run is stopped before its budget only when it is
 * clearly beyond it: after at least {@link MIN_OBSERVED_SECONDS} (or a
 * quarter of the limit when that is shorter), with its send loop over, on a
 * rate that has settled (`TotalEstimate.settled`) over a window of at least
 * half that time (a window cut short where the queue filled is too short
 * until then), and with even the fastest end it believes
 * ({@link fastestEnd}) past {@link NEAR_END} × the budget (past the time
 * limit where no budget binds).  A rate that has not settled never stops a
 * run early: the run goes on, up to its budget.  A run
 * stopped at its budget or the time limit carries its estimate only when
 * the early stop could have judged by it (settled over a window of at least
 * half the least watch).
 */
export class StopRule {
  readonly #limits: RunLimits;
  readonly #backlogCause: string | undefined;
  #runsToEnd = false;

  /**
   * A rule for a run held to `limits`.
   * @param backlogCause Why the queue slows with its backlog
   *   (`Driver.backlogCause`), which the reason of a row stopped on an
   *   estimate that let its time fall with the backlog names as the cause.
   */
  constructor(limits: RunLimits, backlogCause?: string) {
    this.#limits = limits;
    this.#backlogCause = backlogCause;
  }

  /** Whether the run reached its budget near its end and runs to it. */
  get runsToEnd(): boolean {
    return this.#runsToEnd;
  }

  /**
   * Whether to stop the run now, and why; `null` to go on.
   * @param elapsedSeconds Seconds since the first `sendActivity` call.
   * @param estimate The run's estimate now, if it has one.
   * @param sendDone Whether the send loop is over (default `true`): while
   *   the sender still sends, its deliveries compete with its sending, and
   *   their rate says little about the rest.
   */
  decide(
    elapsedSeconds: number,
    estimate: TotalEstimate | null,
    sendDone = true,
  ): StopDecision | null {
    const { timeoutSeconds } = this.#limits;
    const budget = this.#runsToEnd ? null : this.#limits.budgetSeconds;
    const limit = bindingLimit({ budgetSeconds: budget, timeoutSeconds });
    const at = Math.round(elapsedSeconds);
    const observed = observedSeconds(limit.seconds);
    if (elapsedSeconds >= limit.seconds) {
      const kept = judged(estimate, observed) ? estimate : null;
      if (limit.stoppedBy === "time limit") {
        return {
          stoppedBy: "time limit",
          reason: `timed out after ${secondsText(limit.seconds)} s` +
            unsettledNote(estimate, observed),
          estimate: kept,
        };
      }
      if (
        estimate != null && estimate.totalSeconds <= NEAR_END * limit.seconds
      ) {
        this.#runsToEnd = true;
        return this.decide(elapsedSeconds, estimate, sendDone);
      }
      return {
        stoppedBy: "budget",
        reason: `budget of ${secondsText(limit.seconds)} s reached` +
          (estimate == null
            ? ""
            : kept != null
            ? ` while still delivering, with an estimated total of ` +
              `${
                secondsText(Math.round(estimate.totalSeconds))
              } s, beyond ${NEAR_END}× ` +
              `the budget`
            : ` while still delivering` + unsettledNote(estimate, observed)),
        estimate: kept,
      };
    }
    const beyond = limit.stoppedBy === "budget"
      ? NEAR_END * limit.seconds
      : limit.seconds;
    const fastest = estimate == null
      ? -Infinity
      : fastestEnd(estimate, elapsedSeconds);
    if (
      this.#limits.earlyStop !== false && sendDone && estimate != null &&
      judgedAt(elapsedSeconds, estimate, limit.seconds) && fastest > beyond
    ) {
      return {
        stoppedBy: limit.stoppedBy,
        reason: `stopped at ${at} s: cannot finish within ` +
          (limit.stoppedBy === "budget"
            ? `${NEAR_END}× the budget of ${secondsText(limit.seconds)} s`
            : `the time limit of ${secondsText(limit.seconds)} s`) +
          ` (estimated ${
            secondsText(Math.round(estimate.totalSeconds))
          } s; even with the rest taking ${FASTEST_REST} of its estimate, ` +
          `the fastest the back-test has seen, it would end at ` +
          `${secondsText(Math.round(fastest))} s)` +
          (estimate.backlog != null && this.#backlogCause != null
            ? `: ${this.#backlogCause}`
            : ""),
        estimate,
      };
    }
    return null;
  }
}
