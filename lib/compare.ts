/**
 * Compares two results files configuration by configuration: the change in
 * median receive time, throughput and p99 latency, and whether it stands out
 * from the run-to-run spread or is noise.
 *
 * Usage: `deno task compare OLD.json NEW.json`
 *
 * @module
 */
import type {
  ConfigurationResult,
  ResultsDocument,
  Status,
  SuiteParams,
} from "./results.ts";

/** The figures compared, by their key in {@link ConfigurationResult.spread}. */
export type ComparedFigure =
  | "receiveSeconds"
  | "deliveriesPerSecond"
  | "latencyP99Ms";

/**
 * How a figure changed: `noise` when the old and new ranges over the runs
 * overlap, otherwise `better` or `worse` (lower times and latencies and
 * higher throughput are better).
 */
export type Verdict = "better" | "worse" | "noise";

/** The change of one figure of a configuration present and `ok` in both. */
export interface FigureChange {
  /** Which figure. */
  readonly figure: ComparedFigure;
  /** The old median; `null` when the old file lacks it. */
  readonly old: number | null;
  /** The new median; `null` when the new file lacks it. */
  readonly new: number | null;
  /** `new − old`; `null` unless both are known. */
  readonly delta: number | null;
  /** `delta` as a percentage of `old`; `null` unless both are known and old ≠ 0. */
  readonly percent: number | null;
  /** `null` unless both are known. */
  readonly verdict: Verdict | null;
}

/** One configuration id in the comparison. */
export interface ComparisonRow {
  /** The configuration id, e.g. `redis-x4`. */
  readonly id: string;
  /** Whether the id is in both files or only one. */
  readonly presence: "both" | "only in old" | "only in new";
  /** Its status in the old file; `null` when absent there. */
  readonly oldStatus: Status | null;
  /** Its status in the new file; `null` when absent there. */
  readonly newStatus: Status | null;
  /**
   * When in both files but not `ok` in both: `better` or `worse` if the status
   * itself improved or got worse (ok < skipped < incomplete < failed),
   * otherwise `null`.
   */
  readonly statusVerdict: "better" | "worse" | null;
  /** One entry per compared figure; empty unless `ok` in both files. */
  readonly changes: readonly FigureChange[];
}

/** A suite parameter whose value differs between the files. */
export interface ParamDifference {
  /** The parameter's name in {@link SuiteParams}. */
  readonly name: keyof SuiteParams;
  /** Its old value. */
  readonly old: unknown;
  /** Its new value. */
  readonly new: unknown;
}

/** The comparison of two results files. */
export interface Comparison {
  /** Differences in `total`, `recipients`, `fanout` and `rsaBits`. */
  readonly paramDifferences: readonly ParamDifference[];
  /** Every configuration id of either file: the old file's order, then new ones. */
  readonly rows: readonly ComparisonRow[];
}

const COMPARED_PARAMS = ["total", "recipients", "fanout", "rsaBits"] as const;

const FIGURES: readonly {
  readonly figure: ComparedFigure;
  readonly higherIsBetter: boolean;
  readonly value: (r: ConfigurationResult) => number | null;
}[] = [
  {
    figure: "receiveSeconds",
    higherIsBetter: false,
    value: (r) => r.receiveSeconds,
  },
  {
    figure: "deliveriesPerSecond",
    higherIsBetter: true,
    value: (r) => r.deliveriesPerSecond,
  },
  {
    figure: "latencyP99Ms",
    higherIsBetter: false,
    value: (r) => r.latencyMs?.p99 ?? null,
  },
];

const SEVERITY: Readonly<Record<Status, number>> = {
  ok: 0,
  skipped: 1,
  incomplete: 2,
  failed: 3,
};

function range(
  result: ConfigurationResult,
  figure: ComparedFigure,
  value: number,
): { min: number; max: number } {
  const spread = result.spread?.[figure];
  return spread == null
    ? { min: value, max: value }
    : { min: Math.min(spread.min, value), max: Math.max(spread.max, value) };
}

function compareFigure(
  old: ConfigurationResult,
  now: ConfigurationResult,
  spec: typeof FIGURES[number],
): FigureChange {
  const oldValue = spec.value(old);
  const newValue = spec.value(now);
  if (oldValue == null || newValue == null) {
    return {
      figure: spec.figure,
      old: oldValue,
      new: newValue,
      delta: null,
      percent: null,
      verdict: null,
    };
  }
  const delta = newValue - oldValue;
  const a = range(old, spec.figure, oldValue);
  const b = range(now, spec.figure, newValue);
  const overlap = a.min <= b.max && b.min <= a.max;
  const verdict: Verdict = overlap
    ? "noise"
    : (delta > 0) === spec.higherIsBetter
    ? "better"
    : "worse";
  return {
    figure: spec.figure,
    old: oldValue,
    new: newValue,
    delta,
    percent: oldValue === 0 ? null : 100 * delta / oldValue,
    verdict,
  };
}

function byId(
  document: ResultsDocument,
): Map<string, ConfigurationResult> {
  const map = new Map<string, ConfigurationResult>();
  for (const result of document.results) {
    if (!map.has(result.id)) map.set(result.id, result);
  }
  return map;
}

/** Compares two results files configuration by configuration. */
export function compareResults(
  oldDoc: ResultsDocument,
  newDoc: ResultsDocument,
): Comparison {
  const paramDifferences: ParamDifference[] = [];
  for (const name of COMPARED_PARAMS) {
    if (oldDoc.params[name] !== newDoc.params[name]) {
      paramDifferences.push({
        name,
        old: oldDoc.params[name],
        new: newDoc.params[name],
      });
    }
  }
  const olds = byId(oldDoc);
  const news = byId(newDoc);
  const ids = [...new Set([...olds.keys(), ...news.keys()])];
  const rows = ids.map((id): ComparisonRow => {
    const old = olds.get(id);
    const now = news.get(id);
    if (old == null || now == null) {
      return {
        id,
        presence: old == null ? "only in new" : "only in old",
        oldStatus: old?.status ?? null,
        newStatus: now?.status ?? null,
        statusVerdict: null,
        changes: [],
      };
    }
    const bothOk = old.status === "ok" && now.status === "ok";
    const step = SEVERITY[now.status] - SEVERITY[old.status];
    return {
      id,
      presence: "both",
      oldStatus: old.status,
      newStatus: now.status,
      statusVerdict: step < 0 ? "better" : step > 0 ? "worse" : null,
      changes: bothOk
        ? FIGURES.map((spec) => compareFigure(old, now, spec))
        : [],
    };
  });
  return { paramDifferences, rows };
}

const FIGURE_LABELS: Readonly<Record<ComparedFigure, string>> = {
  receiveSeconds: "receive (s)",
  deliveriesPerSecond: "deliveries/s",
  latencyP99Ms: "p99 latency (ms)",
};

/** A number with about four significant digits, thousands separated. */
function formatNumber(value: number): string {
  const magnitude = Math.abs(value);
  const digits = magnitude >= 1000
    ? 0
    : magnitude >= 100
    ? 1
    : magnitude >= 10
    ? 2
    : 3;
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function signed(text: string, value: number): string {
  return value > 0 ? `+${text}` : text;
}

function figureCells(change: FigureChange): string[] {
  const value = (v: number | null) => v == null ? "—" : formatNumber(v);
  return [
    FIGURE_LABELS[change.figure],
    value(change.old),
    value(change.new),
    change.delta == null
      ? "—"
      : signed(formatNumber(change.delta), change.delta),
    change.percent == null
      ? "—"
      : signed(`${change.percent.toFixed(1)}%`, change.percent),
    change.verdict ?? "—",
  ];
}

function rowLines(row: ComparisonRow): string[][] {
  if (row.presence !== "both") {
    return [[
      row.id,
      "",
      row.oldStatus ?? "—",
      row.newStatus ?? "—",
      "",
      "",
      row.presence,
    ]];
  }
  if (row.changes.length === 0) {
    return [[
      row.id,
      "status",
      row.oldStatus ?? "—",
      row.newStatus ?? "—",
      "",
      "",
      row.statusVerdict ?? `still ${row.newStatus}`,
    ]];
  }
  return row.changes.map((change, i) => [
    i === 0 ? row.id : "",
    ...figureCells(change),
  ]);
}

/**
 * Renders a comparison as a Markdown table (readable as plain text), with a
 * warning first when the suites' parameters differ.
 */
export function renderComparison(c: Comparison): string {
  const parts: string[] = [];
  if (c.paramDifferences.length > 0) {
    const list = c.paramDifferences
      .map((d) => `${d.name} ${String(d.old)} → ${String(d.new)}`)
      .join(", ");
    parts.push(
      `Warning: the suites' parameters differ (${list}); ` +
        "the figures are not directly comparable.\n",
    );
  }
  const header = [
    "Configuration",
    "Figure",
    "Old",
    "New",
    "Change",
    "Change %",
    "Verdict",
  ];
  const rows = c.rows.flatMap(rowLines);
  if (rows.length === 0) {
    parts.push("No configurations in either file.\n");
    return parts.join("\n");
  }
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => row[i].length))
  );
  const right = new Set([2, 3, 4, 5]);
  const line = (cells: string[]) =>
    `| ${
      cells.map((cell, i) =>
        right.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])
      ).join(" | ")
    } |`;
  const rule = `| ${
    widths.map((w, i) => right.has(i) ? "-".repeat(w - 1) + ":" : "-".repeat(w))
      .join(" | ")
  } |`;
  parts.push([line(header), rule, ...rows.map(line)].join("\n") + "\n");
  parts.push(
    "Medians over the runs.  noise: the old and new ranges over the runs " +
      "overlap.\n",
  );
  return parts.join("\n");
}

/** A results file that cannot be read or is not schema version 1. */
export class ResultsFileError extends Error {
  /** Creates the error; `message` names the file and the problem. */
  constructor(message: string) {
    super(message);
    this.name = "ResultsFileError";
  }
}

/**
 * Checks that parsed JSON has the shape of a schema-version-1 results file.
 * @throws {ResultsFileError} Naming `source` and what is wrong.
 */
export function validateResultsDocument(
  value: unknown,
  source: string,
): ResultsDocument {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v != null && !Array.isArray(v);
  if (!isObject(value)) {
    throw new ResultsFileError(`${source}: not a results file (no object)`);
  }
  if (value.schemaVersion !== 1) {
    throw new ResultsFileError(
      `${source}: unsupported schemaVersion ${
        JSON.stringify(value.schemaVersion)
      } (expected 1)`,
    );
  }
  if (!isObject(value.params)) {
    throw new ResultsFileError(`${source}: missing "params"`);
  }
  if (!Array.isArray(value.results)) {
    throw new ResultsFileError(`${source}: missing "results" array`);
  }
  for (const [i, result] of value.results.entries()) {
    if (
      !isObject(result) || typeof result.id !== "string" ||
      typeof result.status !== "string" || !(result.status in SEVERITY)
    ) {
      throw new ResultsFileError(
        `${source}: results[${i}] has no valid "id" and "status"`,
      );
    }
  }
  return value as unknown as ResultsDocument;
}

/**
 * Reads and validates a results file.
 * @throws {ResultsFileError} If it is missing, unreadable, not JSON, or not
 *   schema version 1.
 */
export async function readResultsDocument(
  path: string,
): Promise<ResultsDocument> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    const cause = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new ResultsFileError(`${path}: cannot read (${cause})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ResultsFileError(
      `${path}: invalid JSON (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
  return validateResultsDocument(parsed, path);
}

const USAGE = "Usage: deno task compare OLD.json NEW.json";

/** The command line: prints the comparison; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  if (args.includes("-h") || args.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  if (args.length !== 2) {
    console.error(`${USAGE}\n(expected two results files, got ${args.length})`);
    return 2;
  }
  try {
    const [oldDoc, newDoc] = await Promise.all(args.map(readResultsDocument));
    console.log(renderComparison(compareResults(oldDoc, newDoc)).trimEnd());
    return 0;
  } catch (error) {
    if (error instanceof ResultsFileError) {
      console.error(`compare: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
