/**
 * The Docker engine as the bench uses it, shared by the fresh-machine check
 * (`lib/fresh/`), the agent image (`lib/deploy/`) and the swarm of agents
 * (`lib/agent/`): the label every object the bench makes carries
 * ({@link DOCKER_LABEL}), whether the daemon answers
 * ({@link dockerVersion}), a short command that has to succeed
 * ({@link docker}), one that must never throw ({@link dockerQuiet},
 * {@link dockerSync}), and `tar | docker import` of a folder
 * ({@link dockerImport}).
 *
 * @module
 */
import { outputTail, runToEnd } from "./run_to_end.ts";
import { spawnProcess } from "./spawn.ts";

/** The label key on every image, container, service and network made. */
export const DOCKER_LABEL = "fedify-queue-bench";

/** How to start the daemon without touching the host's firewall. */
export const START_DOCKERD =
  "start it as root in the background, e.g. `dockerd --iptables=false " +
  "--ip-masq=false --bridge=none >/tmp/dockerd.log 2>&1 &` (no firewall " +
  "changes, no default bridge), and stop it afterwards with " +
  "`kill $(cat /var/run/docker.pid)`";

/** A docker command failed; the message names the cause and the fix. */
export class DockerError extends Error {
  /** @param message Names the cause and the fix. */
  constructor(message: string) {
    super(message);
    this.name = "DockerError";
  }
}

/** Options for {@link docker}. */
export interface DockerOptions {
  /** How long it may take, in ms (30 s by default). */
  readonly timeoutMs?: number;
  /** Kills it; its reason is thrown as it is. */
  readonly signal?: AbortSignal;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
  /** What failed, the error's first words. */
  readonly what?: string;
  /** What to do about it, the error's last words. */
  readonly fix?: string;
}

/**
 * Runs `docker ARGS` to its end and hands back its standard output,
 * trimmed.
 *
 * @throws {DockerError} When docker is missing, exits with a code other
 *   than 0 or takes longer than its time limit; the message names the
 *   command, its last lines of output and the fix.
 */
export async function docker(
  args: readonly string[],
  options: DockerOptions = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const what = options.what ?? `docker ${args.slice(0, 2).join(" ")} failed`;
  let result;
  try {
    result = await runToEnd("docker", args, { ...options, timeoutMs });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new DockerError(
      `${what}: docker cannot run (${
        error instanceof Error ? error.message : String(error)
      }): install it as root with \`apt-get install -y docker.io\``,
    );
  }
  if (result.code !== 0) {
    throw new DockerError(
      `${what}: docker ${args.join(" ")} ${
        result.code == null
          ? `took longer than ${Math.round(timeoutMs / 1000)} s`
          : `exited with code ${result.code}`
      }:\n${outputTail(result)}${options.fix ? `\n${options.fix}` : ""}`,
    );
  }
  return result.stdout.trim();
}

/** `docker ARGS`, bounded; its output, or `null` when it failed. */
export async function dockerQuiet(
  args: readonly string[],
  timeoutMs = 60_000,
): Promise<string | null> {
  try {
    const result = await runToEnd("docker", args, { timeoutMs });
    return result.code === 0 ? result.stdout.trim() : null;
  } catch {
    return null;
  }
}

/**
 * `docker ARGS`, synchronous, for a forced exit's cleanup; never throws.
 *
 * @returns Its output, or `null` when it failed.
 */
export function dockerSync(args: readonly string[]): string | null {
  try {
    const out = new Deno.Command("docker", {
      args: [...args],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

/**
 * Whether the Docker daemon answers, and its version.
 *
 * @param signal Stops the question.
 * @throws {DockerError} When docker is missing or the daemon does not
 *   answer, saying how to install or start it.
 */
export async function dockerVersion(signal?: AbortSignal): Promise<string> {
  return await docker(["version", "--format", "{{.Server.Version}}"], {
    signal,
    what: "the Docker daemon does not answer",
    fix: START_DOCKERD,
  });
}

/**
 * Why Docker cannot be used here (not root, no docker, no daemon), naming
 * the fix, or `null` when it can: for tests that skip without it.
 */
export async function dockerUnavailable(): Promise<string | null> {
  if (Deno.uid?.() !== 0) return "not root: run the tests as root";
  try {
    await dockerVersion();
    return null;
  } catch (error) {
    return error instanceof Error
      ? error.message.split("\n")[0] +
        `; ${START_DOCKERD}`
      : String(error);
  }
}

/** Options for {@link dockerImport}. */
export interface ImportOptions {
  /** `--change` instructions (`LABEL …`, `ENV …`, `ENTRYPOINT …`). */
  readonly changes: readonly string[];
  /** The time limit, ms. */
  readonly timeoutMs: number;
  /** Stops it. */
  readonly signal: AbortSignal;
}

/**
 * `tar -C dir -c . | docker import --change … - name`: an image of a
 * folder, without a registry.
 *
 * @throws {DockerError} When tar or docker fails, with their last lines.
 */
export async function dockerImport(
  dir: string,
  name: string,
  options: ImportOptions,
): Promise<void> {
  const tar = spawnProcess("tar", {
    args: ["-C", dir, "-c", "."],
    stdin: "null",
  });
  const importer = spawnProcess("docker", {
    args: [
      "import",
      ...options.changes.flatMap((change) => ["--change", change]),
      "-",
      name,
    ],
    stdin: "piped",
  });
  const kill = () => {
    for (const child of [tar, importer]) {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
    }
  };
  const timer = setTimeout(kill, options.timeoutMs);
  options.signal.addEventListener("abort", kill, { once: true });
  try {
    const [tarErr, out, err, tarStatus, status] = await Promise.all([
      new Response(tar.stderr).text(),
      new Response(importer.stdout).text(),
      new Response(importer.stderr).text(),
      tar.stdout.pipeTo(importer.stdin).then(
        () => tar.status,
        () => tar.status,
      ),
      importer.status,
    ]);
    options.signal.throwIfAborted();
    if (!tarStatus.success || !status.success) {
      throw new DockerError(
        `importing the image ${name} failed (tar exit ${tarStatus.code}, ` +
          `docker import exit ${status.code}):\n${
            (tarErr + err + out).trim().split("\n").slice(-8).join("\n")
          }`,
      );
    }
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", kill);
  }
}
