/**
 * The agent image (`deno task image`): an OCI image of the project, built
 * offline without a registry or a Dockerfile.  Its root file system holds
 * the local Deno binary and the libraries it links ({@link fillDenoRootfs}),
 * the project's files (`git ls-files`, without `results/`) in {@link APP},
 * a Deno cache in {@link IMAGE_DENO_DIR} holding every npm package the
 * children import ({@link IMAGE_ENTRYPOINTS}; copied from the host's cache,
 * checked with `deno cache --cached-only`), and Fedify's source in
 * {@link IMAGE_FEDIFY_SOURCE} when `FEDIFY_SOURCE` names it.  Its
 * entrypoint is the agent, listening on its default port
 * (`DEFAULT_AGENT_PORT`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { DOCKER_LABEL, dockerImport, dockerQuiet } from "../system/docker.ts";
import { fillDenoRootfs, ROOTFS_PATH } from "../system/deno_rootfs.ts";
import { readEnv } from "../system/env.ts";
import { exists } from "../system/fs.ts";
import { leftovers } from "../system/leftovers.ts";
import { outputTail, runToEnd } from "../system/run_to_end.ts";
import { DEFAULT_AGENT_PORT } from "../params/mod.ts";

/** The label value on the agent image. */
export const IMAGE_LABEL_VALUE = "agent";

/** Where the project lives in the image. */
export const APP = "/app";

/** The image's Deno cache (`DENO_DIR`). */
export const IMAGE_DENO_DIR = "/deno-dir";

/** Where Fedify's source goes in the image when `FEDIFY_SOURCE` is set. */
export const IMAGE_FEDIFY_SOURCE = "/fedify-source";

/**
 * The modules whose npm packages the image's cache must hold: the
 * children, the drivers they load, and the agent that starts them.  A
 * module not in the checkout yet is skipped.  Add one here to have its
 * packages in the image.
 */
export const IMAGE_ENTRYPOINTS: readonly string[] = [
  "lib/cli/agent.ts",
  "lib/child/sender.ts",
  "lib/child/worker.ts",
  "fake_inbox/inbox_server.ts",
  "drivers/mod.ts",
];

/** The image's entrypoint: the agent, from the image's own cache. */
export const IMAGE_ENTRYPOINT: readonly string[] = [
  "deno",
  "run",
  "--allow-all",
  "--unstable-kv",
  "--cached-only",
  "--config",
  `${APP}/deno.json`,
  `${APP}/lib/cli/agent.ts`,
  "--listen",
  `0.0.0.0:${DEFAULT_AGENT_PORT}`,
];

/** The image's name for a commit (`fedify-queue-bench-agent:1a2b3c4`). */
export function agentImageName(shortCommit: string | null): string {
  return `fedify-queue-bench-agent:${shortCommit ?? "dev"}`;
}

/** Options for {@link buildAgentImage}. */
export interface AgentImageOptions {
  /** The project's checkout. */
  readonly projectDir: string;
  /** The image's name; {@link agentImageName} of HEAD by default. */
  readonly name?: string;
  /** The Deno binary to copy; this process's own by default. */
  readonly deno?: string;
  /** Fedify's source to include; `FEDIFY_SOURCE` by default. */
  readonly fedifySource?: string | null;
  /** The time limit of each step, ms. */
  readonly timeoutMs: number;
  /** Stops it. */
  readonly signal: AbortSignal;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

/** What {@link buildAgentImage} made. */
export interface AgentImage {
  /** The image's name. */
  readonly name: string;
  /** Its size in bytes, as the engine reports it. */
  readonly bytes: number;
  /** Seconds the build took. */
  readonly seconds: number;
  /** The modules whose packages the cache holds. */
  readonly entrypoints: readonly string[];
  /** Whether Fedify's source is in it. */
  readonly fedifySource: boolean;
}

/**
 * The environment that keeps `deno cache` off the network: the npm
 * registry at a port nothing listens on, so a package missing from the
 * cache fails the build instead of being downloaded.
 */
export const OFFLINE: Readonly<Record<string, string>> = {
  NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
};

/** The first line of Deno's output that names an error. */
function firstError(stderr: string): string {
  return stderr.split("\n").find((line) => /error(:| sending)/i.test(line))
    ?.trim() ??
    "no error line";
}

/** Runs a command that has to succeed, or throws naming it and the fix. */
async function must(
  command: string,
  args: readonly string[],
  options: AgentImageOptions & { cwd?: string; env?: Record<string, string> },
  fix: string,
): Promise<string> {
  const result = await runToEnd(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `building the agent image: ${command} ${args.join(" ")} failed:\n${
        outputTail(result)
      }\n${fix}`,
    );
  }
  return result.stdout;
}

/** HEAD's short hash, or `null` outside a git checkout. */
async function shortCommit(dir: string): Promise<string | null> {
  const result = await runToEnd("git", ["rev-parse", "--short", "HEAD"], {
    cwd: dir,
    timeoutMs: 30_000,
  }).catch(() => null);
  return result?.code === 0 ? result.stdout.trim() : null;
}

/** Copies the checkout's files (`git ls-files`) but `results/`. */
async function copyProject(
  app: string,
  options: AgentImageOptions,
): Promise<void> {
  const listed = await must("git", ["ls-files", "-z"], {
    ...options,
    cwd: options.projectDir,
  }, "the image is built from a git checkout of the project: clone it");
  for (const file of listed.split("\0")) {
    if (file === "" || file.startsWith("results/")) continue;
    const source = join(options.projectDir, file);
    if (!(await exists(source))) continue;
    await Deno.mkdir(dirname(join(app, file)), { recursive: true });
    await Deno.copyFile(source, join(app, file));
  }
}

/**
 * Fills the image's Deno cache: the host's npm cache copied in, then
 * `deno cache` of {@link IMAGE_ENTRYPOINTS} with the registry pointed at
 * a closed port ({@link OFFLINE}) proves it holds every locked package
 * they import (`deno cache` has no `--cached-only`); only when it lacks
 * some are they fetched from the registry, at their locked versions.
 *
 * @returns The entrypoints cached.
 */
async function fillDenoDir(
  app: string,
  denoDir: string,
  options: AgentImageOptions,
): Promise<string[]> {
  const deno = options.deno ?? Deno.execPath();
  const info = JSON.parse(
    await must(deno, ["info", "--json"], options, "check the Deno binary"),
  ) as { denoDir: string };
  await Deno.mkdir(denoDir, { recursive: true });
  const hostNpm = join(info.denoDir, "npm");
  if (await exists(hostNpm)) {
    await must("cp", ["-a", hostNpm, join(denoDir, "npm")], options, "");
  }
  const entrypoints = [];
  for (const entry of IMAGE_ENTRYPOINTS) {
    if (await exists(join(app, entry))) entrypoints.push(entry);
  }
  const args = ["cache", "--frozen", "--lock=deno.lock", ...entrypoints];
  const offline = await runToEnd(deno, args, {
    ...options,
    cwd: app,
    env: { DENO_DIR: denoDir, NO_COLOR: "1", ...OFFLINE },
  });
  if (offline.code !== 0) {
    options.log(
      "the host's Deno cache lacks locked npm packages " +
        `(${firstError(offline.stderr)}): fetching them from the npm ` +
        "registry at their locked versions",
    );
    await must(
      deno,
      args,
      { ...options, cwd: app, env: { DENO_DIR: denoDir } },
      "the npm registry must be reachable once, or the host's Deno cache " +
        `filled beforehand: \`deno cache ${entrypoints.join(" ")}\``,
    );
  }
  return entrypoints;
}

/**
 * Builds the agent image: the root file system in a temporary folder
 * (removed on every way out), then `docker import`, labelled
 * `fedify-queue-bench=agent`, with `BENCH_IMAGE` set to its name.
 *
 * @throws {Error} Naming the step that failed and the fix.
 */
export async function buildAgentImage(
  options: AgentImageOptions,
): Promise<AgentImage> {
  const started = performance.now();
  const name = options.name ??
    agentImageName(await shortCommit(options.projectDir));
  const source = options.fedifySource === undefined
    ? readEnv("FEDIFY_SOURCE") ?? null
    : options.fedifySource;
  const root = await leftovers.makeTempDir("image");
  try {
    options.log(`copying Deno, its libraries and the project to ${root}`);
    await fillDenoRootfs(root, options.deno);
    await copyProject(join(root, APP), options);
    options.log("filling the image's Deno cache from the host's");
    const entrypoints = await fillDenoDir(
      join(root, APP),
      join(root, IMAGE_DENO_DIR),
      options,
    );
    if (source != null) {
      options.log(`adding Fedify's source from ${source}`);
      await must("cp", ["-a", source, join(root, IMAGE_FEDIFY_SOURCE)], {
        ...options,
      }, "FEDIFY_SOURCE must name Fedify's source folder, or be unset");
    }
    options.log(`importing it as ${name}`);
    await dockerImport(root, name, {
      changes: imageChanges(name, source != null),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    const size = await dockerQuiet([
      "image",
      "inspect",
      "--format",
      "{{.Size}}",
      name,
    ]);
    return {
      name,
      bytes: Number(size ?? NaN),
      seconds: (performance.now() - started) / 1000,
      entrypoints,
      fedifySource: source != null,
    };
  } finally {
    await leftovers.removeTempDir(root);
  }
}

/** The `docker import --change` instructions of the image. */
export function imageChanges(name: string, fedifySource: boolean): string[] {
  return [
    `LABEL ${DOCKER_LABEL}=${IMAGE_LABEL_VALUE}`,
    `ENV PATH=${ROOTFS_PATH}`,
    `ENV DENO_DIR=${IMAGE_DENO_DIR}`,
    "ENV DENO_NO_UPDATE_CHECK=1",
    `ENV BENCH_IMAGE=${name}`,
    ...(fedifySource ? [`ENV FEDIFY_SOURCE=${IMAGE_FEDIFY_SOURCE}`] : []),
    `WORKDIR ${APP}`,
    `ENTRYPOINT ${JSON.stringify(IMAGE_ENTRYPOINT)}`,
  ];
}

/**
 * The name of the agent image of the checkout as it is: HEAD's short hash
 * when the tree is clean, `dev` when it holds uncommitted changes (which no
 * commit names), with `-fedify-source` when it holds Fedify's source
 * (`FEDIFY_SOURCE`, or `fedifySource`); and whether an image of that name
 * may be reused (a `dev` one may be of other code).
 */
export async function checkoutImage(
  projectDir: string,
  fedifySource: string | null | undefined = undefined,
): Promise<{ readonly name: string; readonly reusable: boolean }> {
  const status = await runToEnd("git", ["status", "--porcelain"], {
    cwd: projectDir,
    timeoutMs: 30_000,
  }).catch(() => null);
  const clean = status?.code === 0 && status.stdout.trim() === "";
  const commit = clean ? await shortCommit(projectDir) : null;
  const source = fedifySource === undefined
    ? readEnv("FEDIFY_SOURCE") ?? null
    : fedifySource;
  // An image with Fedify's source runs other queue code: another name.
  return {
    name: agentImageName(commit) + (source == null ? "" : "-fedify-source"),
    reusable: commit != null,
  };
}

/**
 * The agent image of the checkout as it is ({@link checkoutImage}): the one
 * there when it may be reused, otherwise built now.
 *
 * @returns The image's name.
 * @throws {Error} As {@link buildAgentImage}.
 */
export async function ensureAgentImage(
  options: AgentImageOptions,
): Promise<string> {
  const { name, reusable } = await checkoutImage(
    options.projectDir,
    options.fedifySource,
  );
  const existing = (await dockerQuiet(["image", "ls", "-q", name]) ?? "")
    .trim();
  if (reusable && existing !== "") return name;
  const built = await buildAgentImage({ ...options, name });
  // The name moved to the new image: the old one would stay, untagged.
  if (existing !== "") await dockerQuiet(["image", "rm", existing]);
  return built.name;
}
