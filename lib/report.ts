/**
 * Human and machine-readable reports of a suite: the Markdown table (as the
 * original benchmark printed it, plus accounting), and atomic writes of
 * `latest.json` and `latest.md`.
 *
 * @module
 */
import { join } from "node:path";
import type { ConfigurationResult, ResultsDocument } from "./results.ts";

const integer = new Intl.NumberFormat("en-US");

function seconds(value: number | null): string {
  return value == null ? "—" : `${value.toFixed(2)} s`;
}

function rate(result: ConfigurationResult): string {
  const value = result.deliveriesPerSecond;
  if (value == null) return "—";
  const text = `${value.toFixed(1)}/s`;
  return result.status === "ok" ? text : `${text} (so far)`;
}

function deliveredCell(result: ConfigurationResult): string {
  if (result.status === "skipped") return "—";
  const share = result.expected > 0
    ? ` (${(100 * result.delivered / result.expected).toFixed(1)}%)`
    : "";
  return `${integer.format(result.delivered)} / ${
    integer.format(result.expected)
  }${result.delivered === result.expected ? "" : share}`;
}

/** A display label: `redis ×4`. */
export function label(result: ConfigurationResult): string {
  return result.parallelism > 1
    ? `${result.driver} ×${result.parallelism}`
    : result.driver;
}

/** Renders the results as a Markdown table followed by notes on non-ok rows. */
export function renderTable(document: ResultsDocument): string {
  const header = [
    "Configuration",
    "Status",
    "Send",
    "Receive",
    "Total",
    "Delivered / expected",
    "Duplicates",
    "Deliveries/s",
  ];
  const rows = document.results.map((r) => [
    label(r),
    r.status,
    seconds(r.sendSeconds),
    seconds(r.receiveSeconds),
    seconds(r.totalSeconds),
    deliveredCell(r),
    r.status === "skipped" ? "—" : integer.format(r.duplicates),
    rate(r),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => row[i].length))
  );
  const right = new Set([2, 3, 4, 5, 6, 7]);
  const line = (cells: string[]) =>
    `| ${
      cells.map((c, i) => right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))
        .join(" | ")
    } |`;
  const rule = `| ${
    widths.map((w, i) => right.has(i) ? "-".repeat(w - 1) + ":" : "-".repeat(w))
      .join(" | ")
  } |`;
  const lines = [line(header), rule, ...rows.map(line)];
  const notes = document.results
    .filter((r) => r.status !== "ok")
    .map((r) => `- **${label(r)}** ${r.status}: ${r.reason ?? "no reason"}`);
  const extra = document.results
    .filter((r) => r.status !== "skipped" && (r.unexpected > 0 || r.sendErrors > 0))
    .map((r) =>
      `- **${label(r)}**: ${r.unexpected} unexpected inbox requests, ` +
      `${r.sendErrors} failed sendActivity calls`
    );
  const all = [...notes, ...extra];
  return lines.join("\n") + (all.length > 0 ? "\n\n" + all.join("\n") : "") +
    "\n";
}

/** Renders `latest.md`: parameters, the table and how to read it. */
export function renderMarkdown(document: ResultsDocument): string {
  const p = document.params;
  return `# Fedify outbox queue benchmark results

${integer.format(p.total)} activities × ${
    integer.format(p.recipients)
  } recipients = ${
    integer.format(p.total * p.recipients)
  } deliveries per configuration; fanout \`${p.fanout}\`; sender key RSA-${p.rsaBits} + Ed25519.
Started ${document.startedAt}, finished ${document.finishedAt ?? "(still running)"}.

${renderTable(document)}
Send: the app's loop of \`sendActivity\` calls.  Receive: first to last
delivery at the inbox.  Total: first \`sendActivity\` call to last delivery.
Deliveries/s: distinct deliveries ÷ total.  A configuration that did not
finish shows no times, only how far it got.
`;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(temp, text);
  await Deno.rename(temp, path);
}

/** Writes `latest.json` and `latest.md` into `dir`, each atomically. */
export async function writeResults(
  dir: string,
  document: ResultsDocument,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomically(
    join(dir, "latest.json"),
    JSON.stringify(document, null, 2) + "\n",
  );
  await writeAtomically(join(dir, "latest.md"), renderMarkdown(document));
}
