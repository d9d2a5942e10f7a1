/**
 * What a parameter declaration says: its name, flag, environment variable,
 * kind of value, default, help line, whether it changes what is measured,
 * and where the results record it.  The builders ({@link value},
 * {@link optional}, {@link list}, {@link toggle}, {@link repeated}) keep
 * each declaration's value type, so the parsed values are typed from the
 * table alone (see {@link ParamValues}).
 *
 * @module
 */
import type { Kind } from "./kinds.ts";

/** The commands whose options the table declares. */
export type Command =
  | "bench"
  | "dequeue-cost"
  | "advise"
  | "fresh-check"
  | "agent"
  | "image";

/**
 * What a parameter changes:
 * - `measurement`: what a figure measures; results that differ in it are
 *   not comparable (`deno task compare` names the difference) and not
 *   reused by `--resume`;
 * - `runs`: how often it is measured; `--resume` needs it equal, a
 *   comparison does not;
 * - `nothing`: which rows run, where files go, or how the output looks.
 */
export type Affects = "measurement" | "runs" | "nothing";

/** Where the results' `params` record a parameter. */
export interface RecordRule {
  /** Dotted path in `SuiteParams`, e.g. `inbox.latency`. */
  readonly path: string;
  /**
   * When it is recorded: `always` (the default), `set` (only when it has
   * a value), or `not-default` (only when it differs from its default, so
   * that files made before the parameter existed read the same).
   */
  readonly when?: "always" | "set" | "not-default";
  /**
   * A list swept within the suite: its first value is recorded at `path`
   * and, when any swept list has more than one value, every swept list
   * goes whole under `axes`.
   */
  readonly axis?: boolean;
}

/** An object of the results' record, e.g. `inbox` or `load.maxRate`. */
export interface RecordGroup {
  /** Its dotted path. */
  readonly path: string;
  /** The parameters whose activity makes it appear; default: its members. */
  readonly gate?: readonly string[];
  /** Members that are not parameters, recorded with these values. */
  readonly fixed?: Readonly<Record<string, unknown>>;
}

/** A condition on another parameter for this one to apply. */
export interface Requirement {
  /** Names of parameters of which at least one must be active. */
  readonly anyOf: readonly string[];
  /** What the parameter applies to, e.g. `rate runs`. */
  readonly what: string;
  /** The fix, e.g. `add --rate R or --find-max-rate`. */
  readonly fix: string;
}

/** How a parameter is given on the command line. */
export type Shape = "value" | "list" | "switch" | "repeat";

/** Parts common to every declaration. */
export interface CommonSpec<N extends string> {
  /** Its key in the parsed values, e.g. `total`. */
  readonly name: N;
  /** Its flag without the dashes, e.g. `total` for `--total`. */
  readonly flag: string;
  /** A one-letter alias, e.g. `h`. */
  readonly short?: string;
  /** The environment variable that sets it when the flag is absent. */
  readonly env?: string;
  /** The help line (one sentence; `--help` wraps it). */
  readonly help: string;
  /** The section of `--help` and the docs it belongs to. */
  readonly section: string;
  /** What it changes. */
  readonly affects: Affects;
  /** Where the results record it; absent when they do not. */
  readonly record?: RecordRule;
  /** Another parameter it needs. */
  readonly requires?: Requirement;
}

/** One declared parameter whose parsed value has type `T`. */
export interface ParamSpec<N extends string = string, T = unknown>
  extends CommonSpec<N> {
  /** How it is given. */
  readonly shape: Shape;
  /** How each raw value is parsed (absent for switches). */
  // deno-lint-ignore no-explicit-any
  readonly kind?: Kind<any>;
  /** Its value when nothing sets it. */
  readonly default: T;
  /** For lists: what one item is called, e.g. `level`. */
  readonly item?: string;
  /** For lists: an example, e.g. `1,4`. */
  readonly example?: string;
  /** For lists: sort the values ascending. */
  readonly sorted?: boolean;
  /** For switches: the flag turns the value off (`--no-baseline`). */
  readonly negated?: boolean;
}

/** A parameter that always has a value. */
export function value<const N extends string, T>(
  spec: CommonSpec<N> & {
    readonly kind: Kind<T>;
    readonly default: NoInfer<T>;
  },
): ParamSpec<N, T> {
  return { ...spec, shape: "value" };
}

/** A parameter that is `null` unless set. */
export function optional<const N extends string, T>(
  spec: CommonSpec<N> & { readonly kind: Kind<T> },
): ParamSpec<N, T | null> {
  return { ...spec, shape: "value", default: null };
}

/** A comma-separated list; repeated values count once. */
export function list<const N extends string, T>(
  spec: CommonSpec<N> & {
    readonly kind: Kind<T>;
    readonly default: readonly NoInfer<T>[];
    readonly item: string;
    readonly example: string;
    readonly sorted?: boolean;
  },
): ParamSpec<N, readonly T[]> {
  return { ...spec, shape: "list" };
}

/** A flag without a value (`--resume`), or one that turns a default off. */
export function toggle<const N extends string>(
  spec: CommonSpec<N> & {
    readonly default: boolean;
    readonly negated?: boolean;
  },
): ParamSpec<N, boolean> {
  return { ...spec, shape: "switch" };
}

/**
 * `--help` (`-h`), which every command takes, in the section of its help
 * where the command lists it.
 */
export function helpToggle(section: string): ParamSpec<"help", boolean> {
  return toggle({
    name: "help",
    flag: "help",
    short: "h",
    default: false,
    help: "show this help",
    section,
    affects: "nothing",
  });
}

/** A flag that may be given several times (`--driver-module`). */
export function repeated<const N extends string>(
  spec: CommonSpec<N> & { readonly kind: Kind<string> },
): ParamSpec<N, readonly string[]> {
  return { ...spec, shape: "repeat", default: [] };
}

/** A check across parameters, run after each is parsed. */
export interface Rule<V> {
  /** Returns the problem and its fix, or `null` when the values are fine. */
  readonly check: (values: V) => string | null;
  /**
   * A combination that runs but measures less than it seems to: the
   * problem is a warning for the user (`Parsed.warnings`), not an error.
   */
  readonly warning?: boolean;
}

/** A command's options: its declarations and the text around them. */
export interface CommandTable<P extends readonly ParamSpec[]> {
  /** The command, e.g. `bench`. */
  readonly command: Command;
  /** How it is run, e.g. `deno task bench [options]`. */
  readonly usage: string;
  /** What it does, for the top of `--help`. */
  readonly summary: string;
  /** The sections of `--help`, in order, with an optional note under each title. */
  readonly sections: readonly {
    readonly title: string;
    readonly note?: string;
  }[];
  /** The parameters, in `--help` order. */
  readonly params: P;
  /** Checks across parameters. */
  readonly rules: readonly Rule<ParamValues<P>>[];
  /** Text after the options in `--help`. */
  readonly footer: string;
  /**
   * Objects of the results' record that appear only when one of their gate
   * parameters differs from its default (by default, any member does);
   * `fixed` members are recorded beside the parameters.
   */
  readonly groups?: readonly RecordGroup[];
  /**
   * Named presets: the parameter that picks one (e.g. `scenario`) and,
   * by name, the raw values each sets, keyed by parameter name.
   */
  readonly presets?: {
    readonly param: string;
    readonly byName: Readonly<
      Record<string, {
        readonly description: string;
        readonly settings: Readonly<Record<string, string | true>>;
      }>
    >;
  };
}

/** The parsed values of a table: one typed key per declaration. */
export type ParamValues<Table extends readonly ParamSpec[]> = {
  readonly [S in Table[number] as S["name"]]: S extends
    ParamSpec<string, infer T> ? T
    : never;
};

/**
 * The environment variables a command reads (`TOTAL`, `RECIPIENTS`, …), in
 * `--help` order: what its recorded command line keeps of the environment.
 */
export function envNames(
  table: { readonly params: readonly ParamSpec[] },
): string[] {
  return table.params.flatMap((spec) => spec.env == null ? [] : [spec.env]);
}
