/**
 * The machine and software a suite runs on, read by the bench itself (CPU,
 * memory, OS, runtime and exact package versions from `deno.lock`).
 * `lib/report/environment_section.ts` renders it for the report.
 *
 * @module
 */
import { cpus } from "node:os";
import {
  type Commit,
  type Environment,
  type SuiteParams,
  UNKNOWN,
} from "../results/mod.ts";

/** Packages whose versions every results file records. */
const ALWAYS_RECORDED = ["@fedify/fedify", "@fedify/vocab"] as const;

/** Options of {@link collectEnvironment}. */
export interface CollectEnvironmentOptions {
  /** The suite's parameters (for the sender keys and fanout mode). */
  readonly params: SuiteParams;
  /** npm package names whose exact versions to record. */
  readonly packages: readonly string[];
  /** Queue server versions, by service name. */
  readonly servers: Readonly<Record<string, string>>;
  /**
   * This project's commit (`readCommitReading()` of `provenance.ts`, read
   * once when the suite starts: the results it writes may dirty the tree);
   * not recorded when absent.
   */
  readonly commit?: Commit | null;
  /** Why {@link commit} is `null`; recorded beside it. */
  readonly noCommitReason?: string;
  /** The command line as run; not recorded when absent. */
  readonly command?: readonly string[] | null;
}

/**
 * Reads the machine and software the suite runs on.  Never throws: whatever
 * cannot be read (a missing file, a denied permission, another OS) becomes
 * `"unknown"`, `null`, or `0` for the memory size.
 */
export async function collectEnvironment(
  options: CollectEnvironmentOptions,
): Promise<Environment> {
  const [cpuinfo, meminfo, osRelease, maxFreq, lock, config] = await Promise
    .all([
      readText("/proc/cpuinfo"),
      readText("/proc/meminfo"),
      readText("/etc/os-release"),
      readText("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"),
      readJson(new URL("../../deno.lock", import.meta.url)),
      readJson(new URL("../../deno.json", import.meta.url)),
    ]);
  const cpu = parseCpuInfo(cpuinfo ?? "");
  const maxKhz = maxFreq == null ? NaN : Number(maxFreq.trim());
  const { params } = options;
  return {
    cpu: {
      model: cpu.model ?? nodeCpuModel() ?? UNKNOWN,
      cores: logicalCores() ?? cpu.processors ?? 0,
      mhz: maxKhz > 0 ? Math.round(maxKhz / 1000) : cpu.mhz,
    },
    memoryBytes: parseMemTotal(meminfo ?? "") ?? systemMemory() ?? 0,
    os: {
      name: parseOsRelease(osRelease ?? "") ?? Deno.build.os,
      kernel: attempt(() => Deno.osRelease()) ?? UNKNOWN,
      arch: Deno.build.arch,
    },
    runtime: {
      deno: Deno.version.deno,
      v8: Deno.version.v8,
      typescript: Deno.version.typescript,
    },
    packages: resolvePackageVersions(
      [...ALWAYS_RECORDED, ...options.packages],
      lock,
      config,
    ),
    servers: { ...options.servers },
    senderKeys: `RSA-${params.rsaBits} (RSASSA-PKCS1-v1_5, HTTP Signatures)` +
      " + Ed25519 (Object Integrity Proofs)",
    fanout: params.fanout,
    ...(options.commit === undefined ? {} : { commit: options.commit }),
    ...(options.commit === null && options.noCommitReason != null
      ? { noCommitReason: options.noCommitReason }
      : {}),
    ...(options.command === undefined ? {} : { command: options.command }),
  };
}

/** What {@link parseCpuInfo} found in `/proc/cpuinfo`. */
export interface CpuInfo {
  /** The first `model name`; `null` if none. */
  readonly model: string | null;
  /** The number of `processor` entries; `null` if none. */
  readonly processors: number | null;
  /** The first `cpu MHz`, rounded; `null` if none. */
  readonly mhz: number | null;
}

/** Parses the text of Linux's `/proc/cpuinfo`. */
export function parseCpuInfo(text: string): CpuInfo {
  let model: string | null = null;
  let mhz: number | null = null;
  let processors = 0;
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key === "processor") processors++;
    else if (key === "model name" && model == null && value !== "") {
      model = value.replace(/\s+/g, " ");
    } else if (key === "cpu MHz" && mhz == null) {
      const parsed = Number(value);
      if (value !== "" && Number.isFinite(parsed)) mhz = Math.round(parsed);
    }
  }
  return { model, processors: processors > 0 ? processors : null, mhz };
}

/** `MemTotal` of Linux's `/proc/meminfo` in bytes; `null` if absent. */
export function parseMemTotal(text: string): number | null {
  const match = /^MemTotal:\s*(\d+)\s*kB/m.exec(text);
  return match == null ? null : Number(match[1]) * 1024;
}

/**
 * The OS name from the text of `/etc/os-release`: `PRETTY_NAME`, else `NAME`
 * and `VERSION`; `null` if neither is there.
 */
export function parseOsRelease(text: string): string | null {
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match == null) continue;
    let value = match[2].trim();
    if (/^(["']).*\1$/.test(value)) {
      value = value.slice(1, -1).replace(/\\(["'\\$`])/g, "$1");
    }
    fields.set(match[1], value);
  }
  const pretty = fields.get("PRETTY_NAME");
  if (pretty) return pretty;
  const name = fields.get("NAME");
  if (!name) return null;
  const version = fields.get("VERSION");
  return version ? `${name} ${version}` : name;
}

/**
 * Resolves npm package names to the exact versions in a parsed `deno.lock`
 * (format 3 to 5): the version the import map's specifier resolved to, else
 * every version of the package in the lock's `npm` section (comma-separated
 * when there are several, as with transitive dependencies), else the version
 * written in `deno.json`'s import map, else `"unknown"`.  Names are
 * deduplicated and keep their order.
 *
 * @param names npm package names, e.g. `@fedify/redis`.
 * @param lock The parsed `deno.lock`, or anything else when unavailable.
 * @param config The parsed `deno.json`, or anything else when unavailable.
 */
export function resolvePackageVersions(
  names: readonly string[],
  lock: unknown,
  config: unknown,
): Record<string, string> {
  const section = isRecord(lock) && isRecord(lock.packages)
    ? lock.packages
    : lock;
  const specifiers = isRecord(section) && isRecord(section.specifiers)
    ? section.specifiers
    : {};
  const npm = isRecord(section) && isRecord(section.npm) ? section.npm : {};
  const imports = isRecord(config) && isRecord(config.imports)
    ? config.imports
    : {};
  const inLock = new Map<string, Set<string>>();
  for (const key of Object.keys(npm)) {
    const parsed = splitNameVersion(key);
    if (parsed == null) continue;
    const version = stripPeers(parsed.version);
    const versions = inLock.get(parsed.name) ?? new Set();
    versions.add(version);
    inLock.set(parsed.name, versions);
  }
  const result: Record<string, string> = {};
  for (const name of names) {
    if (Object.hasOwn(result, name)) continue;
    const mapped = Object.values(imports).filter((value): value is string =>
      typeof value === "string" && npmSpecifierName(value) === name
    );
    const resolved = mapped
      .map((specifier) => specifiers[withoutSubpath(specifier)])
      .filter((value): value is string => typeof value === "string")
      .map(stripPeers);
    const locked = [...(inLock.get(name) ?? [])];
    const declared = mapped
      .map((specifier) => splitNameVersion(withoutSubpath(specifier.slice(4))))
      .map((parsed) => parsed?.version)
      .filter((version): version is string => !!version);
    const versions = resolved.length > 0
      ? resolved
      : locked.length > 0
      ? locked
      : declared;
    result[name] = versions.length > 0
      ? [...new Set(versions)].sort(compareVersions).join(", ")
      : UNKNOWN;
  }
  return result;
}

/** `name` of an `npm:name@version/subpath` specifier; `null` otherwise. */
function npmSpecifierName(specifier: string): string | null {
  if (!specifier.startsWith("npm:")) return null;
  const rest = withoutSubpath(specifier.slice(4)).replace(/^\//, "");
  return splitNameVersion(rest)?.name ?? rest;
}

/** Drops a `/subpath` after the package name and version. */
function withoutSubpath(specifier: string): string {
  const prefix = specifier.startsWith("npm:") ? "npm:" : "";
  const body = specifier.slice(prefix.length);
  const scoped = body.startsWith("@");
  const parts = body.split("/");
  return prefix + parts.slice(0, scoped ? 2 : 1).join("/");
}

/** Splits `name@version` (scoped or not); `null` without a version. */
function splitNameVersion(
  key: string,
): { name: string; version: string } | null {
  const at = key.indexOf("@", key.startsWith("@") ? 1 : 0);
  if (at <= 0) return null;
  return { name: key.slice(0, at), version: key.slice(at + 1) };
}

/** `1.8.7_@fedify+fedify@2.3.6` → `1.8.7`. */
function stripPeers(version: string): string {
  const underscore = version.indexOf("_");
  return underscore < 0 ? version : version.slice(0, underscore);
}

/** Orders versions numerically part by part. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/);
  const pb = b.split(/[.+-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? "";
    const y = pb[i] ?? "";
    const nx = Number(x);
    const ny = Number(y);
    const diff = x !== "" && y !== "" && !isNaN(nx) && !isNaN(ny)
      ? nx - ny
      : x < y
      ? -1
      : x > y
      ? 1
      : 0;
    if (diff !== 0) return diff;
  }
  return 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value != null && !Array.isArray(value);
}

function attempt<T>(fn: () => T): T | null {
  try {
    return fn() ?? null;
  } catch {
    return null;
  }
}

async function readText(path: string | URL): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

async function readJson(url: URL): Promise<unknown> {
  if (url.protocol !== "file:") return null;
  const content = await readText(url);
  if (content == null) return null;
  return attempt(() => JSON.parse(content));
}

function logicalCores(): number | null {
  const cores = attempt(() => navigator.hardwareConcurrency);
  return cores != null && cores > 0 ? cores : null;
}

function systemMemory(): number | null {
  const total = attempt(() => Deno.systemMemoryInfo().total);
  return total != null && total > 0 ? total : null;
}

/** The CPU model as Node's `os.cpus()` reports it (for other systems). */
function nodeCpuModel(): string | null {
  const model = attempt(() => cpus()[0]?.model?.trim());
  return model ? model : null;
}
