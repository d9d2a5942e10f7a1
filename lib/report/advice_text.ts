/**
 * The words of `deno task advise`: an {@link Advice} as plain text, each
 * figure followed by the results file it came from.
 *
 * @module
 */
import {
  type Advice,
  type CrashEvidence,
  type QueueAnswer,
  UNKNOWN_CRASH_NOTES,
} from "./advice.ts";

function n(value: number, digits = 1): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

function range(spread: { min: number; max: number }): string {
  return spread.min === spread.max
    ? n(spread.min, 0)
    : `${n(spread.min, 0)}–${n(spread.max, 0)}`;
}

/**
 * A crash's lines: the range over the runs counted, then each run with its
 * file; a run cut off before redelivery says why it is not counted.
 */
function crashLines(label: string, evidence: CrashEvidence | null): string[] {
  if (evidence == null) return [`   ${label} crash: not measured`];
  const counted = evidence.runs.filter((r) => r.cutOff == null);
  const runs = (count: number) => `${count} run${count === 1 ? "" : "s"}`;
  const head = evidence.lost == null
    ? `   ${label} crash: loss unknown, every run was cut off before ` +
      "redelivery:"
    : `   ${label} crash: lost ${range(evidence.lost)}, duplicated ${
      range(evidence.duplicates!)
    } of ${n(counted[0].expected, 0)} over ${runs(counted.length)}${
      counted.length < evidence.runs.length
        ? ` (${
          runs(evidence.runs.length - counted.length)
        } cut off, not counted)`
        : ""
    }:`;
  return [
    head,
    ...evidence.runs.map((r) =>
      `     ${r.source}: ` +
      (r.cutOff == null
        ? `lost ${n(r.missing, 0)}, duplicated ${n(r.duplicates, 0)}`
        : `loss unknown, run cut off: it counted ${n(r.missing, 0)} ` +
          `missing when it gave up after ${
            n(r.cutOff.gaveUpAfterSeconds, 0)
          } s without a delivery, while a run of the same configuration ` +
          `went ${n(r.cutOff.recoveredAfterSeconds, 0)} s without one ` +
          `after its crash and then lost nothing [${r.cutOff.recoveredIn}]`)
    ),
  ];
}

function details(answer: QueueAnswer, needed: number): string[] {
  const lines: string[] = [];
  const capacity = answer.capacity.value;
  lines.push(
    capacity == null
      ? `   sustained rate: none of the rates probed [${answer.capacity.source}]`
      : `   sustains ${n(capacity)} deliveries/s${
        answer.failedAt == null ? "" : ` (fell behind at ${n(answer.failedAt)})`
      }, ${
        n(capacity / needed, 2)
      }× what is needed [${answer.capacity.source}]`,
  );
  if (answer.latency != null) {
    lines.push(
      `   p99 latency ${n(answer.latency.value.p99Ms, 0)} ms at ` +
        `${n(answer.latency.value.deliveriesPerSecond)} deliveries/s ` +
        `[${answer.latency.source}]`,
    );
  }
  lines.push(
    ...crashLines("worker", answer.workerCrash),
    ...(answer.serverCrash == null && answer.queueServer.value == null
      ? [
        "   server crash: it has no queue server " +
        `[${answer.queueServer.source}]; losing the machine or disk that ` +
        "holds its queue was not measured",
      ]
      : crashLines("server", answer.serverCrash)),
  );
  const cpu = answer.cpuMsPerDelivery;
  if (cpu != null) {
    lines.push(
      `   CPU per delivery${
        cpu.value.deliveriesPerSecond == null
          ? " in a burst (no steady-load run has it)"
          : ` at a steady ${n(cpu.value.deliveriesPerSecond)} deliveries/s`
      }: app ${n(cpu.value.app, 2)} ms${
        cpu.value.server == null ? "" : `, server ${n(cpu.value.server, 2)} ms`
      } [${cpu.source}]`,
    );
  }
  if (answer.idleCpuPercent != null) {
    lines.push(
      `   idle: ${n(answer.idleCpuPercent.value, 2)}% of one core ` +
        `[${answer.idleCpuPercent.source}]`,
    );
  }
  for (const note of answer.notes) {
    if (!UNKNOWN_CRASH_NOTES.has(note)) lines.push(`   note: ${note}`);
  }
  return lines;
}

/** The advice as text for a terminal. */
export function renderAdvice(advice: Advice): string {
  const q = advice.question;
  const needed = advice.neededDeliveriesPerSecond;
  const out = [
    `Needed at peak: ${n(q.followers, 0)} followers × ${
      n(q.postsPerMinute, 2)
    } posts/min ÷ 60 = ${n(needed)} deliveries/s${
      q.durable ? "; a crash may not lose a delivery" : ""
    }.`,
  ];
  if (advice.measuredRecipients != null) {
    out.push(
      "Sustained rates were measured with " +
        `${n(advice.measuredRecipients.value, 0)} recipients per activity, ` +
        "one handler at a time (no ParallelMessageQueue), on the machine the " +
        `file names [${advice.measuredRecipients.source}]; a faster ` +
        "machine or more handlers moves them.",
    );
  }
  const runtime = q.runtime ?? "deno";
  if (runtime !== "deno") {
    out.push(
      `The app on ${runtime}: rates, latency, CPU and idle cost come only ` +
        `from rows measured with the app on ${runtime}.`,
    );
  }
  if (advice.crashRuntimes.length > 0) {
    out.push(
      "Crash figures were measured with the app on " +
        `${advice.crashRuntimes.join(" and ")}: what a crash loses is the ` +
        "queue's, but they were not measured on " + `${runtime}.`,
    );
  }
  const fit = advice.answers.filter((a) => a.fits);
  const rest = advice.answers.filter((a) => !a.fits);
  out.push("");
  if (fit.length > 0) {
    out.push(
      "Queues that fit, best first (fewest crash figures not measured, then " +
        "lowest latency at the rate nearest yours):",
    );
    fit.forEach((a, i) =>
      out.push(`${i + 1}. ${a.driver}`, ...details(a, needed))
    );
  } else {
    out.push("No measured queue fits.");
  }
  if (rest.length > 0) {
    out.push("", "Queues that do not fit:");
    for (const a of rest) {
      out.push(`- ${a.driver}: ${a.notes.join("; ")}`);
    }
  }
  if (advice.covered && fit.length === 0) {
    out.push(
      "",
      "Some queue or setting sustains the rate, but none that meets every " +
        "condition above. To measure the question itself, with more handlers (on the " +
        "machine that will run it):",
      `  ${advice.measureCommand}`,
    );
  }
  if (!advice.covered) {
    const top = advice.highestMeasured;
    out.push(
      "",
      `Not covered: the results do not show any queue sustaining ${
        n(needed)
      } deliveries/s.${
        top == null
          ? " No sustained rate was measured at all."
          : ` The highest measured is ${top.value.driver} at ${
            n(top.value.deliveriesPerSecond)
          } deliveries/s [${top.source}].`
      }`,
      "To measure the question itself (on the machine that will run it):",
      `  ${advice.measureCommand}`,
    );
  }
  return out.join("\n");
}
