/**
 * The idle chart: what each configuration's processes cost while its queue
 * sits empty, CPU as a share of one core, stacked by role (sender, worker,
 * queue server), with the configuration's total beside each bar.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { ChartSpec } from "./context.ts";
import { fixed, unique } from "./format.ts";
import type { LoadContext } from "./load_context.ts";
import { BAR_LABEL_MARK, frame } from "./theme.ts";
import { configurationAxis } from "./text.ts";
import { configurationLabel, rateText } from "../label.ts";

/** Colours of the roles: the app's processes, then the queue server. */
export const ROLE_COLORS: Readonly<Record<string, string>> = {
  sender: "#4c78a8",
  worker: "#f58518",
  server: "#54a24b",
  inbox: "#b0b0b0",
};

/** The colour of a role the table above does not name. */
const OTHER_ROLE = "#7f7f7f";

/** Where a role stacks: the app's processes first, the server last. */
function roleRank(role: string): number {
  const rank = Object.keys(ROLE_COLORS).indexOf(role);
  return rank < 0 ? Object.keys(ROLE_COLORS).length : rank;
}

/** A share of a core as the chart prints it: `0.80%`, `12.5%`. */
function percentText(value: number): string {
  return `${fixed(value, value < 10 ? 2 : 1)}%`;
}

/**
 * (i) Idle CPU per configuration, stacked by role; null when no idle row
 * measured any CPU.
 */
export function idleCpuChart(context: LoadContext): ChartSpec | null {
  const rows: Record<string, string | number>[] = [];
  const totals: Record<string, string | number>[] = [];
  for (const result of context.idle) {
    const idle = result.idle!;
    const configuration = configurationLabel(result);
    let total = 0;
    for (const role of unique(idle.processes.map((p) => p.role))) {
      const cpus = idle.processes.filter((p) => p.role === role)
        .map((p) => p.cpuPercent).filter((cpu) => cpu != null);
      if (cpus.length === 0) continue;
      const cpu = cpus.reduce((a, b) => a + b, 0);
      total += cpu;
      rows.push({ configuration, role, cpu, rank: roleRank(role) });
    }
    if (rows.some((row) => row.configuration === configuration)) {
      totals.push({ configuration, total, text: percentText(total) });
    }
  }
  if (rows.length === 0) return null;
  const order = unique(rows.map((row) => String(row.configuration)));
  const roles = unique(rows.map((row) => String(row.role)))
    .sort((a, b) => roleRank(a) - roleRank(b));
  const xMax = Math.max(...totals.map((row) => Number(row.total))) * 1.18;
  const seconds = unique(
    context.idle.map((r) => `${rateText(r.idle!.seconds)} s`),
  );
  const y = configurationAxis(order);
  const x = {
    type: "quantitative",
    title: "CPU while idle (% of one core)",
    axis: { format: ",~r", grid: true },
    scale: { domain: [0, xMax > 0 ? xMax : 1], nice: true },
  };
  const spec = {
    ...frame(
      { subtitle: context.setup },
      "Idle CPU",
      `empty queue for ${seconds.join(", ")} after start-up · ` +
        "stacked by process role; total at the end",
    ),
    autosize: { type: "fit-x", contains: "padding" },
    height: 36 * order.length,
    layer: [
      {
        data: { values: rows },
        mark: { type: "bar", height: { band: 0.7 } },
        encoding: {
          y,
          x: { ...x, field: "cpu", stack: "zero" },
          color: {
            field: "role",
            type: "nominal",
            title: "Role",
            scale: {
              domain: roles,
              range: roles.map((role) => ROLE_COLORS[role] ?? OTHER_ROLE),
            },
            legend: { orient: "top", columns: roles.length },
          },
          order: { field: "rank", sort: "ascending" },
        },
      },
      {
        data: { values: totals },
        mark: BAR_LABEL_MARK,
        encoding: {
          y,
          x: { ...x, field: "total" },
          text: { field: "text" },
        },
      },
    ],
  };
  return {
    name: "idle-cpu",
    title: "Idle CPU",
    spec: spec as TopLevelSpec,
  };
}
