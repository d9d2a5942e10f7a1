/**
 * The one parser of every command's options, derived from its table:
 * command-line flags, then environment variables, then the chosen preset,
 * then the defaults.  Every bad value, negative numbers included, gets the
 * kind's message naming the flag, what it takes and what was given.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { errorMessage } from "../results/error_message.ts";
import { UsageError } from "./kinds.ts";
import type { CommandTable, ParamSpec, ParamValues } from "./spec.ts";

/** What {@link parseCommand} found. */
export interface Parsed<V> {
  /** Every parameter's value. */
  readonly values: V;
  /** Names of the parameters set by a flag or an environment variable. */
  readonly given: ReadonlySet<string>;
  /** What the warning rules found: runs that measure less than asked. */
  readonly warnings: readonly string[];
}

/** Whether a parameter's value differs from its default. */
export function isActive(spec: ParamSpec, value: unknown): boolean {
  return JSON.stringify(value ?? null) !== JSON.stringify(spec.default ?? null);
}

/**
 * Joins a flag that takes a value with a following value that starts with a
 * dash (`--rate -1` → `--rate=-1`), so that the kind, not the argument
 * parser's "ambiguous" complaint, says what is wrong with it.
 */
function joinDashValues(
  args: readonly string[],
  specs: readonly ParamSpec[],
): string[] {
  const takesValue = new Set(
    specs.filter((s) => s.shape !== "switch").map((s) => `--${s.flag}`),
  );
  const known = new Set(specs.map((s) => `--${s.flag}`));
  for (const spec of specs) if (spec.short) known.add(`-${spec.short}`);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    if (
      takesValue.has(args[i]) && next != null && next.startsWith("-") &&
      !known.has(next.split("=")[0])
    ) {
      out.push(`${args[i]}=${next}`);
      i++;
    } else {
      out.push(args[i]);
    }
  }
  return out;
}

/** Parses one raw value of a parameter; lists are split on commas. */
function parseRaw(spec: ParamSpec, raw: string | true, label: string): unknown {
  if (spec.shape === "switch") {
    if (raw === true) return !spec.negated;
    throw new UsageError(`${label} takes no value, got ${JSON.stringify(raw)}`);
  }
  if (raw === true) throw new UsageError(`${label} needs a value`);
  if (spec.shape !== "list") return spec.kind!.parse(raw, label);
  const items = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (items.length < 1) {
    throw new UsageError(
      `${label} needs at least one ${spec.item}, e.g. ${label}=${spec.example}`,
    );
  }
  const values = [
    ...new Set(items.map((item) => spec.kind!.parse(item, label))),
  ];
  return spec.sorted ? (values as number[]).sort((a, b) => a - b) : values;
}

/**
 * Parses a command's arguments and environment.
 * @param table The command's options.
 * @param args Command-line arguments (without the program name).
 * @param env Environment variables.
 * @throws {UsageError} On any bad input.
 */
export function parseCommand<P extends readonly ParamSpec[]>(
  table: CommandTable<P>,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Parsed<ParamValues<P>> {
  const specs: readonly ParamSpec[] = table.params;
  let flags: Record<string, string | boolean | (string | boolean)[]>;
  try {
    ({ values: flags } = parseArgs({
      args: joinDashValues(args, specs),
      options: Object.fromEntries(specs.map((spec) => [spec.flag, {
        type: spec.shape === "switch" ? "boolean" : "string",
        ...(spec.short ? { short: spec.short } : {}),
        ...(spec.shape === "repeat" ? { multiple: true } : {}),
      }])),
      strict: true,
      allowPositionals: false,
    }) as { values: typeof flags });
  } catch (error) {
    throw new UsageError(
      `${errorMessage(error)}; run with --help for the options`,
    );
  }
  const preset = presetOf(table, flags);
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const spec of specs) {
    const flag = flags[spec.flag];
    const fromEnv = spec.env == null ? undefined : env[spec.env];
    if (flag != null) {
      given.add(spec.name);
      values[spec.name] = spec.shape === "repeat"
        ? (flag as string[]).map((raw) => parseRaw(spec, raw, `--${spec.flag}`))
        : parseRaw(spec, flag as string | true, `--${spec.flag}`);
    } else if (fromEnv != null) {
      given.add(spec.name);
      values[spec.name] = parseRaw(spec, fromEnv, spec.env!);
    } else if (preset?.settings[spec.name] != null) {
      values[spec.name] = parseRaw(
        spec,
        preset.settings[spec.name],
        `--${spec.flag}`,
      );
    } else {
      values[spec.name] = spec.default;
    }
  }
  for (const spec of specs) {
    const needs = spec.requires;
    if (needs == null || !given.has(spec.name)) continue;
    const active = needs.anyOf.some((name) =>
      isActive(specs.find((s) => s.name === name)!, values[name])
    );
    if (!active) {
      throw new UsageError(
        `--${spec.flag} applies to ${needs.what}; ${needs.fix}`,
      );
    }
  }
  const typed = values as ParamValues<P>;
  const warnings: string[] = [];
  for (const rule of table.rules) {
    const problem = rule.check(typed);
    if (problem == null) continue;
    if (rule.warning) warnings.push(problem);
    else throw new UsageError(problem);
  }
  return { values: typed, given, warnings };
}

function presetOf(
  table: CommandTable<readonly ParamSpec[]>,
  flags: Record<string, unknown>,
) {
  const presets = table.presets;
  if (presets == null) return undefined;
  const spec = table.params.find((s) => s.name === presets.param)!;
  const name = flags[spec.flag];
  if (name == null) return undefined;
  const preset = presets.byName[name as string];
  if (preset == null) {
    throw new UsageError(
      `unknown ${spec.flag} "${name}"; known ${spec.flag}s: ${
        Object.keys(presets.byName).join(", ")
      }`,
    );
  }
  return preset;
}
