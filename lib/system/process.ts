/**
 * Child processes of the runner (inbox, sender, worker): spawning a Deno
 * script with a JSON spec, reading its line messages (typed by
 * `lib/ipc/messages.ts`), and stopping it for sure.
 *
 * @module
 */
import {
  type ChildMessage,
  type ChildMessageType,
  type Command,
  type MessageOf,
  ofType,
  parseMessage,
} from "../ipc/messages.ts";
import type { RemoteProbe } from "./procstat.ts";
import { spawnProcess } from "./spawn.ts";

const CONFIG = new URL("../../deno.json", import.meta.url);

/**
 * How a script of this project is started on a runtime: the executable,
 * the arguments that run `script` with the spec `spec` (a JSON text, the
 * script's first argument), and extra environment variables.  Deno's is
 * {@link DENO_LAUNCHER}; `lib/services/app_runtimes.ts` makes Node.js's and
 * Bun's (`--runtime`).
 */
export interface Launcher {
  /** The executable. */
  readonly command: string;
  /** The arguments that run `script` with `spec`. */
  args(script: string, spec: string): string[];
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Starts `script` with `spec` somewhere else than in a process of this
   * host (an agent's, `lib/agent/`), speaking the same line protocol;
   * {@link command} and {@link args} start it here when absent.
   */
  start?(script: URL, spec: string, role: string): Promise<ChildHandle>;
}

/**
 * What {@link Child} needs of a running process, as `Deno.ChildProcess`
 * gives it: its id, its three streams, its exit and a way to kill it.  A
 * process an agent started on another host gives the same (`lib/agent/`),
 * with a {@link RemoteProbe} that reads it there.
 */
export interface ChildHandle {
  /** Its process id, on the host it runs on. */
  readonly pid: number;
  /** Its stdin: command lines. */
  readonly stdin: WritableStream<Uint8Array>;
  /** Its stdout: message lines. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Its stderr: log lines. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Its exit. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Sends it a signal. */
  kill(signal?: Deno.Signal): void;
  /** Reads it where it runs, when that is not this host. */
  readonly remoteProbe?: RemoteProbe;
}

/**
 * Runs a script with Deno, this repository's config and all permissions.
 */
export const DENO_LAUNCHER: Launcher = {
  get command() {
    return Deno.execPath();
  },
  args: (script, spec) => [
    "run",
    "--allow-all",
    "--unstable-kv",
    "--no-prompt",
    "--config",
    CONFIG.pathname,
    script,
    spec,
  ],
};

/** Options for {@link Child.spawn}. */
export interface ChildOptions {
  /** What the process does, e.g. `"sender"`; used in messages. */
  readonly role: string;
  /** The script to run. */
  readonly script: URL;
  /** JSON-serializable spec, passed as the first argument. */
  readonly spec: unknown;
  /** How to start it; {@link DENO_LAUNCHER} by default. */
  readonly launcher?: Launcher;
}

/** A running child process, on this host or an agent's. */
export class Child {
  /** What the process does. */
  readonly role: string;
  /** Its process id. */
  readonly pid: number;
  /** Resolves with the exit status once the process has exited. */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Reads it where it runs, when that is not this host. */
  readonly remoteProbe: RemoteProbe | undefined;
  readonly #process: ChildHandle;
  readonly #messages: ChildMessage[] = [];
  readonly #listeners = new Set<() => void>();
  readonly #stderr: string[] = [];
  #status: Deno.CommandStatus | null = null;
  #stdinClosed = false;

  private constructor(role: string, process: ChildHandle) {
    this.role = role;
    this.#process = process;
    this.pid = process.pid;
    this.remoteProbe = process.remoteProbe;
    const stdout = readLines(process.stdout, (line) => {
      const message = parseMessage(line);
      if (message == null) {
        this.#remember(line);
        return;
      }
      this.#messages.push(message);
      this.#notify();
    });
    const stderr = readLines(process.stderr, (l) => this.#remember(l));
    this.exited = Promise.all([process.status, stdout, stderr]).then(
      ([status]) => {
        this.#status = status;
        this.#notify();
        return status;
      },
    );
  }

  /**
   * Starts `options.script` with its launcher (Deno, this repository's
   * config and all permissions, by default), in its own process group: a
   * Ctrl-C in the terminal reaches the bench, which stops its children
   * itself.
   */
  static spawn(options: ChildOptions): Child {
    const launcher = options.launcher ?? DENO_LAUNCHER;
    if (launcher.start != null) {
      throw new TypeError(
        `the ${options.role}'s launcher starts it elsewhere: use Child.launch`,
      );
    }
    const spawned = spawnProcess(launcher.command, {
      args: launcher.args(
        options.script.pathname,
        JSON.stringify(options.spec),
      ),
      stdin: "piped",
      env: { ...launcher.env, NO_COLOR: "1" },
    });
    return new Child(options.role, spawned);
  }

  /**
   * Starts `options.script` where its launcher starts it: on an agent's
   * host when the launcher has a `start`, here as {@link spawn} does
   * otherwise.
   */
  static async launch(options: ChildOptions): Promise<Child> {
    const start = options.launcher?.start;
    if (start == null) return Child.spawn(options);
    const spec = JSON.stringify(options.spec);
    return new Child(
      options.role,
      await start.call(options.launcher, options.script, spec, options.role),
    );
  }

  /** Sends one command line to the process's stdin. */
  async send(command: Command): Promise<void> {
    const writer = this.#process.stdin.getWriter();
    try {
      await writer.write(new TextEncoder().encode(command + "\n"));
    } finally {
      writer.releaseLock();
    }
  }

  /** Every message of `type` received so far, in order. */
  all<T extends ChildMessageType>(type: T): MessageOf<T>[] {
    return this.#messages.filter(ofType(type));
  }

  /** The exit status, or `null` while running. */
  get status(): Deno.CommandStatus | null {
    return this.#status;
  }

  /** The latest message of `type`, if one arrived. */
  latest<T extends ChildMessageType>(type: T): MessageOf<T> | undefined {
    return this.#messages.findLast(ofType(type));
  }

  /**
   * Waits for a message of `type`.  Rejects if the process reports an error,
   * exits first, the timeout passes or `signal` aborts.
   */
  waitFor<T extends ChildMessageType>(
    type: T,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<MessageOf<T>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.latest(type);
        const error = this.latest("error");
        if (found != null) finish(() => resolve(found));
        else if (error != null) {
          finish(() =>
            reject(new Error(`${this.role} failed: ${error.message}`))
          );
        } else if (this.#status != null) {
          finish(() => reject(new Error(this.describeExit())));
        } else if (signal?.aborted) {
          finish(() => reject(signal.reason));
        }
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new Error(
                `${this.role} did not report "${type}" within ${
                  timeoutMs / 1000
                } s${this.#tail()}`,
              ),
            )
          ),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        signal?.removeEventListener("abort", check);
        settle();
      };
      this.#listeners.add(check);
      signal?.addEventListener("abort", check);
      check();
    });
  }

  /** Says how the process ended, with the end of its stderr. */
  describeExit(): string {
    const status = this.#status;
    const how = status == null
      ? "is still running"
      : status.signal != null
      ? `was killed by ${status.signal}`
      : `exited with code ${status.code}`;
    return `${this.role} process ${how}${this.#tail()}`;
  }

  /**
   * Asks the process to stop (closes its stdin) and kills it with SIGKILL if
   * it has not exited after `graceMs`.  Resolves once it has exited.
   */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.#stdinClosed) {
      this.#stdinClosed = true;
      try {
        await this.#process.stdin.close();
      } catch { /* already closed */ }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), graceMs);
    });
    const exitedInTime = await Promise.race([
      this.exited.then(() => false),
      timedOut,
    ]);
    clearTimeout(timer);
    if (exitedInTime) {
      try {
        this.#process.kill("SIGKILL");
      } catch { /* exited meanwhile */ }
      await this.exited;
    }
  }

  /** Kills the process with SIGKILL at once and waits for it. */
  async kill(): Promise<void> {
    try {
      this.#process.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.exited;
  }

  #tail(): string {
    // The error's own lines say more than its stack frames.
    const lines = this.#stderr
      .filter((l) => l.trim() !== "" && !/^\s+at /.test(l))
      .slice(-3);
    return lines.length > 0 ? `: ${lines.join(" | ")}` : "";
  }

  #remember(line: string): void {
    this.#stderr.push(line);
    if (this.#stderr.length > 50) this.#stderr.shift();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

/**
 * Calls `onLine` with each line of `stream` (without its newline), one
 * after another, the last one too if it has no newline; resolves once the
 * stream ended or broke (a process gone, a connection lost).
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void | Promise<void>,
): Promise<void> {
  let buffer = "";
  try {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let index: number;
      while ((index = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        await onLine(line);
      }
    }
  } catch { /* the stream broke */ }
  if (buffer !== "") await onLine(buffer);
}
