/**
 * `deno task fresh-check`: checks the README's two commands on a fresh
 * machine.  It builds (once, then reuses) a container image of Debian 12
 * (bookworm, `debootstrap --variant=minbase`) holding the host's Node.js and
 * npm and nothing else, clones this project at its HEAD (with its `.git`,
 * as a user's clone has; the container has no git binary), and runs in a
 * container, as a user who is not root, with `--network host` and the
 * host's certificate bundle, the README's first-screen commands: the bench
 * at a small size (`TOTAL=20 RECIPIENTS=10`) and then the tests.  It reports
 * the bench's rows (status, reason, server record), the tests' summary
 * line, each failed test with the first lines of its error, and each
 * ignored test with the condition in its source that ignored it, in
 * `OUT/fresh-check.json` and `OUT/fresh-check.md` (default
 * `runs/fresh-check/`), beside both commands' whole output.
 *
 * The logic is in `lib/fresh/` (its face: `lib/fresh/mod.ts`).  The
 * image's root file system and the container user's home (npm's, Deno's
 * and the bench's caches, kept between checks so that a second check shows
 * their reuse) live in the cache folder (`--cache`; `fresh-check/` in the
 * bench's cache folder by default).  Every container (labelled
 * `fedify-queue-bench=fresh-check`) and the clone are removed on success,
 * failure and Ctrl-C.  It needs root to build the image (debootstrap), a
 * running Docker daemon, and git.
 *
 * Exit codes: 0 both commands passed; 1 a command failed or was stopped by
 * its time limit; 2 a bad option, or the check could not be set up (the
 * message names the fix); 130 Ctrl-C.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDir } from "../system/cache_dir.ts";
import { leftovers } from "../system/leftovers.ts";
import { runToEnd } from "../system/run_to_end.ts";
import {
  cacheSizes,
  cloneProject,
  type CloneRecord,
  type CommandOutcome,
  commandPassed,
  type CommandReport,
  CONTAINER_USER,
  ContainerRunner,
  dockerVersion,
  ensureImage,
  fetchedServers,
  FreshCheckError,
  type FreshCheckReport,
  type ImageRecord,
  parseTestOutput,
  readBenchResults,
  type ReadmeCommands,
  readmeCommands,
  removeStaleContainers,
  renderMarkdown,
  withIgnoreConditions,
} from "../fresh/mod.ts";
import { Interrupter } from "./interrupt.ts";
import {
  FRESH_CHECK,
  parseCommand,
  renderHelp,
  UsageError,
} from "../params/mod.ts";

/** The options of `deno task fresh-check`. */
export interface FreshCheckOptions {
  /** The report's folder. */
  readonly out: string;
  /** The cache folder: the root file system and the container's home. */
  readonly cache: string;
  /** Make the root file system and the image again. */
  readonly rebuild: boolean;
  /** Empty the container's home (npm, Deno and bench caches) first. */
  readonly cleanCache: boolean;
  /** `TOTAL` of the bench command. */
  readonly total: number;
  /** `RECIPIENTS` of the bench command. */
  readonly recipients: number;
  /** The bench command's time limit, minutes. */
  readonly benchTimeoutMinutes: number;
  /** The test command's time limit, minutes. */
  readonly testTimeoutMinutes: number;
  /** Which commands to run. */
  readonly only: "bench" | "test" | null;
  /** The Debian mirror for debootstrap; apt's own by default. */
  readonly mirror?: string;
  /** Keep the clone's `.git` (a clone), or drop it (an archive). */
  readonly gitDir: boolean;
  /** Echo the commands' output to the terminal. */
  readonly echo: boolean;
}

/** The help text. */
export const HELP: string = renderHelp(FRESH_CHECK);

/**
 * Parses the command line.
 *
 * @returns The options, or `null` for `--help`.
 * @throws {UsageError} On an option it does not take or a bad value.
 */
export function parseFreshCheckArgs(
  args: readonly string[],
): FreshCheckOptions | null {
  const { values } = parseCommand(FRESH_CHECK, args, {});
  if (values.help) return null;
  const { help: _, cache, only, mirror, ...rest } = values;
  return {
    ...rest,
    cache: resolve(cache ?? cacheDir("fresh-check")),
    only,
    ...(mirror == null ? {} : { mirror }),
  };
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const say = (line: string) => {
  try {
    console.error(`fresh-check: ${line}`);
  } catch { /* no terminal */ }
};

/** What the host gave the check: Docker, the user, its home, the image. */
interface Host {
  /** The Docker daemon's version. */
  readonly docker: string;
  /** The user and group ids the commands run as. */
  readonly user: { readonly uid: number; readonly gid: number };
  /** The container user's home on the host, in the cache folder. */
  readonly home: string;
  /** The image the commands run in. */
  readonly image: ImageRecord;
}

/** What each command of the check runs with. */
interface CommandContext {
  readonly options: FreshCheckOptions;
  readonly runner: ContainerRunner;
  readonly signal: AbortSignal;
  readonly host: Host;
  readonly cloneDir: string;
  readonly commands: ReadmeCommands;
}

/**
 * Readies the host: Docker answers, a killed check's containers are gone,
 * the report's and the cache's folders exist, the home is there (emptied
 * with `--clean-cache`), and the image is built or reused.
 */
async function prepareHost(
  options: FreshCheckOptions,
  signal: AbortSignal,
): Promise<Host> {
  const docker = await dockerVersion(signal);
  const stale = await removeStaleContainers();
  if (stale.length > 0) {
    say(`removed containers a killed check left: ${stale.join(", ")}`);
  }
  await Deno.mkdir(options.out, { recursive: true });
  await Deno.mkdir(options.cache, { recursive: true });
  const user = Deno.uid() === 0
    ? { uid: CONTAINER_USER.uid, gid: CONTAINER_USER.gid }
    : { uid: Deno.uid()!, gid: Deno.gid()! };
  const home = join(options.cache, "home");
  if (options.cleanCache) {
    say(`--clean-cache: emptying ${home}`);
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
  await Deno.mkdir(home, { recursive: true });
  const image = await ensureImage({
    cacheDir: options.cache,
    rebuild: options.rebuild,
    ...(options.mirror == null ? {} : { mirror: options.mirror }),
    timeoutMs: 20 * 60_000,
    signal,
    log: say,
  });
  say(`image ${image.name} (${image.how})`);
  return { docker, user, home, image };
}

/**
 * Clones the project into `cloneDir` and, when the check runs as root,
 * gives the clone and the home to the container's user.
 */
async function cloneFor(
  host: Host,
  cloneDir: string,
  options: FreshCheckOptions,
  signal: AbortSignal,
): Promise<CloneRecord> {
  const clone = await cloneProject(ROOT, cloneDir, options.gitDir, signal);
  say(
    `cloned ${clone.commit.slice(0, 12)} ${clone.subject}` +
      (clone.uncommitted.length > 0
        ? ` (${clone.uncommitted.length} uncommitted changes are not part of the check)`
        : ""),
  );
  if (Deno.uid() === 0) {
    const { uid, gid } = host.user;
    for (const dir of [host.home, cloneDir]) {
      await runToEnd("chown", ["-R", `${uid}:${gid}`, dir], {
        timeoutMs: 120_000,
        signal,
      });
    }
  }
  return clone;
}

/** Runs one of the README's commands in a container, with the caches' sizes. */
async function runCommand(
  context: CommandContext,
  which: "bench" | "test",
  env: Record<string, string>,
  timeoutMinutes: number,
): Promise<{ outcome: CommandOutcome; report: CommandReport }> {
  const { options, runner, host, commands } = context;
  const cacheBefore = await cacheSizes(host.home);
  const log = join(options.out, `${which}.log`);
  say(
    `running ${Object.entries(env).map(([k, v]) => `${k}=${v} `).join("")}${
      commands[which]
    } (at most ${timeoutMinutes} min; output in ${log})`,
  );
  const outcome = await runner.run({
    name: runner.nextName(),
    image: host.image.name,
    projectDir: context.cloneDir,
    homeDir: host.home,
    user: host.user,
    env,
    command: commands[which],
  }, {
    timeoutMs: timeoutMinutes * 60_000,
    signal: context.signal,
    logPath: log,
    echo: options.echo,
  });
  const report: CommandReport = {
    command: outcome.command,
    code: outcome.code,
    timedOut: outcome.timedOut,
    interrupted: outcome.interrupted,
    seconds: outcome.seconds,
    log: relative(options.out, log) || log,
    cacheBefore,
    cacheAfter: await cacheSizes(host.home),
  };
  say(
    `${outcome.command}: ${
      outcome.timedOut
        ? "stopped by its time limit"
        : outcome.interrupted
        ? "stopped by Ctrl-C"
        : `exit code ${outcome.code}`
    } after ${Math.round(outcome.seconds)} s`,
  );
  return { outcome, report };
}

/**
 * The bench (unless `--only test`), then the tests (unless `--only bench`
 * or a Ctrl-C stopped the bench), each with what its output says.
 */
async function runCommands(
  context: CommandContext,
): Promise<Pick<FreshCheckReport, "bench" | "test">> {
  const { options, cloneDir } = context;
  let bench: FreshCheckReport["bench"];
  let test: FreshCheckReport["test"];
  if (options.only !== "test") {
    const { outcome, report } = await runCommand(context, "bench", {
      TOTAL: String(options.total),
      RECIPIENTS: String(options.recipients),
    }, options.benchTimeoutMinutes);
    bench = {
      ...report,
      results: await readBenchResults(cloneDir, outcome.stdout, options.out),
      fetched: fetchedServers(outcome.stderr),
    };
  }
  if (options.only !== "bench" && !context.signal.aborted) {
    const { outcome, report } = await runCommand(
      context,
      "test",
      {},
      options.testTimeoutMinutes,
    );
    test = {
      ...report,
      report: await withIgnoreConditions(
        cloneDir,
        parseTestOutput(outcome.stdout + "\n" + outcome.stderr),
      ),
    };
  }
  return { bench, test };
}

/** The report of a check that ran its commands. */
function checkReport(
  startedAt: string,
  options: FreshCheckOptions,
  host: Host,
  clone: CloneRecord,
  { bench, test }: Pick<FreshCheckReport, "bench" | "test">,
): FreshCheckReport {
  const ran = [bench, test].filter((c) => c != null);
  return {
    startedAt,
    finishedAt: new Date().toISOString(),
    ok: ran.length > 0 && ran.every(commandPassed),
    clone: {
      commit: clone.commit,
      subject: clone.subject,
      uncommitted: clone.uncommitted,
      gitDir: clone.gitDir,
    },
    image: host.image,
    dockerVersion: host.docker,
    cache: { dir: options.cache, cleaned: options.cleanCache },
    user: host.user,
    ...(bench == null ? {} : { bench }),
    ...(test == null ? {} : { test }),
  };
}

/** Writes `fresh-check.json` and `fresh-check.md`, and prints the latter. */
async function writeReport(
  out: string,
  report: FreshCheckReport,
): Promise<void> {
  const markdown = renderMarkdown(report);
  await Deno.writeTextFile(
    join(out, "fresh-check.json"),
    JSON.stringify(report, null, 2) + "\n",
  );
  await Deno.writeTextFile(join(out, "fresh-check.md"), markdown);
  console.log("\n" + markdown);
  say(`report: ${join(out, "fresh-check.md")}, fresh-check.json`);
}

/**
 * Runs the check.
 *
 * @returns The exit code.
 */
export async function main(args: readonly string[]): Promise<number> {
  let options: FreshCheckOptions | null;
  try {
    options = parseFreshCheckArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    return 2;
  }
  if (options == null) {
    console.log(HELP);
    return 0;
  }
  const startedAt = new Date().toISOString();
  const runner = new ContainerRunner();
  const interrupter = new Interrupter({
    force: () => {
      leftovers.forceCleanup();
      Deno.exit(130);
    },
  });
  interrupter.install();
  const signal = interrupter.signal;
  let tempDir: string | undefined;
  try {
    const host = await prepareHost(options, signal);
    tempDir = await leftovers.makeTempDir("fresh");
    const cloneDir = join(tempDir, "fedify-queue-bench");
    const clone = await cloneFor(host, cloneDir, options, signal);
    const commands = readmeCommands(
      await Deno.readTextFile(join(cloneDir, "README.md")),
    );
    const ran = await runCommands({
      options,
      runner,
      signal,
      host,
      cloneDir,
      commands,
    });
    const report = checkReport(startedAt, options, host, clone, ran);
    await writeReport(options.out, report);
    if (interrupter.interrupted) return 130;
    return report.ok ? 0 : 1;
  } catch (error) {
    if (interrupter.interrupted) {
      say("interrupted");
      return 130;
    }
    if (error instanceof FreshCheckError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    await runner.removeAll();
    if (tempDir != null) await leftovers.removeTempDir(tempDir);
    interrupter.uninstall();
  }
}

if (import.meta.main) {
  globalThis.addEventListener("unload", () => leftovers.forceCleanup());
  Deno.exit(await main(Deno.args));
}
