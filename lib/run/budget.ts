/**
 * The stop rule of a burst run: when to stop a run that is still delivering
 * because it will not, or did not, finish within its budget (`--budget`)
 * or the time limit (`--timeout`), and what the result then says.  Pure:
 * the watch (`watch.ts`) asks it at each poll, and `deno task backtest`
 * replays it over published timelines to simulate a default run.
 *
 * @module
 */
import type { TotalEstimate } from "../measure/estimate.ts";

/**
 * The least time a run is watched before it is judged by its estimate; a
 * quarter of its limit when that is shorter.
 */
export const MIN_OBSERVED_SECONDS = 30;

/** The limits one run is held to. */
export interface RunLimits {
  /** The per-row budget in seconds; `null` with `--until-done`. */
  readonly budgetSeconds: number | null;
  /** The time limit in seconds. */
  readonly timeoutSeconds: number;
}

/** Why a run is stopped before its last delivery. */
export interface StopDecision {
  /** Which limit stopped it. */
  readonly stoppedBy: "budget" | "time limit";
  /** The result's reason, in words. */
  readonly reason: string;
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
 * Whether to stop a run now, and why; `null` to go on.
 *
 * A run is stopped once its limit (the budget, or the time limit when that
 * is shorter or there is no budget) is reached, or earlier, after at least
 * {@link MIN_OBSERVED_SECONDS} (or a quarter of the limit when that is
 * shorter), once even the optimistic bound of its
 * estimate (the rest going 4× faster) lies past the limit.
 * A run is judged by its estimate only once its send loop is over: while
 * the sender still sends, its deliveries compete with its sending, and
 * their rate says little about the rest.
 * @param elapsedSeconds Seconds since the first `sendActivity` call.
 * @param estimate The run's estimate now, if it has one.
 * @param sendDone Whether the send loop is over (default `true`).
 */
export function stopDecision(
  elapsedSeconds: number,
  estimate: TotalEstimate | null,
  limits: RunLimits,
  sendDone = true,
): StopDecision | null {
  const limit = bindingLimit(limits);
  const at = Math.round(elapsedSeconds);
  if (elapsedSeconds >= limit.seconds) {
    return {
      stoppedBy: limit.stoppedBy,
      reason: limit.stoppedBy === "budget"
        ? `budget of ${limit.seconds} s reached` +
          (estimate == null ? "" : " while still delivering")
        : `timed out after ${limit.seconds} s`,
    };
  }
  const observed = Math.min(MIN_OBSERVED_SECONDS, limit.seconds / 4);
  if (
    sendDone && elapsedSeconds >= observed && estimate != null &&
    estimate.lowSeconds > limit.seconds
  ) {
    return {
      stoppedBy: limit.stoppedBy,
      reason: `stopped at ${at} s: cannot finish within the ${limit.name} ` +
        `of ${limit.seconds} s (even 4× faster it would take ` +
        `${Math.round(estimate.lowSeconds)} s)`,
    };
  }
  return null;
}
