/**
 * The machine and software a suite ran on (its results' `environment`) as
 * the report's "Machine" and "Software" sections.
 *
 * @module
 */
import { renderCalibration } from "./calibration_text.ts";
import { type Environment, UNKNOWN } from "../results/mod.ts";

/**
 * Renders the environment as the "Machine" (with the calibration, when
 * recorded) and "Software" Markdown sections; `queueCode` (lines of
 * `queueCodeLines()`) goes after the packages.
 */
export function renderEnvironment(
  env: Environment,
  queueCode: readonly string[] = [],
): string {
  const number = new Intl.NumberFormat("en-US");
  const cpu = [
    text(env.cpu.model),
    env.cpu.cores > 0
      ? `${env.cpu.cores} logical ${env.cpu.cores === 1 ? "core" : "cores"}`
      : "cores unknown",
    env.cpu.mhz == null ? null : `${number.format(env.cpu.mhz)} MHz`,
  ].filter((part) => part != null).join(", ");
  const memory = env.memoryBytes > 0
    ? `${(env.memoryBytes / 2 ** 30).toFixed(1)} GiB`
    : UNKNOWN;
  const packages = Object.entries(env.packages).map(([name, version]) =>
    version === UNKNOWN
      ? `  - ${code(name)} (version unknown)`
      : `  - ${version.split(", ").map((v) => code(`${name}@${v}`)).join(", ")}`
  );
  const servers = Object.entries(env.servers).map(([name, version]) =>
    `  - ${text(name)} ${text(version)}`
  );
  return [
    "### Machine",
    "",
    `- **CPU**: ${cpu}`,
    `- **Memory**: ${memory}`,
    `- **OS**: ${text(env.os.name)}`,
    `- **Kernel**: ${text(env.os.kernel)}`,
    `- **Architecture**: ${text(env.os.arch)}`,
    ...(env.calibration == null ? [] : [renderCalibration(env.calibration)]),
    "",
    "### Software",
    "",
    `- **Deno**: ${text(env.runtime.deno)}`,
    `- **V8**: ${text(env.runtime.v8)}`,
    `- **TypeScript**: ${text(env.runtime.typescript)}`,
    packages.length > 0 ? "- **Packages**:" : "- **Packages**: none recorded",
    ...packages,
    ...queueCode,
    servers.length > 0
      ? "- **Queue servers**:"
      : "- **Queue servers**: none (in-process queues only)",
    ...servers,
    `- **Sender keys**: ${text(env.senderKeys)}`,
    `- **Fanout**: ${code(env.fanout)}${FANOUT_NOTES[env.fanout] ?? ""}`,
    ...provenanceLines(env),
    "",
  ].join("\n");
}

/**
 * The commit and command lines, as far as recorded (also for the
 * dequeue-cost report, whose environment has these two and less else).
 */
export function provenanceLines(
  env: Pick<Environment, "commit" | "noCommitReason" | "command">,
): string[] {
  const lines: string[] = [];
  if (env.commit !== undefined) {
    lines.push(
      env.commit == null
        ? `- **This project's commit**: none recorded (${
          text(env.noCommitReason ?? "not a git checkout, or git missing")
        })`
        : `- **This project's commit**: ${code(env.commit.sha)}${
          env.commit.dirty ? " with uncommitted changes" : ""
        }`,
    );
  }
  if (env.command != null) {
    lines.push(`- **Command**: ${code(env.command.join(" "))}`);
  }
  return lines;
}

const FANOUT_NOTES: Readonly<Record<string, string>> = {
  auto: " (with 5 or more recipients, `sendActivity` enqueues one fanout " +
    "message per activity, which a worker expands into one message per inbox)",
  skip: " (`sendActivity` enqueues one message per inbox itself)",
  force: " (`sendActivity` always enqueues one fanout message per activity)",
};

/** Escapes text for Markdown prose. */
function text(value: string): string {
  return value.replace(/[\\`*[\]<>|]/g, "\\$&");
}

/** A Markdown code span that survives backticks in `value`. */
function code(value: string): string {
  const fence = value.includes("`") ? "``" : "`";
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}
