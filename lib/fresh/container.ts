/**
 * The containers the commands run in: whether the Docker daemon answers
 * ({@link dockerVersion}), the `docker run` arguments of one command
 * ({@link dockerRunArgs}), {@link ContainerRunner}, which runs a command to
 * its end, its time limit or Ctrl-C and removes its container on every way
 * out, and the removal of the containers a killed check left
 * ({@link removeStaleContainers}).
 *
 * @module
 */
import {
  DockerError,
  dockerVersion as systemDockerVersion,
} from "../system/docker.ts";
import { leftovers } from "../system/leftovers.ts";
import { writeAll } from "../system/logged_process.ts";
import { runToEnd } from "../system/run_to_end.ts";
import { spawnProcess } from "../system/spawn.ts";
import { FreshCheckError } from "./error.ts";
import {
  CA_BUNDLE,
  CONTAINER_HOME,
  CONTAINER_PROJECT,
  CONTAINER_USER,
  LABEL,
  LABEL_VALUE,
} from "./layout.ts";
import { withEnv } from "./readme.ts";

/**
 * Whether the Docker daemon answers, and its version.
 *
 * @param signal Stops the question.
 * @throws {FreshCheckError} When it does not, saying how to start it.
 */
export async function dockerVersion(signal?: AbortSignal): Promise<string> {
  try {
    return await systemDockerVersion(signal);
  } catch (error) {
    if (!(error instanceof DockerError)) throw error;
    throw new FreshCheckError(
      `${error.message} (the check uses --network host)`,
    );
  }
}

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

/** `docker rm --force NAME`, bounded; never throws. */
async function removeContainer(name: string): Promise<void> {
  await runToEnd("docker", ["rm", "--force", name], { timeoutMs: 60_000 })
    .catch(() => {});
}

/**
 * A stream's text, each chunk written to `log` as it comes and, when
 * `echo` is given, to it too; a write that fails is skipped.
 */
async function drain(
  stream: ReadableStream<Uint8Array>,
  log: Deno.FsFile,
  echo: { write(p: Uint8Array): Promise<number> } | null,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    await writeAll(log, chunk).catch(() => {});
    if (echo != null) await writeAll(echo, chunk).catch(() => {});
  }
  return text + decoder.decode();
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
      const [stdout, stderr, status] = await Promise.all([
        drain(child.stdout, log, options.echo ? Deno.stdout : null),
        drain(child.stderr, log, options.echo ? Deno.stderr : null),
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

/**
 * Whether a container of the check's names (`fqb-fresh-PID-N`) belongs to
 * a check that no longer runs: its PID is gone, or the name says none.
 *
 * @param name The container's name.
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
