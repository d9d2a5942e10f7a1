/**
 * The "Scale-out" section of `latest.md`, for a suite that swept its
 * workers (`--scale`): per queue, its deliveries per second at each worker
 * count on agents beside the same row with the workers on the bench's host
 * (`--placement agents,local`), the rate per worker, what limits each row
 * (the stage model's resource, with the cpuLimit bound per worker when the
 * workers were held to a CPU limit), where the agents ran and their clocks.
 *
 * @module
 */
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";
import { configurationLabel } from "./label.ts";

/** A configuration without its worker count and placement. */
function base(row: ConfigurationResult): string {
  return row.id.replace(/-w\d+/, "").replace(/-agents$/, "");
}

function fixed(value: number | null | undefined, digits: number): string {
  return value == null ? "—" : value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** What limits a row, in a few words, with the cpuLimit bound if any. */
function limit(row: ConfigurationResult | undefined): string {
  if (row == null) return "—";
  const resource = row.limitedBy?.resource ?? "—";
  const bound = row.prediction?.cpuLimit;
  const workers = row.deployment?.scale ?? row.workers ?? 1;
  return bound == null
    ? resource
    : `${resource} (CPU limit bound ${fixed(bound / workers, 1)}/s a worker)`;
}

/** A row's rate, or its status when it did not finish. */
function rate(row: ConfigurationResult | undefined): string {
  if (row == null) return "—";
  const perSecond = `${fixed(row.deliveriesPerSecond, 1)}/s`;
  return row.status === "ok" ? perSecond : `${perSecond} (${row.status})`;
}

/** The agents' hosts and limits of the rows on agents, in words. */
function whereAgentsRan(rows: readonly ConfigurationResult[]): string {
  const agents = rows.flatMap((r) => r.deployment?.agents?.agents ?? []);
  if (agents.length === 0) return "";
  const images = [...new Set(agents.map((a) => a.image ?? "no image"))];
  const limits = [...new Set(agents.map((a) => a.cpuLimit))]
    .map((l) => l == null ? "no CPU limit" : `${l} core`);
  const uncertainty = Math.max(
    ...rows.map((r) => r.deployment?.agents?.clockUncertaintyMs ?? 0),
  );
  const marked = rows.filter((r) => r.deployment?.agents?.latencyClockMarked)
    .length;
  return `- **Agents**: ${new Set(agents.map((a) => a.address)).size} ` +
    `(${images.join(", ")}; ${limits.join(", ")} each); their clocks were ` +
    `within ${fixed(uncertainty, 3)} ms of the bench's, ${
      marked === 0
        ? "a tenth of every row's median latency or less"
        : `more than a tenth of the median latency in ${marked} row(s), ` +
          "whose latencies are marked"
    }.\n`;
}

/**
 * The section (ending in a blank line), or `""` when no row swept its
 * workers.
 */
export function scaleOutSection(document: ResultsDocument): string {
  const rows = document.results.filter((r) => r.deployment?.scale != null);
  if (rows.length === 0) return "";
  const groups = new Map<string, ConfigurationResult[]>();
  for (const row of rows) {
    groups.set(base(row), [...groups.get(base(row)) ?? [], row]);
  }
  const lines: string[] = [];
  for (const group of groups.values()) {
    const counts = [...new Set(group.map((r) => r.deployment!.scale!))]
      .sort((a, b) => a - b);
    for (const count of counts) {
      const at = group.filter((r) => r.deployment!.scale === count);
      const agents = at.find((r) => r.deployment!.placement === "agents");
      const local = at.find((r) => r.deployment!.placement !== "agents");
      const name = configurationLabel({
        ...(agents ?? local)!,
        deployment: undefined,
      });
      const ratio = agents?.deliveriesPerSecond != null &&
          local?.deliveriesPerSecond != null && local.deliveriesPerSecond > 0
        ? `${fixed(agents.deliveriesPerSecond / local.deliveriesPerSecond, 2)}×`
        : "—";
      const perWorker = (r: ConfigurationResult | undefined) =>
        r?.deliveriesPerSecond == null
          ? "—"
          : `${fixed(r.deliveriesPerSecond / count, 1)}/s`;
      lines.push(
        `| ${name} | ${count} | ${rate(agents)} | ${perWorker(agents)} | ${
          rate(local)
        } | ${perWorker(local)} | ${ratio} | ${limit(agents)} | ${
          limit(local)
        } |`,
      );
    }
  }
  const limitNote = document.params.workerCpuLimit == null
    ? ""
    : ` Each local worker was held to ${document.params.workerCpuLimit} ` +
      "core of CPU time (a control group's CFS quota, as Docker sets one).";
  return `## Scale-out

Each queue with 1 or more worker processes, on agents (one worker each) and on
the bench's host.${limitNote}

| Configuration | Workers | On agents | per worker | Local | per worker | Agents ÷ local | Limited by, agents | Limited by, local |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |
${lines.join("\n")}

- **On agents / Local**: deliveries per second as in the main table; a row
  that did not finish shows its status.
- **Limited by**: the stage model's resource for the row; with a CPU limit,
  its bound per worker (the limit × 1000 ÷ the workers' CPU ms per delivery).
${whereAgentsRan(rows)}
`;
}
