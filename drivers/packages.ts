/**
 * Where a driver's queue package is loaded from: the name `deno.json` maps
 * (a registry package, or the project's stand-in where the registry has
 * none), or a Fedify source tree given with `--fedify-source DIR` or
 * `FEDIFY_SOURCE=DIR` (a clone of fedify-dev/fedify: DIR holds
 * `packages/<name>/src/mod.ts`).
 *
 * The source tree is a dependency loaded at run time, never copied into
 * this project.  Every process of a run (the runner, the sender, the
 * workers) reads the same `FEDIFY_SOURCE`: the runner sets it from the
 * flag, and its children inherit it.  There is no silent fallback: when a
 * source is given, a package missing from it, or one that fails to load,
 * fails that driver with the path and the error.
 *
 * Each load is recorded, so that the process that opened a queue can say
 * exactly which code ran ({@link implementationFor}).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Implementation } from "../lib/results/mod.ts";
import {
  describeImplementation,
  packageName,
} from "../lib/measure/implementation.ts";
import { readCommitReading, readExactTag } from "../lib/measure/provenance.ts";
import { appRuntime } from "../lib/runtime/mod.ts";

/** The environment variable that names a Fedify source tree. */
export const FEDIFY_SOURCE_ENV = "FEDIFY_SOURCE";

/**
 * Fedify's queue packages that the bench can load from a source tree, by
 * their folder under `packages/` (`@fedify/mysql` stays on the registry's
 * 2.3.6, which the registry serves).
 */
export const SOURCE_PACKAGES = [
  "redis",
  "postgres",
  "amqp",
  "denokv",
  "sqlite",
] as const;

/** One of {@link SOURCE_PACKAGES}. */
export type SourcePackage = typeof SOURCE_PACKAGES[number];

/**
 * Which code a driver asks for: `follow-source` loads the package from the
 * Fedify source tree when one is given and from `deno.json`'s mapping
 * otherwise; `mapped` always loads `deno.json`'s mapping (the registry's
 * 1.8.7 of `@fedify/redis` and `@fedify/postgres`, the stand-ins of
 * `@fedify/amqp` and `@fedify/denokv`), for the variants that keep those
 * measurable beside the source tree's.
 */
export type PackageChoice = "follow-source" | "mapped";

/** The global key under which the `#sqlite` forwarder finds its target. */
export const SQLITE_PLATFORM_KEY = Symbol.for(
  "fedify-queue-bench/sqlite-platform",
);

/** The project's root, for project-relative paths in the results. */
const PROJECT_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The trees {@link FedifySource.fromEnv} has named, by absolute root. */
const sources = new Map<string, FedifySource>();

/** A Fedify source tree: where its packages are and which code it holds. */
export class FedifySource {
  readonly #dir: string;
  #ref?: Promise<SourceRef>;

  /**
   * @param dir The tree's root (the folder that holds `packages/`);
   *   relative paths are resolved against the working folder.
   */
  constructor(dir: string) {
    this.#dir = resolve(dir);
  }

  /**
   * The tree named by `FEDIFY_SOURCE` in this process's environment, or
   * `null` when it is unset or empty.
   */
  static fromEnv(): FedifySource | null {
    // Deno without permission to read the environment reads it as unset.
    const dir = appRuntime.env(FEDIFY_SOURCE_ENV);
    if (dir == null || dir.trim() === "") return null;
    // One instance per tree, so that its git ref is read once per process.
    const root = resolve(dir);
    let source = sources.get(root);
    if (source == null) sources.set(root, source = new FedifySource(root));
    return source;
  }

  /** The tree's root, absolute. */
  get dir(): string {
    return this.#dir;
  }

  /** A package's module, absolute: `packages/<name>/src/mod.ts`. */
  modulePath(name: SourcePackage): string {
    return join(this.#dir, "packages", name, "src", "mod.ts");
  }

  /**
   * A path inside the tree, relative to its root (what the results record
   * instead of the machine's absolute path).
   */
  relativePath(path: string): string {
    return relative(this.#dir, path);
  }

  /**
   * The version a package's own `deno.json` declares.
   * @throws {Error} Naming the file, when it is missing or has no version.
   */
  async version(name: SourcePackage): Promise<string> {
    const path = join(this.#dir, "packages", name, "deno.json");
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new Error(
        `${path}: cannot read the package's deno.json (${message(error)})`,
      );
    }
    const version = (JSON.parse(text) as { version?: unknown }).version;
    if (typeof version !== "string" || version === "") {
      throw new Error(`${path}: the package's deno.json has no version`);
    }
    return version;
  }

  /**
   * The package's own import map (`imports` of its `deno.json`), resolved
   * to absolute file URLs; `{}` when it has none.
   */
  async importsOf(name: SourcePackage): Promise<Record<string, string>> {
    const base = join(this.#dir, "packages", name);
    const config = JSON.parse(
      await readFile(join(base, "deno.json"), "utf8"),
    ) as { imports?: Record<string, string> };
    const out: Record<string, string> = {};
    for (const [key, target] of Object.entries(config.imports ?? {})) {
      out[key] = target.startsWith(".")
        ? pathToFileURL(join(base, target)).href
        : target;
    }
    return out;
  }

  /**
   * What a package's `package.json` maps the import `key` to under the
   * first of `conditions` it names, as the `src/` module a `dist/` build
   * file is built from (`./dist/x.js` → `src/x.ts`), as an absolute file
   * URL; `undefined` when it maps none or that module is missing.
   */
  async conditionalImport(
    name: SourcePackage,
    key: string,
    conditions: readonly string[],
  ): Promise<string | undefined> {
    const base = join(this.#dir, "packages", name);
    const config = JSON.parse(
      await readFile(join(base, "package.json"), "utf8"),
    ) as { imports?: Record<string, string | Record<string, string>> };
    const entry = config.imports?.[key];
    const built = typeof entry === "string"
      ? entry
      : conditions.map((c) => entry?.[c]).find((t) => t != null);
    if (built == null) return undefined;
    const path = join(
      base,
      built.replace(/^\.\/dist\/(.*)\.[cm]?js$/, "src/$1.ts"),
    );
    try {
      await stat(path);
    } catch {
      return undefined;
    }
    return pathToFileURL(path).href;
  }

  /**
   * Which code the tree holds: its commit and exact tag when it is a git
   * checkout of its own and git reads it, otherwise why not (the packages'
   * declared versions then stand for it).  Read once.
   */
  ref(): Promise<SourceRef> {
    this.#ref ??= (async () => {
      const root = pathToFileURL(this.#dir + "/");
      const { commit, noCommitReason } = await readCommitReading(root);
      if (commit == null) {
        return { commit: null, tag: null, dirty: null, noCommitReason };
      }
      return {
        commit: commit.sha,
        tag: await readExactTag(root),
        dirty: commit.dirty,
      };
    })();
    return this.#ref;
  }

  /**
   * Checks that the tree holds every package in `names`, so that a wrong
   * path fails before anything is measured.
   * @throws {Error} Naming the missing module and the fix.
   */
  async check(names: readonly SourcePackage[] = SOURCE_PACKAGES) {
    for (const name of names) {
      const path = this.modulePath(name);
      try {
        await stat(path);
      } catch {
        throw new Error(
          `--fedify-source ${this.#dir}: no ${
            this.relativePath(path)
          } there; give the root of a Fedify checkout (for example ` +
            "`git clone --branch 2.3.5 https://github.com/fedify-dev/fedify`)",
        );
      }
      await this.version(name);
    }
  }
}

/** What {@link FedifySource.ref} reads of a source tree. */
export interface SourceRef {
  /**
   * Its git commit, or `null` when it cannot be read
   * ({@link SourceRef.noCommitReason} says why).
   */
  readonly commit: string | null;
  /** The tag at exactly that commit, if any. */
  readonly tag: string | null;
  /** Whether the checkout had uncommitted changes; `null` without git. */
  readonly dirty: boolean | null;
  /**
   * Why {@link SourceRef.commit} is `null`: `not a git checkout`, `git not
   * found`, or what failed; absent when a commit was read.
   */
  readonly noCommitReason?: string;
}

/**
 * Whether code at `ref` is a package's own release at `version`: a tree at
 * the release's tag with no changes, or (without git) a tree whose package
 * declares a release version (no pre-release part).
 */
export function isRelease(version: string, ref: SourceRef): boolean {
  if (ref.commit == null) return /^\d+\.\d+\.\d+$/.test(version);
  return ref.dirty === false && ref.tag != null &&
    (ref.tag === version || ref.tag === `v${version}`);
}

/** A loaded queue package and what it was. */
export interface LoadedPackage<T> {
  /** The module's namespace. */
  readonly module: T;
  /** Which code it is, as the results record it. */
  readonly implementation: Implementation;
}

/** What this process loaded, by the specifier the drivers name. */
const loaded = new Map<string, Implementation>();

/**
 * Loads one of Fedify's queue packages for a driver.
 *
 * @param name The package's folder, e.g. `postgres` for `@fedify/postgres`.
 * @param mapped Imports the name `deno.json` maps, with a literal specifier
 *   (`() => import("@fedify/postgres")`) so that Deno sees the dependency.
 * @param choice Whether a given source tree is used (see
 *   {@link PackageChoice}).
 * @param source The tree; `FEDIFY_SOURCE`'s by default.
 * @throws {Error} When a source is given and the package is missing from
 *   it or fails to load: the message names the path and the error.
 */
export async function loadQueuePackage<T>(
  name: SourcePackage,
  mapped: () => Promise<T>,
  choice: PackageChoice = "follow-source",
  source: FedifySource | null = FedifySource.fromEnv(),
): Promise<LoadedPackage<T>> {
  const specifier = `@fedify/${name}`;
  if (choice === "mapped" || source == null) {
    const module = await mapped();
    const implementation = mappedImplementation(specifier);
    loaded.set(specifier, implementation);
    return { module, implementation };
  }
  const path = source.modulePath(name);
  let module: T;
  let version: string;
  try {
    version = await source.version(name);
    if (name === "sqlite") await prepareSqlitePlatform(source);
    module = await import(pathToFileURL(path).href) as T;
  } catch (error) {
    throw new Error(
      `cannot load ${specifier} from the Fedify source tree: ${path}: ${
        message(error)
      } (--fedify-source / ${FEDIFY_SOURCE_ENV})`,
      { cause: error },
    );
  }
  const ref = await source.ref();
  const implementation: Implementation = {
    specifier,
    resolved: source.relativePath(path),
    official: isRelease(version, ref),
    version,
    origin: "fedify-source",
    ref: { ...ref },
  };
  loaded.set(specifier, implementation);
  return { module, implementation };
}

/**
 * What ran under `specifier` in this process: what a driver loaded through
 * {@link loadQueuePackage} last, else what the import map resolves it to,
 * else `null` (a user's driver naming a specifier this project cannot
 * resolve).
 */
export function implementationFor(specifier: string): Implementation | null {
  const loadedHere = loaded.get(specifier);
  if (loadedHere != null) return loadedHere;
  try {
    return mappedImplementation(specifier);
  } catch {
    return null;
  }
}

/**
 * Describes what `deno.json` maps `specifier` to, with no absolute path of
 * this machine: `name@version` for a registry package, a path relative to
 * the project for a module of its own (a stand-in).
 */
export function mappedImplementation(specifier: string): Implementation {
  const resolvedTo = import.meta.resolve(specifier);
  const found = describeImplementation(specifier, resolvedTo);
  // Under Node.js and Bun the name resolves into an installed node_modules
  // (`--runtime`), whose path has no version: its package.json has.
  const described = found.official && found.version == null
    ? { ...found, version: installedVersion(specifier, resolvedTo) }
    : found;
  if (described.official) {
    return {
      ...described,
      resolved: described.version == null
        ? specifier
        : `${specifier}@${described.version}`,
      origin: "registry",
    };
  }
  return {
    ...described,
    resolved: projectPath(described.resolved),
    origin: "stand-in",
  };
}

/**
 * The version in the package.json of the installed package that `resolved`
 * (a file URL under `node_modules/<name>/`) lies in, or `null`.
 */
function installedVersion(specifier: string, resolved: string): string | null {
  if (!resolved.startsWith("file:")) return null;
  const name = packageName(specifier);
  const path = fileURLToPath(resolved);
  const at = path.lastIndexOf(`/node_modules/${name}/`);
  if (at < 0) return null;
  try {
    const file = `${path.slice(0, at)}/node_modules/${name}/package.json`;
    const version = JSON.parse(readFileSync(file, "utf8")).version;
    return typeof version === "string" ? version : null;
  } catch {
    return null;
  }
}

/** A file URL inside the project as a project-relative path. */
function projectPath(url: string): string {
  if (!url.startsWith("file:")) return url;
  const path = relative(PROJECT_ROOT, fileURLToPath(url));
  return path.startsWith("..") || isAbsolute(path)
    ? `…/${fileURLToPath(url).split("/").slice(-3).join("/")}`
    : path;
}

/**
 * Points the project's `#sqlite` forwarder (`drivers/sqlite/sqlite_platform.ts`)
 * at the module the sqlite package maps `#sqlite` to for this runtime,
 * before the package is imported: on Deno, what its own `deno.json` maps
 * (`src/sqlite.node.ts` at 2.3.5); on Node.js and Bun, what its
 * `package.json` maps under the runtime's condition (`bun` or `import`),
 * from the built `dist/` back to the `src/` module it is built from
 * (`src/sqlite.bun.ts` on Bun).
 */
async function prepareSqlitePlatform(source: FedifySource): Promise<void> {
  const target = appRuntime.name === "deno"
    ? (await source.importsOf("sqlite"))["#sqlite"]
    : await source.conditionalImport(
      "sqlite",
      "#sqlite",
      appRuntime.name === "bun" ? ["bun", "import"] : ["node", "import"],
    );
  if (target == null) {
    throw new Error(
      `the sqlite package maps no #sqlite for ${appRuntime.name}`,
    );
  }
  const global = globalThis as Record<symbol, unknown>;
  const current = global[SQLITE_PLATFORM_KEY];
  if (current != null && current !== target) {
    throw new Error(
      `#sqlite already points at ${current} in this process, not ${target}`,
    );
  }
  global[SQLITE_PLATFORM_KEY] = target;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether a driver that makes `choice` runs a Fedify source tree's code in
 * this process (a tree is given and the driver follows it).  Drivers use it
 * for what they declare of the code (ordering keys, `getDepth()`), which
 * differs between the registry's 1.8.7 and the tree's 2.x.
 */
export function followsSource(choice: PackageChoice): boolean {
  return choice === "follow-source" && FedifySource.fromEnv() != null;
}

/**
 * The npm packages a driver's results record in `environment.packages`:
 * `clients` (its server's client libraries), and `@fedify/<name>` unless the
 * driver runs a Fedify source tree's code, which each row records instead
 * (`implementation`).
 */
export function recordedPackages(
  name: SourcePackage,
  choice: PackageChoice,
  clients: readonly string[],
): string[] {
  return followsSource(choice) ? [...clients] : [`@fedify/${name}`, ...clients];
}

/**
 * How a driver's description names the code it runs in this process, e.g.
 * `@fedify/redis 2.3.5 (Fedify source)`, `@fedify/redis 1.8.7` or
 * `@fedify/amqp stand-in`.
 */
export function packageLabel(
  name: SourcePackage,
  choice: PackageChoice = "follow-source",
): string {
  const specifier = `@fedify/${name}`;
  const source = choice === "follow-source" ? FedifySource.fromEnv() : null;
  if (source != null) {
    let version = "?";
    try {
      const path = join(source.dir, "packages", name, "deno.json");
      version = String(JSON.parse(readFileSync(path, "utf8")).version);
    } catch { /* a missing tree fails at load, with its path */ }
    return `${specifier} ${version} (Fedify source)`;
  }
  const mapped = mappedImplementation(specifier);
  return mapped.origin === "stand-in"
    ? `${specifier} stand-in`
    : `${specifier} ${mapped.version ?? ""}`.trimEnd();
}
