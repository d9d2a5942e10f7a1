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
} from "../analysis/mod.ts";

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
  for (const run of answer.deployed) {
    lines.push(
      `   deployed as asked, ${run.id}: ${
        run.deliveriesPerSecond == null
          ? "no rate"
          : `${n(run.deliveriesPerSecond)} deliveries/s`
      }${run.status === "ok" ? "" : " so far (stopped)"} in a burst${
        run.reference == null ? "" : `, against ${n(run.reference)} ` +
          "as measured beside it (0 ms added, or every core)"
      } [${run.source}]`,
    );
  }
  for (const note of answer.notes) {
    if (!UNKNOWN_CRASH_NOTES.has(note)) lines.push(`   note: ${note}`);
  }
  return lines;
}

/** The question's deployment, and whether the files cover it. */
function deploymentLines(advice: Advice): string[] {
  const coverage = advice.deployment;
  if (coverage == null) return [];
  const q = advice.question;
  const asked = [
    ...(q.cpus == null ? [] : [`the app on ${q.cpus} core(s)`]),
    ...(q.queueRttMs == null
      ? []
      : [`its queue server ${n(q.queueRttMs, 2)} ms away`]),
  ].join(" and ");
  if (coverage.covered) {
    return [
      `Deployed with ${asked}: each queue's burst so deployed is shown ` +
      "beside it; capacity and latency are still from loopback on every " +
      "core.",
    ];
  }
  return [
    `Not covered: no results file measured ${asked} (measured: round ` +
    `trips ${
      coverage.measuredRttMs.length === 0
        ? "none"
        : coverage.measuredRttMs.map((v) => `${n(v, 2)} ms`).join(", ")
    }; cores ${
      coverage.measuredCpus.length === 0
        ? "none"
        : coverage.measuredCpus.join(", ")
    }). To measure it: ${coverage.command}`,
  ];
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
  out.push(...deploymentLines(advice));
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
