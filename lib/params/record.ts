/**
 * What the results record of a command's parameters, and which of them make
 * two results different measurements: the results' `params` object, the
 * comparison's parameter differences and `--resume`'s rule, all derived
 * from the table's `record` and `affects` declarations.
 *
 * @module
 */
import { isActive } from "./parse.ts";
import type {
  CommandTable,
  ParamSpec,
  ParamValues,
  RecordGroup,
} from "./spec.ts";

type AnyTable = CommandTable<readonly ParamSpec[]>;
type Values = Readonly<Record<string, unknown>>;

function groupOf(table: AnyTable, path: string): RecordGroup | undefined {
  return (table.groups ?? [])
    .filter((g) => path.startsWith(`${g.path}.`))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

/** Whether a record group appears for these values (its parents too). */
export function groupPresent(
  table: AnyTable,
  values: Values,
  path: string,
): boolean {
  const group = (table.groups ?? []).find((g) => g.path === path);
  if (group == null) return true;
  const parent = groupOf(table, path);
  if (parent != null && !groupPresent(table, values, parent.path)) {
    return false;
  }
  const gate = group.gate ?? table.params
    .filter((s) => s.record?.path.startsWith(`${path}.`))
    .map((s) => s.name);
  return gate.some((name) =>
    isActive(table.params.find((s) => s.name === name)!, values[name])
  );
}

function setPath(target: Record<string, unknown>, path: string, v: unknown) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node = (node[key] ??= {}) as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = v;
}

/**
 * The results' `params` for these values: each recorded parameter at its
 * path, groups only when present, swept lists under `axes` when one has
 * more than one value.
 */
export function recordParams<P extends readonly ParamSpec[]>(
  table: CommandTable<P>,
  values: ParamValues<P>,
): Record<string, unknown> {
  const t = table as AnyTable;
  const v = values as Values;
  const out: Record<string, unknown> = {};
  for (const spec of t.params) {
    const rule = spec.record;
    if (rule == null) continue;
    const group = groupOf(t, rule.path);
    if (group != null && !groupPresent(t, v, group.path)) continue;
    const value = v[spec.name];
    if (rule.when === "set" && value == null) continue;
    if (rule.when === "not-default" && !isActive(spec, value)) continue;
    setPath(out, rule.path, rule.axis ? (value as unknown[])[0] : value);
  }
  for (const group of t.groups ?? []) {
    if (group.fixed == null || !groupPresent(t, v, group.path)) continue;
    for (const [key, fixed] of Object.entries(group.fixed)) {
      setPath(out, `${group.path}.${key}`, fixed);
    }
  }
  // An axis recorded only when not at its default stays out of `axes` at
  // its default too, so that records made before it existed read the same.
  const axes = t.params.filter((s) =>
    s.record?.axis &&
    (s.record.when !== "not-default" || isActive(s, v[s.name]))
  );
  if (axes.some((s) => (v[s.name] as unknown[]).length > 1)) {
    out.axes = Object.fromEntries(
      axes.map((s) => [s.record!.path, v[s.name]]),
    );
  }
  return out;
}

/**
 * A group's record with every member at its default, as it reads when the
 * group is present: the instant inbox, for example.
 */
export function groupDefaults(
  table: AnyTable,
  path: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of table.params) {
    const rule = spec.record;
    if (rule == null || !rule.path.startsWith(`${path}.`)) continue;
    if (rule.when === "set" && spec.default == null) continue;
    setPath(out, rule.path.slice(path.length + 1), spec.default);
  }
  const group = (table.groups ?? []).find((g) => g.path === path);
  return { ...out, ...group?.fixed };
}

/** The top-level keys of the record whose parameters `affects` lists. */
function keysAffecting(
  table: AnyTable,
  affects: readonly ParamSpec["affects"][],
): string[] {
  const keys: string[] = [];
  for (const spec of table.params) {
    if (spec.record == null || !affects.includes(spec.affects)) continue;
    keys.push(spec.record.path.split(".")[0]);
    if (spec.record.axis) keys.push("axes");
  }
  return [...new Set(keys)];
}

/**
 * What an absent top-level key of an older record stands for: a single
 * parameter's default, or `null` for a group.
 */
function recordedDefault(table: AnyTable, key: string): unknown {
  const spec = table.params.find((s) => s.record?.path === key);
  if (spec == null) return null;
  return (spec.record!.axis ? (spec.default as unknown[])[0] : spec.default) ??
    null;
}

/** A recorded parameter that differs between two records. */
export interface RecordDifference {
  /** Its top-level key, e.g. `inbox`. */
  readonly name: string;
  /** Its value in the first record (or what its absence stands for). */
  readonly old: unknown;
  /** Its value in the second record. */
  readonly new: unknown;
}

function differences(
  table: AnyTable,
  keys: readonly string[],
  a: Values,
  b: Values,
): RecordDifference[] {
  const out: RecordDifference[] = [];
  for (const key of keys) {
    const old = a[key] ?? recordedDefault(table, key);
    const now = b[key] ?? recordedDefault(table, key);
    if (JSON.stringify(old) !== JSON.stringify(now)) {
      out.push({ name: key, old, new: now });
    }
  }
  return out;
}

/**
 * The parameters that make two records different measurements (those
 * declared `affects: "measurement"`), with their values.
 */
export function measurementDifferences(
  table: AnyTable,
  a: object,
  b: object,
): RecordDifference[] {
  return differences(
    table,
    keysAffecting(table, ["measurement"]),
    a as Values,
    b as Values,
  );
}

/**
 * Whether a result of record `a` may stand for one of record `b` in
 * `--resume`: the same measurement, measured as many times.
 */
export function sameMeasurement(
  table: AnyTable,
  a: object,
  b: object,
): boolean {
  const keys = keysAffecting(table, ["measurement", "runs"]);
  return differences(table, keys, a as Values, b as Values).length === 0;
}
