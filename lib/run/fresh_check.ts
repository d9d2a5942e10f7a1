/**
 * The fresh-machine check behind `deno task fresh-check`
 * (`lib/cli/fresh_check.ts`): the README's two commands, run in a container
 * that holds Debian 12 (bookworm, `debootstrap --variant=minbase`) and the
 * host's Node.js and npm, and nothing else (no git, no Redis, no
 * PostgreSQL, no Deno), on a clone of this project at its HEAD.
 *
 * The parts that need no Docker are pure and tested beside this file
 * (`fresh_check.test.ts`): reading the commands from the README's first
 * screen, the Debian mirror from apt's sources, the `docker run` argument
 * list, what `deno task test` printed (its summary line, the failed tests
 * and their errors, the ignored tests and the condition in their source
 * that ignored them), a results file's rows, and the Markdown report.  The
 * rest builds or reuses the image ({@link ensureImage}), clones the project
 * ({@link cloneProject}) and runs one command in a container
 * ({@link ContainerRunner}), with a time limit on every wait and every
 * container removed on every way out.
 *
 * @module
 */
import { join } from "node:path";
import { errorMessage } from "../results/error_message.ts";
import type { ResultsDocument } from "../results/types.ts";
import { findBinary } from "../services/binaries.ts";
import { leftovers } from "../system/leftovers.ts";
import { writeAll } from "../system/logged_process.ts";
import { outputTail, runToEnd } from "../system/run_to_end.ts";
import { spawnProcess } from "../system/spawn.ts";

/** The label key on the check's image and containers. */
export const LABEL = "fedify-queue-bench";

/** The label value on the check's image and containers. */
export const LABEL_VALUE = "fresh-check";

/** The host's certificate bundle, mounted read-only at the same path. */
export const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** Where the clone is mounted in the container, and its working folder. */
export const CONTAINER_PROJECT = "/src/fedify-queue-bench";

/** The container user's home: the cache folder's `home/` is mounted here. */
export const CONTAINER_HOME = "/home/fresh";

/**
 * The user the container runs as when the host runs the check as root: a
 * fresh machine's user is not root (PostgreSQL refuses to run as root, and
 * root's tests differ: network namespaces).
 */
export const CONTAINER_USER = { name: "fresh", uid: 1000, gid: 1000 };

/** The Debian release of the image. */
export const SUITE = "bookworm";

/** The PATH inside the container. */
const CONTAINER_PATH =
  "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The check cannot go on; the message names the cause and the fix. */
export class FreshCheckError extends Error {
  /** @param message Names the cause and the fix. */
  constructor(message: string) {
    super(message);
    this.name = "FreshCheckError";
  }
}

// ---------------------------------------------------------------------------
// The README's commands

/** The README's two commands, as its first screen shows them. */
export interface ReadmeCommands {
  /** The command containing `task bench`. */
  readonly bench: string;
  /** The command containing `task test`. */
  readonly test: string;
}

/** How many lines count as the README's first screen. */
export const FIRST_SCREEN_LINES = 40;

/**
 * The bench and test commands of the README's first screen: the first
 * fenced `sh` (or `bash`, `shell`, `console`) block within its first
 * {@link FIRST_SCREEN_LINES} lines, each line without its `#` comment.
 *
 * @param readme The README's text.
 * @throws {FreshCheckError} When the block or either command is missing.
 */
export function readmeCommands(readme: string): ReadmeCommands {
  const lines = readme.split("\n").slice(0, FIRST_SCREEN_LINES);
  const start = lines.findIndex((l) =>
    /^```(sh|bash|shell|console)\s*$/.test(l.trim())
  );
  const end = start < 0
    ? -1
    : lines.findIndex((l, i) => i > start && l.trim() === "```");
  if (start < 0 || end < 0) {
    throw new FreshCheckError(
      `README.md has no fenced sh block in its first ${FIRST_SCREEN_LINES} ` +
        "lines: put the two commands (deno task bench, deno task test) back " +
        "at its top",
    );
  }
  const commands = lines.slice(start + 1, end)
    .map((l) => l.replace(/(^|\s)#.*$/, "").replace(/^\$\s+/, "").trim())
    .filter((l) => l !== "");
  const find = (task: string) => {
    const found = commands.find((c) =>
      new RegExp(`\\btask ${task}\\b`).test(c)
    );
    if (found == null) {
      throw new FreshCheckError(
        `README.md's first sh block has no command running "task ${task}" ` +
          `(it has: ${commands.join("; ") || "nothing"}): put it back there`,
      );
    }
    return found;
  };
  return { bench: find("bench"), test: find("test") };
}

/**
 * A command line with environment variables before it, as a user types it
 * (`TOTAL=20 RECIPIENTS=10 npx …`).
 */
export function withEnv(
  command: string,
  env: Readonly<Record<string, string>>,
): string {
  const prefix = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ");
  return prefix === "" ? command : `${prefix} ${command}`;
}

// ---------------------------------------------------------------------------
// The image

/**
 * The Debian mirror apt uses on this host for `suite`: the `URIs` of the
 * first deb822 stanza (`/etc/apt/sources.list.d/debian.sources`) whose
 * `Suites` holds it, else the first `deb URL suite` line of
 * `/etc/apt/sources.list`; `null` when neither names one.
 *
 * @param sources The two files' texts, `null` when absent.
 * @param suite The release, e.g. `bookworm`.
 */
export function debianMirror(
  sources: { readonly deb822: string | null; readonly list: string | null },
  suite: string = SUITE,
): string | null {
  for (const stanza of (sources.deb822 ?? "").split(/\n\s*\n/)) {
    const field = (name: string) =>
      new RegExp(`^${name}:\\s*(.+)$`, "mi").exec(stanza)?.[1].trim();
    const types = field("Types")?.split(/\s+/) ?? ["deb"];
    const suites = field("Suites")?.split(/\s+/) ?? [];
    const uri = field("URIs")?.split(/\s+/)[0];
    if (uri != null && types.includes("deb") && suites.includes(suite)) {
      return uri;
    }
  }
  for (const line of (sources.list ?? "").split("\n")) {
    const words = line.replace(/#.*$/, "").trim()
      .replace(/\[[^\]]*\]\s*/, "").split(/\s+/);
    if (words[0] === "deb" && words[2] === suite) return words[1];
  }
  return null;
}

/** The image's name for a Node.js version (`v20.20.2`). */
export function imageName(nodeVersion: string): string {
  return `fedify-queue-bench-fresh:${SUITE}-node${
    nodeVersion.replace(/^v/, "")
  }`;
}

/** What {@link ensureImage} did. */
export interface ImageRecord {
  /** The image's name. */
  readonly name: string;
  /** The image's id. */
  readonly id: string;
  /**
   * `reused`: the image was there; `imported`: made from the cached root
   * file system; `built`: debootstrap ran.
   */
  readonly how: "reused" | "imported" | "built";
  /** The root file system's folder (kept for reuse). */
  readonly rootfs: string;
  /** The Debian mirror debootstrap used, when it ran. */
  readonly mirror?: string;
  /** The Node.js version inside (the host's). */
  readonly nodeVersion: string;
  /** The npm version inside (the host's). */
  readonly npmVersion: string;
  /** Seconds it took. */
  readonly seconds: number;
}

/** Options for {@link ensureImage}. */
export interface ImageOptions {
  /** The check's cache folder: `rootfs-bookworm/` goes in it. */
  readonly cacheDir: string;
  /** Make the root file system and the image again. */
  readonly rebuild: boolean;
  /** The Debian mirror; apt's own on this host by default. */
  readonly mirror?: string;
  /** The time limit of debootstrap, and of the import, in ms. */
  readonly timeoutMs: number;
  /** Stops it. */
  readonly signal: AbortSignal;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

const HOST_NODE = "/usr/bin/node";
const HOST_NPM = "/usr/lib/node_modules/npm";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

/** Runs a short command to its end and throws, naming it, when it fails. */
async function must(
  command: string,
  args: readonly string[],
  options: {
    readonly timeoutMs: number;
    readonly signal?: AbortSignal;
    readonly what: string;
    readonly fix: string;
  },
): Promise<string> {
  let result;
  try {
    result = await runToEnd(command, args, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new FreshCheckError(
      `${options.what}: cannot run ${command}: ${errorMessage(error)}; ` +
        options.fix,
    );
  }
  if (result.code !== 0) {
    throw new FreshCheckError(
      `${options.what}: ${command} ${
        result.code == null
          ? `took longer than ${Math.round(options.timeoutMs / 1000)} s`
          : `exited with code ${result.code}`
      }:\n${outputTail(result)}\n${options.fix}`,
    );
  }
  return result.stdout.trim();
}

/**
 * Whether the Docker daemon answers, and its version.
 *
 * @throws {FreshCheckError} When it does not, saying how to start it.
 */
export async function dockerVersion(signal?: AbortSignal): Promise<string> {
  if (findBinary("docker") == null) {
    throw new FreshCheckError(
      "docker is not installed: apt-get install -y docker.io (as root)",
    );
  }
  return await must("docker", ["version", "--format", "{{.Server.Version}}"], {
    timeoutMs: 30_000,
    signal,
    what: "the Docker daemon does not answer",
    fix: "start it as root in the background, e.g. " +
      "`dockerd --iptables=false --ip-masq=false --bridge=none " +
      ">/tmp/dockerd.log 2>&1 &` (no firewall changes, no bridge: the " +
      "check uses --network host), then run the check again; stop it " +
      "afterwards with `kill $(cat /var/run/docker.pid)`",
  });
}

/** The image's id, or `null` when there is no image of that name. */
async function imageId(name: string): Promise<string | null> {
  const result = await runToEnd(
    "docker",
    ["image", "inspect", "--format", "{{.Id}}", name],
    { timeoutMs: 30_000 },
  );
  return result.code === 0 ? result.stdout.trim() : null;
}

/**
 * Makes the check's image, or reuses it: debootstrap's minimal bookworm in
 * `CACHE/rootfs-bookworm` (kept), the host's `/usr/bin/node` and
 * `/usr/lib/node_modules/npm` copied in with `npm` and `npx` links, its
 * `/etc/resolv.conf`, and a user {@link CONTAINER_USER}; then
 * `tar -C DIR -c . | docker import`, labelled {@link LABEL}.  The image's
 * name holds the Node.js version, so another Node.js makes another image.
 *
 * @throws {FreshCheckError} Naming what failed and the fix.
 */
export async function ensureImage(options: ImageOptions): Promise<ImageRecord> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  if (!await exists(HOST_NODE) || !await exists(HOST_NPM)) {
    throw new FreshCheckError(
      `the image copies the host's Node.js, and ${HOST_NODE} or ${HOST_NPM} ` +
        "is missing: apt-get install -y nodejs npm",
    );
  }
  const nodeVersion = await must(HOST_NODE, ["--version"], {
    timeoutMs: 30_000,
    what: "the host's Node.js",
    fix: `check that ${HOST_NODE} runs`,
  });
  const npmVersion = JSON.parse(
    await Deno.readTextFile(join(HOST_NPM, "package.json")),
  ).version as string;
  const name = imageName(nodeVersion);
  const rootfs = join(options.cacheDir, `rootfs-${SUITE}`);
  const stampPath = `${rootfs}.json`;
  if (options.rebuild) {
    options.log(`--rebuild: removing ${name} and ${rootfs}`);
    await runToEnd("docker", ["image", "rm", "--force", name], {
      timeoutMs: 60_000,
    });
    await Deno.remove(rootfs, { recursive: true }).catch(() => {});
    await Deno.remove(stampPath).catch(() => {});
  } else {
    const id = await imageId(name);
    if (id != null) {
      return {
        name,
        id,
        how: "reused",
        rootfs,
        nodeVersion,
        npmVersion,
        seconds: seconds(),
      };
    }
  }
  let how: ImageRecord["how"] = "imported";
  let mirror: string | undefined;
  const stamp = JSON.parse(await readOrNull(stampPath) ?? "null") as
    | { nodeVersion?: string; npmVersion?: string }
    | null;
  if (stamp == null || !await exists(rootfs)) {
    how = "built";
    mirror = options.mirror ?? debianMirror({
      deb822: await readOrNull("/etc/apt/sources.list.d/debian.sources"),
      list: await readOrNull("/etc/apt/sources.list"),
    }) ?? undefined;
    if (mirror == null) {
      throw new FreshCheckError(
        `apt's sources name no Debian mirror for ${SUITE}: give one with ` +
          "--mirror http://deb.debian.org/debian",
      );
    }
    await debootstrap(rootfs, mirror, options);
  }
  if (stamp?.nodeVersion !== nodeVersion || stamp?.npmVersion !== npmVersion) {
    await addNode(rootfs, options.signal);
  }
  await addUser(rootfs);
  await Deno.copyFile("/etc/resolv.conf", join(rootfs, "etc/resolv.conf"))
    .catch(async () => {
      await Deno.remove(join(rootfs, "etc/resolv.conf")).catch(() => {});
      await Deno.writeTextFile(
        join(rootfs, "etc/resolv.conf"),
        await Deno.readTextFile("/etc/resolv.conf"),
      );
    });
  await Deno.writeTextFile(
    stampPath,
    JSON.stringify(
      {
        suite: SUITE,
        mirror: mirror ?? (stamp as { mirror?: string } | null)?.mirror,
        nodeVersion,
        npmVersion,
        at: new Date().toISOString(),
      },
      null,
      2,
    ) + "\n",
  );
  options.log(`importing ${rootfs} as the image ${name}`);
  await dockerImport(rootfs, name, options);
  const id = await imageId(name);
  if (id == null) {
    throw new FreshCheckError(
      `docker import reported no error, yet there is no image ${name}: ` +
        "run again with --rebuild",
    );
  }
  return {
    name,
    id,
    how,
    rootfs,
    ...(mirror == null ? {} : { mirror }),
    nodeVersion,
    npmVersion,
    seconds: seconds(),
  };
}

/** debootstrap into `ROOTFS.partial`, renamed to `rootfs` once complete. */
async function debootstrap(
  rootfs: string,
  mirror: string,
  options: ImageOptions,
): Promise<void> {
  const binary = findBinary("debootstrap");
  if (binary == null) {
    throw new FreshCheckError(
      "debootstrap is not installed: apt-get install -y debootstrap (as root)",
    );
  }
  if (Deno.uid() !== 0) {
    throw new FreshCheckError(
      "debootstrap needs root: run the check as root once to build the " +
        "image (later runs reuse it)",
    );
  }
  const partial = `${rootfs}.partial`;
  await Deno.remove(partial, { recursive: true }).catch(() => {});
  await Deno.mkdir(partial, { recursive: true });
  options.log(
    `debootstrap --variant=minbase ${SUITE} ${partial} ${mirror} ` +
      "(about a minute)",
  );
  await must(
    binary,
    ["--variant=minbase", SUITE, partial, mirror],
    {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      what: "debootstrap failed",
      fix: "check the mirror (--mirror) and the network, then run again",
    },
  );
  // apt's downloaded packages are not part of a fresh machine's disk.
  for (
    const entry of Deno.readDirSync(join(partial, "var/cache/apt/archives"))
  ) {
    if (entry.name.endsWith(".deb")) {
      await Deno.remove(join(partial, "var/cache/apt/archives", entry.name));
    }
  }
  await Deno.rename(partial, rootfs);
}

/** Copies the host's Node.js and npm in, with the `npm` and `npx` links. */
async function addNode(rootfs: string, signal: AbortSignal): Promise<void> {
  await Deno.copyFile(HOST_NODE, join(rootfs, "usr/bin/node"));
  const npm = join(rootfs, "usr/lib/node_modules/npm");
  await Deno.remove(npm, { recursive: true }).catch(() => {});
  await Deno.mkdir(join(rootfs, "usr/lib/node_modules"), { recursive: true });
  await must("cp", ["-a", HOST_NPM, npm], {
    timeoutMs: 120_000,
    signal,
    what: "copying npm into the root file system failed",
    fix: "check the disk space of the cache folder (--cache)",
  });
  for (const tool of ["npm", "npx"]) {
    const link = join(rootfs, "usr/bin", tool);
    await Deno.remove(link).catch(() => {});
    await Deno.symlink(`../lib/node_modules/npm/bin/${tool}-cli.js`, link);
  }
}

/** Adds {@link CONTAINER_USER} to passwd and group, once. */
async function addUser(rootfs: string): Promise<void> {
  const { name, uid, gid } = CONTAINER_USER;
  const add = async (file: string, line: string) => {
    const path = join(rootfs, "etc", file);
    const text = await Deno.readTextFile(path);
    if (!text.split("\n").some((l) => l.startsWith(`${name}:`))) {
      await Deno.writeTextFile(path, text.replace(/\n?$/, "\n") + line + "\n");
    }
  };
  await add("passwd", `${name}:x:${uid}:${gid}::${CONTAINER_HOME}:/bin/sh`);
  await add("group", `${name}:x:${gid}:`);
  await Deno.mkdir(join(rootfs, CONTAINER_HOME.slice(1)), { recursive: true });
  await Deno.chown(join(rootfs, CONTAINER_HOME.slice(1)), uid, gid);
}

/** `tar -C rootfs -c . | docker import --change … - name`. */
async function dockerImport(
  rootfs: string,
  name: string,
  options: ImageOptions,
): Promise<void> {
  const tar = spawnProcess("tar", {
    args: ["-C", rootfs, "-c", "."],
    stdin: "null",
  });
  const docker = spawnProcess("docker", {
    args: [
      "import",
      "--change",
      `LABEL ${LABEL}=${LABEL_VALUE}`,
      "--change",
      `ENV PATH=${CONTAINER_PATH}`,
      "-",
      name,
    ],
    stdin: "piped",
  });
  const kill = () => {
    for (const child of [tar, docker]) {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
    }
  };
  const timer = setTimeout(kill, options.timeoutMs);
  options.signal.addEventListener("abort", kill, { once: true });
  try {
    const [tarErr, dockerOut, dockerErr, tarStatus, dockerStatus] =
      await Promise.all([
        new Response(tar.stderr).text(),
        new Response(docker.stdout).text(),
        new Response(docker.stderr).text(),
        tar.stdout.pipeTo(docker.stdin).then(
          () => tar.status,
          () => tar.status,
        ),
        docker.status,
      ]);
    options.signal.throwIfAborted();
    if (!tarStatus.success || !dockerStatus.success) {
      throw new FreshCheckError(
        `importing the image failed (tar exit ${tarStatus.code}, docker ` +
          `import exit ${dockerStatus.code}):\n${
            (tarErr + dockerErr + dockerOut).trim().split("\n").slice(-8)
              .join("\n")
          }\nrun again with --rebuild`,
      );
    }
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", kill);
  }
}

// ---------------------------------------------------------------------------
// The clone

/** What {@link cloneProject} cloned. */
export interface CloneRecord {
  /** The clone's folder on the host. */
  readonly dir: string;
  /** The commit checked out (the project's HEAD). */
  readonly commit: string;
  /** Its subject line. */
  readonly subject: string;
  /**
   * Paths changed or added in the project's working tree and so not part
   * of the check (`git status --porcelain`).
   */
  readonly uncommitted: readonly string[];
  /** Whether the clone keeps its `.git` folder. */
  readonly gitDir: boolean;
}

/**
 * `git clone` of the project at its HEAD into `dest` (on the host: the
 * container has no git).  The clone keeps its `.git`, as a user's clone
 * does, unless `keepGitDir` is false (a downloaded archive).
 *
 * @param root The project's folder.
 * @param dest A folder that does not exist yet.
 * @throws {FreshCheckError} Naming what failed and the fix.
 */
export async function cloneProject(
  root: string,
  dest: string,
  keepGitDir: boolean,
  signal: AbortSignal,
): Promise<CloneRecord> {
  if (findBinary("git") == null) {
    throw new FreshCheckError(
      "the host needs git to clone the project: apt-get install -y git",
    );
  }
  const git = (args: string[], what: string) =>
    must("git", args, {
      timeoutMs: 120_000,
      signal,
      what,
      fix: `check that ${root} is a git repository with a commit`,
    });
  await git(["clone", "--quiet", "--no-hardlinks", root, dest], "git clone");
  const [commit, subject, status] = await Promise.all([
    git(["-C", dest, "rev-parse", "HEAD"], "git rev-parse"),
    git(["-C", dest, "log", "-1", "--format=%s"], "git log"),
    runToEnd("git", ["-C", root, "status", "--porcelain"], {
      timeoutMs: 60_000,
      signal,
    }),
  ]);
  if (!keepGitDir) {
    await Deno.remove(join(dest, ".git"), { recursive: true });
  }
  return {
    dir: dest,
    commit,
    subject,
    uncommitted: status.stdout.split("\n").filter((l) => l.trim() !== "")
      .map((l) => l.slice(3)),
    gitDir: keepGitDir,
  };
}

// ---------------------------------------------------------------------------
// The container

/** One command to run in a container. */
export interface ContainerRun {
  /** The container's name. */
  readonly name: string;
  /** The image. */
  readonly image: string;
  /** The clone's folder on the host, mounted at {@link CONTAINER_PROJECT}. */
  readonly projectDir: string;
  /** The home folder on the host, mounted at {@link CONTAINER_HOME}. */
  readonly homeDir: string;
  /** The user and group ids the command runs as. */
  readonly user: { readonly uid: number; readonly gid: number };
  /** Environment variables the command line sets (`TOTAL`, …). */
  readonly env: Readonly<Record<string, string>>;
  /** The command line, run by `sh -c` as a user's shell would. */
  readonly command: string;
}

/**
 * The arguments of `docker run` for one command: labelled, an init process
 * that reaps orphans (as a machine's init does), `--network host`, the
 * host's CA bundle read-only with the three variables that point Node.js,
 * Deno and OpenSSL at it, the home and the clone mounted, and the command
 * under `sh -c`.
 */
export function dockerRunArgs(run: ContainerRun): string[] {
  const env = {
    HOME: CONTAINER_HOME,
    USER: CONTAINER_USER.name,
    NODE_EXTRA_CA_CERTS: CA_BUNDLE,
    SSL_CERT_FILE: CA_BUNDLE,
    DENO_CERT: CA_BUNDLE,
    ...run.env,
  };
  return [
    "run",
    "--name",
    run.name,
    "--label",
    `${LABEL}=${LABEL_VALUE}`,
    "--init",
    "--network",
    "host",
    "--user",
    `${run.user.uid}:${run.user.gid}`,
    "--volume",
    `${CA_BUNDLE}:${CA_BUNDLE}:ro`,
    "--volume",
    `${run.homeDir}:${CONTAINER_HOME}`,
    "--volume",
    `${run.projectDir}:${CONTAINER_PROJECT}`,
    "--workdir",
    CONTAINER_PROJECT,
    ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
    run.image,
    "sh",
    "-c",
    run.command,
  ];
}

/** How a command in a container ended. */
export interface CommandOutcome {
  /** The command line as a user types it. */
  readonly command: string;
  /** Its exit code; `null` when it was stopped (time limit, Ctrl-C). */
  readonly code: number | null;
  /** Whether its time limit stopped it. */
  readonly timedOut: boolean;
  /** Whether a Ctrl-C stopped it. */
  readonly interrupted: boolean;
  /** Wall seconds. */
  readonly seconds: number;
  /** Its standard output. */
  readonly stdout: string;
  /** Its standard error. */
  readonly stderr: string;
}

/** Options for {@link ContainerRunner.run}. */
export interface RunOptions {
  /** The time limit, ms; the container is removed when it is reached. */
  readonly timeoutMs: number;
  /** Stops it (Ctrl-C). */
  readonly signal: AbortSignal;
  /** A file that receives its output as it comes. */
  readonly logPath: string;
  /** Also echo its output to this process's stdout and stderr. */
  readonly echo: boolean;
}

/** Removes a container, whatever state it is in; never throws. */
function removeContainerSync(name: string): void {
  try {
    new Deno.Command("docker", {
      args: ["rm", "--force", name],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
  } catch { /* docker gone: nothing to remove */ }
}

/**
 * Runs commands in containers of the check's image and removes each
 * container when its command ends, is stopped by its time limit or by
 * Ctrl-C; {@link removeAll} (and a forced exit, through the leftovers
 * registry) removes any still there.
 */
export class ContainerRunner {
  readonly #running = new Set<string>();
  readonly #prefix: string;
  #count = 0;

  /** @param prefix The containers' name prefix; this process's id in it. */
  constructor(prefix = `fqb-fresh-${Deno.pid}`) {
    this.#prefix = prefix;
  }

  /** A new container name. */
  nextName(): string {
    return `${this.#prefix}-${++this.#count}`;
  }

  /**
   * Runs one command in a new container (`docker run`) to its end, its time
   * limit or an abort, then removes the container.
   *
   * @param run What to run; its `name` from {@link nextName}.
   * @param options Time limit, abort signal, log file, echo.
   */
  async run(run: ContainerRun, options: RunOptions): Promise<CommandOutcome> {
    const started = performance.now();
    const command = withEnv(run.command, run.env);
    options.signal.throwIfAborted();
    this.#running.add(run.name);
    const forget = leftovers.trackCleanup(() => removeContainerSync(run.name));
    const log = await Deno.open(options.logPath, {
      write: true,
      create: true,
      truncate: true,
    });
    let timedOut = false;
    let interrupted = false;
    const stop = () => removeContainer(run.name);
    const timer = setTimeout(() => {
      timedOut = true;
      void stop();
    }, options.timeoutMs);
    const onAbort = () => {
      interrupted = true;
      void stop();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await writeAll(log, new TextEncoder().encode(`$ ${command}\n`));
      const child = spawnProcess("docker", {
        args: dockerRunArgs(run),
        stdin: "null",
      });
      const drain = async (
        stream: ReadableStream<Uint8Array>,
        echo: { write(p: Uint8Array): Promise<number> },
      ) => {
        const decoder = new TextDecoder();
        let text = "";
        for await (const chunk of stream) {
          text += decoder.decode(chunk, { stream: true });
          await writeAll(log, chunk).catch(() => {});
          if (options.echo) await writeAll(echo, chunk).catch(() => {});
        }
        return text + decoder.decode();
      };
      const [stdout, stderr, status] = await Promise.all([
        drain(child.stdout, Deno.stdout),
        drain(child.stderr, Deno.stderr),
        child.status,
      ]);
      const stopped = timedOut || interrupted;
      return {
        command,
        code: stopped ? null : status.code,
        timedOut,
        interrupted,
        seconds: (performance.now() - started) / 1000,
        stdout,
        stderr,
      };
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      await removeContainer(run.name);
      this.#running.delete(run.name);
      forget();
      log.close();
    }
  }

  /** Removes every container of this runner still there; never throws. */
  async removeAll(): Promise<void> {
    await Promise.all([...this.#running].map((n) => removeContainer(n)));
    this.#running.clear();
  }
}

/** `docker rm --force NAME`, bounded; never throws. */
async function removeContainer(name: string): Promise<void> {
  await runToEnd("docker", ["rm", "--force", name], { timeoutMs: 60_000 })
    .catch(() => {});
}

/**
 * Whether a container of the check's names (`fqb-fresh-PID-N`) belongs to
 * a check that no longer runs: its PID is gone, or the name says none.
 *
 * @param running Whether a process id runs (`/proc/PID` by default).
 */
export function isStaleContainer(
  name: string,
  running: (pid: number) => boolean = (pid) => {
    try {
      Deno.statSync(`/proc/${pid}`);
      return true;
    } catch {
      return false;
    }
  },
): boolean {
  const pid = /^fqb-fresh-(\d+)-\d+$/.exec(name)?.[1];
  return pid == null || !running(Number(pid));
}

/**
 * Removes the check's containers (labelled {@link LABEL}={@link LABEL_VALUE})
 * that a killed check left; those of a check still running stay.
 *
 * @returns Their names.
 */
export async function removeStaleContainers(): Promise<string[]> {
  const listed = await runToEnd("docker", [
    "ps",
    "--all",
    "--filter",
    `label=${LABEL}=${LABEL_VALUE}`,
    "--format",
    "{{.Names}}",
  ], { timeoutMs: 30_000 });
  const names = listed.stdout.split("\n").map((n) => n.trim())
    .filter((n) => n !== "" && isStaleContainer(n));
  for (const name of names) await removeContainer(name);
  return names;
}

// ---------------------------------------------------------------------------
// The caches

/** The sizes of the cache folders inside the container's home, in bytes. */
export type CacheSizes = Readonly<Record<string, number>>;

/** The folders of the home that hold downloads, as {@link cacheSizes} names them. */
export const CACHE_FOLDERS: readonly string[] = [
  ".npm",
  ".cache/deno",
  ".cache/fedify-queue-bench",
];

/** The bytes of every file under `path` (links not followed); 0 if absent. */
export async function folderBytes(path: string): Promise<number> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory) return info.size;
  let total = 0;
  for await (const entry of Deno.readDir(path)) {
    total += await folderBytes(join(path, entry.name));
  }
  return total;
}

/** The size of each of {@link CACHE_FOLDERS} under the home folder `home`. */
export async function cacheSizes(home: string): Promise<CacheSizes> {
  const sizes: Record<string, number> = {};
  for (const folder of CACHE_FOLDERS) {
    sizes[folder] = await folderBytes(join(home, folder));
  }
  return sizes;
}

// ---------------------------------------------------------------------------
// What `deno task test` printed

/** A test that failed, from the ERRORS section of its file's output. */
export interface FailedTest {
  /** Its name (`parent ... step` for a step). */
  readonly name: string;
  /** Its file, `./…`. */
  readonly file: string;
  /** Where it is declared: `./file.ts:LINE:COL`, or `uncaught error`. */
  readonly location: string;
  /** The first lines of its error, before the stack. */
  readonly error: readonly string[];
}

/** A test that was ignored. */
export interface IgnoredTest {
  /** Its name. */
  readonly name: string;
  /** Its file, `./…`. */
  readonly file: string;
  /**
   * The `ignore:` condition in its source, with the definitions of the
   * names it uses; `null` when it cannot be told (a name built at run time
   * that matches no declaration).
   */
  readonly condition: string | null;
}

/** What `deno task test` (lib/cli/run_tests.ts) printed, read. */
export interface TestReport {
  /** Its last summary line (`ok | 458 passed … (4m41s)`), or `null`. */
  readonly summary: string | null;
  /** Test files that ran (`running N tests from ./FILE`). */
  readonly files: number;
  /** The tests that failed, with their errors. */
  readonly failed: readonly FailedTest[];
  /** The tests that were ignored (the conditions filled by the caller). */
  readonly ignored: readonly IgnoredTest[];
  /** Its `failed:` list: each file with failures or without a summary. */
  readonly brokenFiles: readonly string[];
  /**
   * What the runner said of each queue server before the tests (its
   * `servers:` list: where each comes from, or why its tests are skipped).
   */
  readonly servers: readonly string[];
  /**
   * What the test files printed before their tests (`deno test`'s
   * pre-test output: why some are skipped), each once.
   */
  readonly notes: readonly string[];
}

/** A line that goes on the note above it: indented, or a tool's error. */
const CONTINUATION = /^(\s|npm (error|ERR!|warn) )/;

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const RUNNING = /^running \d+ tests? from (\.\/\S+)/;
const TEST_SUMMARY = /^(ok|FAILED) \| .*\d+ passed.*\| \d+ failed/;
const ERROR_HEADER = /^(.+) => (\.\/\S+?):(\d+):(\d+)$/;
const UNCAUGHT_HEADER = /^(\.\/\S+) \(uncaught error\)$/;

/**
 * How many lines of a failed test's error (before its stack) the report
 * keeps: all up to this many, else the first and the last half of it
 * (the message, and the assertion's values and source line).
 */
export const ERROR_LINES = 10;

/** An error's lines cut to {@link ERROR_LINES}, `…` between the halves. */
export function errorExcerpt(lines: readonly string[]): string[] {
  const kept: string[] = [];
  for (const line of lines) {
    if (/^\s+at /.test(line)) break;
    const blank = line.trim() === "";
    if (blank && (kept.length === 0 || kept.at(-1)!.trim() === "")) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept.at(-1)!.trim() === "") kept.pop();
  if (kept.length <= ERROR_LINES) return kept;
  const half = ERROR_LINES / 2;
  const head = kept.slice(0, half);
  const tail = kept.slice(-half);
  while (head.at(-1)?.trim() === "") head.pop();
  while (tail[0]?.trim() === "") tail.shift();
  return [...head, "…", ...tail];
}

/**
 * Reads the output of `deno task test`: the summary line, each file's
 * ignored tests (top level; steps are their test's), the failed tests with
 * the first lines of their errors (from each file's ` ERRORS ` section),
 * and the `failed:` list.  Colours must be off (`NO_COLOR`).
 */
export function parseTestOutput(output: string): TestReport {
  const lines = output.replace(ANSI, "").split("\n").map((l) =>
    l.replace(/\r$/, "")
  );
  let file = "";
  let files = 0;
  let inErrors = false;
  let summary: string | null = null;
  const ignored: IgnoredTest[] = [];
  const failed: FailedTest[] = [];
  const brokenFiles: string[] = [];
  let current: { header: Omit<FailedTest, "error">; lines: string[] } | null =
    null;
  const finish = () => {
    if (current == null) return;
    failed.push({ ...current.header, error: errorExcerpt(current.lines) });
    current = null;
  };
  let inFailedList = false;
  let inServers = false;
  const servers: string[] = [];
  const notes = new Map<string, string>();
  let note: string[] | null = null;
  for (const line of lines) {
    if (note != null) {
      if (/^-+ pre-test output end -+$/.test(line.trim())) {
        // One note a line, a tool's continuation lines (`npm error …`,
        // indented) with it; the same words from several files once
        // (temporary names aside).
        const split: string[][] = [];
        for (const l of note) {
          if (l.trim() === "") continue;
          if (split.length > 0 && CONTINUATION.test(l)) split.at(-1)!.push(l);
          else split.push([l]);
        }
        for (const lines of split) {
          const key = lines[0].replace(/\d+/g, "N");
          if (!notes.has(key)) notes.set(key, lines.join("\n"));
        }
        note = null;
      } else note.push(line);
      continue;
    }
    if (/^-+ pre-test output -+$/.test(line.trim())) {
      note = [];
      continue;
    }
    if (line === "servers:") {
      inServers = true;
      continue;
    }
    if (inServers) {
      if (/^ {2}\S/.test(line)) {
        servers.push(line.trim());
        continue;
      }
      if (/^running \d+ test files?/.test(line)) inServers = false;
    }
    const running = RUNNING.exec(line);
    if (running != null) {
      finish();
      inErrors = false;
      inFailedList = false;
      file = running[1];
      files++;
      continue;
    }
    if (TEST_SUMMARY.test(line)) {
      finish();
      inErrors = false;
      inFailedList = false;
      summary = line.trim();
      continue;
    }
    if (line.trim() === "ERRORS") {
      inErrors = true;
      continue;
    }
    if (line.trim() === "FAILURES") {
      finish();
      inErrors = false;
      continue;
    }
    if (line === "failed:") {
      inFailedList = true;
      continue;
    }
    if (inFailedList) {
      if (/^ {2}\S/.test(line)) {
        brokenFiles.push(line.trim());
        continue;
      }
      inFailedList = false;
    }
    if (inErrors) {
      const header = ERROR_HEADER.exec(line);
      const uncaught = UNCAUGHT_HEADER.exec(line);
      if (header != null) {
        finish();
        current = {
          header: {
            name: header[1],
            file: header[2],
            location: `${header[2]}:${header[3]}:${header[4]}`,
          },
          lines: [],
        };
      } else if (uncaught != null) {
        finish();
        current = {
          header: {
            name: "(uncaught error)",
            file: uncaught[1],
            location: "uncaught error",
          },
          lines: [],
        };
      } else current?.lines.push(line);
      continue;
    }
    const ignoredTest = /^(\S.*) \.\.\. ignored \(/.exec(line);
    if (ignoredTest != null) {
      ignored.push({ name: ignoredTest[1], file, condition: null });
    }
  }
  finish();
  return {
    summary,
    files,
    failed,
    ignored,
    brokenFiles,
    servers,
    notes: [...notes.values()],
  };
}

/** A `Deno.test` declaration found in a test file's source. */
export interface TestDeclaration {
  /** Its name's literal text, `…` where it is computed. */
  readonly name: string;
  /** Matches the names it gives at run time. */
  readonly pattern: RegExp;
  /** Its `ignore:` expression, whitespace collapsed; `null` if none. */
  readonly ignore: string | null;
}

const escapeRegExp = (text: string) =>
  text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const OPENERS = "([{";
const CLOSERS = ")]}";

/**
 * The index just past the string, template or comment starting at `i`, or
 * `i` when none starts there.  A template's `${…}` parts are skipped whole,
 * nested templates included.
 */
function skipLiteral(src: string, i: number): number {
  const c = src[i];
  if (c === "/" && src[i + 1] === "/") {
    const end = src.indexOf("\n", i);
    return end < 0 ? src.length : end;
  }
  if (c === "/" && src[i + 1] === "*") {
    const end = src.indexOf("*/", i + 2);
    return end < 0 ? src.length : end + 2;
  }
  if (c === '"' || c === "'") {
    for (let j = i + 1; j < src.length; j++) {
      if (src[j] === "\\") j++;
      else if (src[j] === c || src[j] === "\n") return j + 1;
    }
    return src.length;
  }
  if (c === "`") {
    for (let j = i + 1; j < src.length; j++) {
      if (src[j] === "\\") j++;
      else if (src[j] === "`") return j + 1;
      else if (src[j] === "$" && src[j + 1] === "{") {
        j = expressionEnd(src, j + 2);
      }
    }
    return src.length;
  }
  return i;
}

/**
 * The index of the `,` or closing bracket that ends the expression starting
 * at `i` (brackets, strings, templates and comments skipped whole).
 */
function expressionEnd(src: string, i: number): number {
  let depth = 0;
  for (let j = i; j < src.length;) {
    const skipped = skipLiteral(src, j);
    if (skipped !== j) {
      j = skipped;
      continue;
    }
    const c = src[j];
    if (OPENERS.includes(c)) depth++;
    else if (CLOSERS.includes(c)) {
      if (depth === 0) return j;
      depth--;
    } else if (c === "," && depth === 0) return j;
    j++;
  }
  return src.length;
}

/**
 * The top-level properties of the object literal whose `{` is at `open`:
 * each name and its expression's source.
 */
function objectProperties(src: string, open: number): Map<string, string> {
  const properties = new Map<string, string>();
  for (let j = open + 1; j < src.length;) {
    while (j < src.length) {
      const skipped = skipLiteral(src, j);
      if (skipped !== j && src[j] === "/") j = skipped;
      else if (/[\s,]/.test(src[j])) j++;
      else break;
    }
    if (src[j] === "}" || j >= src.length) break;
    const key = /^(\.\.\.|[A-Za-z_$][\w$]*)\s*:?\s*/.exec(
      src.slice(j, j + 200),
    );
    if (key == null) {
      j = expressionEnd(src, j) + 1;
      continue;
    }
    const valueStart = j + key[0].length;
    const valueEnd = expressionEnd(src, valueStart);
    if (key[1] !== "...") {
      properties.set(key[1], src.slice(valueStart, valueEnd));
    }
    if (src[valueEnd] !== ",") break;
    j = valueEnd + 1;
  }
  return properties;
}

/**
 * A pattern for the names a name expression gives: its string and
 * template literals' text kept, anything computed (`${…}`, a variable)
 * matching anything, `+` joining the parts.
 */
function namePattern(expression: string): { text: string; pattern: RegExp } {
  let regex = "";
  let text = "";
  const wild = () => {
    if (!regex.endsWith(".*")) regex += ".*";
    if (!text.endsWith("…")) text += "…";
  };
  for (let j = 0; j < expression.length;) {
    const c = expression[j];
    if (c === '"' || c === "'") {
      const end = skipLiteral(expression, j);
      const literal = expression.slice(j + 1, end - 1).replace(/\\(.)/g, "$1");
      regex += escapeRegExp(literal);
      text += literal;
      j = end;
    } else if (c === "`") {
      for (let k = j + 1; k < expression.length; k++) {
        if (expression[k] === "\\") {
          regex += escapeRegExp(expression[k + 1] ?? "");
          text += expression[k + 1] ?? "";
          k++;
        } else if (expression[k] === "`") {
          j = k + 1;
          break;
        } else if (expression[k] === "$" && expression[k + 1] === "{") {
          wild();
          k = expressionEnd(expression, k + 2);
        } else {
          regex += escapeRegExp(expression[k]);
          text += expression[k];
        }
        if (k >= expression.length - 1) j = expression.length;
      }
    } else if (/[\s+]/.test(c)) j++;
    else if (OPENERS.includes(c)) {
      // A computed part in brackets, `(x ? "a" : "b")`: anything.
      wild();
      j = expressionEnd(expression, j + 1) + 1;
    } else {
      wild();
      const end = expression.slice(j).search(/[\s+"'`([{]/);
      j = end < 0 ? expression.length : j + end;
    }
  }
  return { text, pattern: new RegExp(`^${regex}$`, "s") };
}

/**
 * The `Deno.test` declarations of a test file's source: each one's name
 * (`Deno.test("…"`, or `name:` in its options, string, template or a sum
 * of them) and its `ignore:` expression.  What the name computes (`${…}`,
 * a variable) matches anything.
 */
export function testDeclarations(source: string): TestDeclaration[] {
  const found: TestDeclaration[] = [];
  for (const match of source.matchAll(/\bDeno\.test\(\s*/g)) {
    const at = match.index! + match[0].length;
    let name: string;
    let ignore: string | null = null;
    if (source[at] === "{") {
      const properties = objectProperties(source, at);
      const expression = properties.get("name");
      if (expression == null) continue;
      name = expression;
      ignore = properties.get("ignore") ?? null;
    } else {
      name = source.slice(at, expressionEnd(source, at));
      const after = expressionEnd(source, at) + 1;
      const next = source.slice(after).match(/^\s*\{/);
      if (next != null) {
        ignore = objectProperties(source, after + next[0].length - 1)
          .get("ignore") ?? null;
      }
    }
    const { text, pattern } = namePattern(name.trim());
    found.push({
      name: text,
      pattern,
      ignore: ignore?.replace(/\s+/g, " ").trim() ?? null,
    });
  }
  return found;
}

/** Names an ignore condition may use that are no definition of the file's. */
const GLOBALS = new Set([
  "Deno",
  "null",
  "undefined",
  "true",
  "false",
  "await",
  "new",
  "typeof",
]);

/**
 * The condition that ignored the test `name` in a file's `source`: its
 * `ignore:` expression, followed by the definitions (`const X = …;`) of
 * the names in it that the file defines; `null` when no declaration
 * matches the name or the matching one has no `ignore:`.
 */
export function ignoreCondition(source: string, name: string): string | null {
  const declaration = testDeclarations(source)
    .find((d) => d.pattern.test(name));
  if (declaration?.ignore == null) return null;
  const definitions: string[] = [];
  const words = [...declaration.ignore.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)]
    .map((m) => m[0]).filter((w) => !GLOBALS.has(w));
  for (const word of new Set(words)) {
    const defined = new RegExp(
      `\\b(?:const|let) ${word}\\s*=\\s*([\\s\\S]*?);`,
    ).exec(source);
    if (defined != null) {
      const text = defined[1].replace(/\s+/g, " ").trim();
      definitions.push(
        `${word} = ${text.length > 160 ? text.slice(0, 157) + "…" : text}`,
      );
    }
  }
  return definitions.length === 0
    ? declaration.ignore
    : `${declaration.ignore} (${definitions.join("; ")})`;
}

// ---------------------------------------------------------------------------
// The bench's results

/** One row of the bench's results, as the report shows it. */
export interface BenchRow {
  /** The configuration's id, e.g. `redis-x4`. */
  readonly id: string;
  /** `ok`, `incomplete`, `failed` or `skipped`. */
  readonly status: string;
  /** Why it is not `ok`. */
  readonly reason: string | null;
  /** Distinct deliveries that arrived. */
  readonly delivered: number;
  /** Deliveries expected. */
  readonly expected: number;
  /** Arrivals beyond the first. */
  readonly duplicates: number;
  /** First send to last delivery, seconds; `null` unless `ok`. */
  readonly totalSeconds: number | null;
  /** The queue server's record, as the results file holds it. */
  readonly server: ResultsDocument["results"][number]["server"];
}

/** What the check reports of a results file. */
export interface BenchSummary {
  /** The results file, relative to the clone. */
  readonly file: string;
  /** `total × recipients` of the suite. */
  readonly size: string;
  /** The suite's wall time, seconds. */
  readonly suiteSeconds: number | null;
  /** The commit the results record (`environment.commit`), as recorded. */
  readonly commit: unknown;
  /** Why no commit is recorded (`environment.noCommitReason`), if it says. */
  readonly noCommitReason: string | null;
  /** Deno's version the bench ran on (`environment.runtime.deno`). */
  readonly deno: string | null;
  /** The OS the bench saw (`environment.os.name`). */
  readonly os: string | null;
  /** The queue servers' versions it recorded (`environment.servers`). */
  readonly servers: Readonly<Record<string, string>>;
  /** The command line it recorded (`environment.command`). */
  readonly recordedCommand: readonly string[] | null;
  /** Every row. */
  readonly rows: readonly BenchRow[];
}

/** The rows of a results document, for the report. */
export function summariseResults(
  document: ResultsDocument,
  file: string,
): BenchSummary {
  const environment = document.environment;
  return {
    file,
    size: `${document.params.total} × ${document.params.recipients}`,
    suiteSeconds: document.suiteSeconds ?? null,
    commit: document.environment?.commit ?? null,
    noCommitReason: environment?.noCommitReason ?? null,
    deno: environment?.runtime.deno ?? null,
    os: environment?.os.name ?? null,
    servers: environment?.servers ?? {},
    recordedCommand: environment?.command ?? null,
    rows: document.results.map((r) => ({
      id: r.id,
      status: r.status,
      reason: r.reason,
      delivered: r.delivered,
      expected: r.expected,
      duplicates: r.duplicates,
      totalSeconds: r.totalSeconds,
      server: r.server,
    })),
  };
}

/**
 * The results file a bench's output names (`Results: OUT/latest.json, …`),
 * relative to its working folder; `null` when it names none.
 */
export function resultsPathFromOutput(output: string): string | null {
  return /^Results: (\S+\.json),/m.exec(output)?.[1] ?? null;
}

// ---------------------------------------------------------------------------
// The report

/** One command's part of the report. */
export interface CommandReport {
  /** The command line as run. */
  readonly command: string;
  /** Its exit code; `null` when stopped. */
  readonly code: number | null;
  /** Whether its time limit stopped it. */
  readonly timedOut: boolean;
  /** Whether a Ctrl-C stopped it. */
  readonly interrupted: boolean;
  /** Wall seconds. */
  readonly seconds: number;
  /** Its whole output, in the report's folder. */
  readonly log: string;
  /** The home's cache folders' sizes before it ran, bytes. */
  readonly cacheBefore: CacheSizes;
  /** …and after. */
  readonly cacheAfter: CacheSizes;
}

/** The whole report (`fresh-check.json`). */
export interface FreshCheckReport {
  /** ISO 8601. */
  readonly startedAt: string;
  /** ISO 8601. */
  readonly finishedAt: string;
  /** Whether both commands exited 0. */
  readonly ok: boolean;
  /** The clone. */
  readonly clone: Omit<CloneRecord, "dir">;
  /** The image. */
  readonly image: ImageRecord;
  /** The Docker daemon's version. */
  readonly dockerVersion: string;
  /** The cache folder on the host, and whether it was emptied first. */
  readonly cache: { readonly dir: string; readonly cleaned: boolean };
  /** The user the container ran as. */
  readonly user: { readonly uid: number; readonly gid: number };
  /** The bench command; absent when not run (`--only test`). */
  readonly bench?: CommandReport & {
    /** Its results, or why they could not be read. */
    readonly results: BenchSummary | { readonly error: string };
  };
  /** The test command; absent when not run (`--only bench`). */
  readonly test?: CommandReport & { readonly report: TestReport };
}

/** Whether a command passed. */
export function commandPassed(c: Pick<CommandReport, "code">): boolean {
  return c.code === 0;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function commandHead(c: CommandReport): string[] {
  const how = c.timedOut
    ? "stopped by its time limit"
    : c.interrupted
    ? "stopped by Ctrl-C"
    : `exit code ${c.code}`;
  const caches = Object.keys(c.cacheAfter).map((k) =>
    `\`~/${k}\` ${mb(c.cacheBefore[k] ?? 0)} → ${mb(c.cacheAfter[k])}`
  ).join(", ");
  return [
    `\`${c.command}\`: **${
      commandPassed(c) ? "passed" : "FAILED"
    }** (${how}, ` +
    `${Math.round(c.seconds)} s; output in \`${c.log}\`)`,
    "",
    `Caches: ${caches}.`,
    "",
  ];
}

/** The report in Markdown (`fresh-check.md`). */
export function renderMarkdown(report: FreshCheckReport): string {
  const out: string[] = [
    "# Fresh check",
    "",
    `${report.ok ? "Passed" : "FAILED"}: the README's ${
      report.bench == null
        ? "test command"
        : report.test == null
        ? "bench command"
        : "two commands"
    } on a fresh ` +
    `Debian 12 (minbase) with Node.js ${report.image.nodeVersion} and npm ` +
    `${report.image.npmVersion} only, ${report.startedAt} to ` +
    `${report.finishedAt}.`,
    "",
    `- Commit: \`${
      report.clone.commit.slice(0, 12)
    }\` ${report.clone.subject}` +
    (report.clone.gitDir ? " (a clone, with its .git)" : " (without .git)"),
  ];
  if (report.clone.uncommitted.length > 0) {
    out.push(
      `- Not checked: ${report.clone.uncommitted.length} uncommitted ` +
        `change${report.clone.uncommitted.length === 1 ? "" : "s"} of the ` +
        `working tree (${report.clone.uncommitted.slice(0, 8).join(", ")}${
          report.clone.uncommitted.length > 8 ? ", …" : ""
        })`,
    );
  }
  out.push(
    `- Image: \`${report.image.name}\` (${report.image.how}, ` +
      `${Math.round(report.image.seconds)} s; root file system kept in ` +
      `\`${report.image.rootfs}\`), Docker ${report.dockerVersion}`,
    `- Cache: \`${report.cache.dir}\` (${
      report.cache.cleaned ? "emptied first" : "reused"
    }); user ${report.user.uid}:${report.user.gid}`,
    "",
  );
  if (report.bench != null) {
    const bench = report.bench;
    out.push("## Bench", "", ...commandHead(bench));
    if ("error" in bench.results) {
      out.push(`No results: ${bench.results.error}`, "");
    } else {
      const r = bench.results;
      out.push(
        `Results: \`${r.file}\` (${r.size}, ${
          r.suiteSeconds == null ? "?" : Math.round(r.suiteSeconds)
        } s, Deno ${r.deno ?? "?"}, ${r.os ?? "OS ?"}); commit recorded: \`${
          JSON.stringify(r.commit)
        }\`${
          r.noCommitReason == null ? "" : ` (${r.noCommitReason})`
        }; servers recorded: \`${JSON.stringify(r.servers)}\``,
        "",
        "| Row | Status | Delivered | Total | Server | Reason |",
        "| --- | --- | ---: | ---: | --- | --- |",
        ...r.rows.map((row) =>
          `| ${row.id} | ${row.status} | ${row.delivered} of ${row.expected}${
            row.duplicates > 0 ? ` (+${row.duplicates})` : ""
          } | ${
            row.totalSeconds == null ? "—" : `${row.totalSeconds.toFixed(1)} s`
          } | ${
            row.server == null
              ? "null"
              : `\`${cell(JSON.stringify(row.server))}\``
          } | ${cell(row.reason ?? "")} |`
        ),
        "",
      );
    }
  }
  if (report.test != null) {
    const test = report.test;
    const t = test.report;
    out.push(
      "## Tests",
      "",
      ...commandHead(test),
      `Summary: \`${
        t.summary ?? "none (the run ended before it)"
      }\`, ${t.files} files`,
      "",
    );
    if (t.servers.length > 0) {
      out.push(
        "Servers, as the runner said before the tests:",
        "",
        ...t.servers.map((line) => `- ${line}`),
        "",
      );
    }
    if (t.notes.length > 0) {
      out.push(
        "What the test files said before their tests (each once):",
        "",
        ...t.notes.map((n) =>
          n.includes("\n")
            ? `- ${n.split("\n")[0]}\n\n  \`\`\`\n${
              n.split("\n").slice(1).map((l) => `  ${l}`).join("\n")
            }\n  \`\`\``
            : `- ${n}`
        ),
        "",
      );
    }
    if (t.brokenFiles.length > 0) {
      out.push(
        "Files with failures:",
        "",
        ...t.brokenFiles.map((f) => `- ${f}`),
        "",
      );
    }
    if (t.failed.length > 0) {
      out.push(`### Failed (${t.failed.length})`, "");
      for (const f of t.failed) {
        out.push(
          `- **${f.name}** (${f.location})`,
          "",
          "  ```",
          ...f.error.map((l) => `  ${l}`),
          "  ```",
          "",
        );
      }
    }
    if (t.ignored.length > 0) {
      out.push(
        `### Ignored (${t.ignored.length})`,
        "",
        "| Test | File | Ignored when |",
        "| --- | --- | --- |",
        ...t.ignored.map((i) =>
          `| ${cell(i.name)} | ${i.file} | ${
            i.condition == null ? "not told" : `\`${cell(i.condition)}\``
          } |`
        ),
        "",
      );
    }
  }
  return out.join("\n");
}
