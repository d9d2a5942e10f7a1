/**
 * The words of `deno task advise`: an {@link Advice} as plain text, each
 * figure followed by the results file it came from.
 *
 * @module
 */
import type { Advice, QueueAnswer } from "./advice.ts";

function n(value: number, digits = 1): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

function crashLine(label: string, answer: QueueAnswer): string[] {
  const own = label === "worker"
    ? (answer.workerCrash == null ? [] : [answer.workerCrash])
    : answer.serverCrash.filter((s) => s.value.id === answer.driver);
  if (own.length === 0) return [`   ${label} crash: not measured`];
  return own.map((s) =>
    `   ${label} crash: lost ${n(s.value.lost, 0)}, duplicated ` +
    `${n(s.value.duplicates, 0)} of ${n(s.value.expected, 0)} [${s.source}]`
  );
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
  lines.push(...crashLine("worker", answer), ...crashLine("server", answer));
  const cpu = answer.cpuMsPerDelivery;
  if (cpu != null) {
    lines.push(
      `   CPU per delivery: app ${n(cpu.value.app, 2)} ms${
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
  for (const note of answer.notes) lines.push(`   note: ${note}`);
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
      `Sustained rates were measured with ${advice.measuredRecipients} ` +
        "recipients per activity, one worker, on the machine named in each " +
        "file; a faster machine or more workers moves them.",
    );
  }
  const fit = advice.answers.filter((a) => a.fits);
  const rest = advice.answers.filter((a) => !a.fits);
  out.push("");
  if (fit.length > 0) {
    out.push("Queues that fit, best first (lowest latency at that rate):");
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
      "Some queue sustains the rate, but none that meets every condition " +
        "above. To measure the question itself, with more handlers (on the " +
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
