/**
 * The kinds of value a parameter takes: how a raw string from a flag, an
 * environment variable or a scenario becomes a typed value, and the one
 * message every bad value gets (naming where it came from, what was
 * expected, and what was given).  The parameter table (`table.ts`) picks a
 * kind per parameter; nothing else parses values.
 *
 * @module
 */
import type { LatencyRange } from "../results/mod.ts";

/** Bad input: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  /** Creates a usage error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** How one raw value becomes a typed value. */
export interface Kind<T> {
  /** The placeholder in `--help`, e.g. `N` or `S`. */
  readonly placeholder: string;
  /** The unit the value is in, for the docs (`""` when it has none). */
  readonly unit: string;
  /**
   * Parses one raw value.
   * @param raw The text as given.
   * @param label Where it came from: `--total` or `TOTAL`.
   * @throws {UsageError} Naming the label, what is expected and the value.
   */
  parse(raw: string, label: string): T;
  /** The value as a user would type it, for `--help` and the docs. */
  format(value: T): string;
}

/** A whole number from `min` to `max`. */
export function count(
  min: number,
  max: number,
  unit = "",
  placeholder = "N",
): Kind<number> {
  return {
    placeholder,
    unit,
    parse(raw, label) {
      const text = raw.trim();
      if (!/^\d+$/.test(text)) {
        throw new UsageError(
          `${label} must be a whole number, got ${JSON.stringify(raw)}; ` +
            `for example ${label}=${min === 0 ? 1 : min * 10}`,
        );
      }
      const value = Number(text);
      if (value < min || value > max) {
        throw new UsageError(
          `${label} must be between ${min} and ${max}, got ${text}`,
        );
      }
      return value;
    },
    format: String,
  };
}

/** A positive number of seconds, `30` or `30s`, at most a week. */
export function seconds(): Kind<number> {
  return {
    placeholder: "S",
    unit: "s",
    parse(raw, label) {
      const value = Number(raw.trim().replace(/s$/, ""));
      if (!Number.isFinite(value) || value <= 0 || value > 7 * 24 * 3600) {
        throw new UsageError(
          `${label} must be a positive number of seconds, got ${
            JSON.stringify(raw)
          }`,
        );
      }
      return value;
    },
    format: String,
  };
}

/** A share from 0 to 1, or a percentage like `2%`. */
export function share(allowZero = true): Kind<number> {
  return {
    placeholder: "F",
    unit: "share",
    parse(raw, label) {
      const text = raw.trim();
      const value = text.endsWith("%")
        ? Number(text.slice(0, -1)) / 100
        : Number(text);
      if (
        text === "" || !Number.isFinite(value) || value < 0 || value > 1 ||
        (!allowZero && value === 0)
      ) {
        throw new UsageError(
          `${label} must be a share ${
            allowZero ? "between 0 and 1" : "above 0 and at most 1"
          } (or a percentage like 2%), got ${JSON.stringify(raw)}`,
        );
      }
      return value;
    },
    format: String,
  };
}

/** A rate in activities per second above 0, `8` or `8/s`. */
export function rate(max: number): Kind<number> {
  return {
    placeholder: "R",
    unit: "activities/s",
    parse(raw, label) {
      const value = Number(raw.trim().replace(/\/s$/, ""));
      if (!Number.isFinite(value) || value <= 0 || value > max) {
        throw new UsageError(
          `${label} must be a rate in activities per second above 0 and up ` +
            `to ${max}, like 8 or 0.5, got ${JSON.stringify(raw)}`,
        );
      }
      return value;
    },
    format: String,
  };
}

/** A number above 0 and at most `max`, like `2` or `0.5`. */
export function positive(
  max: number,
  unit: string,
  placeholder = "X",
): Kind<number> {
  return {
    placeholder,
    unit,
    parse(raw, label) {
      const value = Number(raw.trim());
      if (
        raw.trim() === "" || !Number.isFinite(value) || value <= 0 ||
        value > max
      ) {
        throw new UsageError(
          `${label} must be a number above 0 and at most ${max} (${unit}), ` +
            `like 2 or 0.5, got ${JSON.stringify(raw)}`,
        );
      }
      return value;
    },
    format: String,
  };
}

/** A number of milliseconds from 0 to `max`, like `5`, `0.5` or `5ms`. */
export function milliseconds(max: number): Kind<number> {
  return {
    placeholder: "MS",
    unit: "ms",
    parse(raw, label) {
      const text = raw.trim().replace(/ms$/, "");
      const value = Number(text);
      if (
        text === "" || !Number.isFinite(value) || value < 0 || value > max
      ) {
        throw new UsageError(
          `${label} must be a number of milliseconds from 0 to ${max}, like ` +
            `5 or 0.5, got ${JSON.stringify(raw)}`,
        );
      }
      return value;
    },
    format: String,
  };
}

/** A duration like `5s`, `500ms` or `5` (seconds), in milliseconds. */
export function durationMs(): Kind<number> {
  return {
    placeholder: "T",
    unit: "ms",
    parse(raw, label) {
      const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(raw.trim());
      const value = match == null
        ? NaN
        : Number(match[1]) * (match[2] === "ms" ? 1 : 1000);
      if (!(value > 0)) {
        throw new UsageError(
          `${label} must be a duration like 5s or 500ms, got ${
            JSON.stringify(raw)
          }`,
        );
      }
      return value;
    },
    format: (ms) => ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`,
  };
}

/** One of a fixed set of words (or numbers). */
export function choice<T extends string | number>(
  values: readonly T[],
  placeholder: string,
): Kind<T> {
  const words = values.map(String);
  const listed = words.length < 3
    ? words.join(" or ")
    : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
  return {
    placeholder,
    unit: "",
    parse(raw, label) {
      const index = words.indexOf(raw.trim());
      if (index < 0) {
        throw new UsageError(
          `${label} must be ${listed}, got ${JSON.stringify(raw)}`,
        );
      }
      return values[index];
    },
    format: String,
  };
}

/** A non-empty word or path. */
export function text(placeholder: string): Kind<string> {
  return {
    placeholder,
    unit: "",
    parse(raw, label) {
      if (raw.trim() === "") {
        throw new UsageError(`${label} needs a value, got an empty one`);
      }
      return raw;
    },
    format: String,
  };
}

/**
 * An answer delay: `100ms`, `0.2s`, or a uniform range `50-300ms` (at most
 * ten minutes).
 */
export function latency(): Kind<LatencyRange> {
  return {
    placeholder: "T",
    unit: "ms",
    parse(raw, label) {
      const range = parseLatency(raw);
      if (range == null) {
        throw new UsageError(
          `${label} must be a delay like 100ms or 0.2s, or a range like ` +
            `50-300ms, got ${JSON.stringify(raw)}`,
        );
      }
      return range;
    },
    format: (range) =>
      range.minMs === range.maxMs
        ? `${range.minMs}ms`
        : `${range.minMs}-${range.maxMs}ms`,
  };
}

/**
 * Parses `100ms`, `0.2s`, `50-300ms`, `50ms-1s`.
 * @returns `null` when the text is not such a delay.
 */
export function parseLatency(text: string): LatencyRange | null {
  const parts = text.trim().split("-");
  if (parts.length > 2) return null;
  const unit = /(ms|s)$/.exec(parts[parts.length - 1])?.[1] ?? "ms";
  const toMs = (part: string): number => {
    const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(part.trim());
    if (match == null) return NaN;
    const value = Number(match[1]);
    return (match[2] ?? unit) === "s" ? value * 1000 : value;
  };
  const minMs = toMs(parts[0]);
  const maxMs = parts.length === 2 ? toMs(parts[1]) : minMs;
  if (
    !Number.isFinite(minMs) || !Number.isFinite(maxMs) || maxMs < minMs ||
    maxMs > 600_000
  ) {
    return null;
  }
  return { minMs, maxMs };
}

/**
 * An address to listen on or reach, `HOST:PORT` (`[ADDR]:PORT` for IPv6);
 * the port from 1 to 65535.
 */
export function hostPort(): Kind<string> {
  return {
    placeholder: "HOST:PORT",
    unit: "",
    parse(raw, label) {
      if (parseHostPort(raw) == null) {
        throw new UsageError(
          `${label} expects HOST:PORT (e.g. 0.0.0.0:7070 or [::1]:7070), ` +
            `got ${JSON.stringify(raw)}`,
        );
      }
      return raw;
    },
    format: String,
  };
}

/** The host and port of `HOST:PORT`, or `null` when it is none. */
export function parseHostPort(
  raw: string,
): { readonly hostname: string; readonly port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(raw.trim());
  if (match == null) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { hostname: match[1].replace(/^\[|\]$/g, ""), port };
}

/**
 * Where agents are: `HOST:PORT,HOST:PORT…`, `swarm:SERVICE` for the
 * replicas of a Docker Swarm service, or `swarm` for the stack the bench
 * deploys itself.
 */
export type AgentsSpec =
  | { readonly addresses: readonly string[] }
  | { readonly swarmService: string }
  | { readonly ownSwarm: true };

/** The agents of `--agents`, or `null` when the text names none. */
export function parseAgentsSpec(raw: string): AgentsSpec | null {
  if (raw.trim() === "swarm") return { ownSwarm: true };
  const swarm = /^swarm:([A-Za-z0-9][A-Za-z0-9_.-]*)$/.exec(raw.trim());
  if (swarm != null) return { swarmService: swarm[1] };
  const addresses = raw.split(",").map((part) => part.trim());
  if (addresses.some((a) => parseHostPort(a) == null)) return null;
  return { addresses };
}

/**
 * A list of agents' addresses, or `swarm:SERVICE` (kept as typed; read it
 * with {@link parseAgentsSpec}).
 */
export function agents(): Kind<string> {
  return {
    placeholder: "LIST",
    unit: "",
    parse(raw, label) {
      if (parseAgentsSpec(raw) == null) {
        throw new UsageError(
          `${label} expects HOST:PORT,HOST:PORT… (agents started with ` +
            "deno task agent), swarm:SERVICE or swarm, got " +
            JSON.stringify(raw),
        );
      }
      return raw.trim();
    },
    format: String,
  };
}
