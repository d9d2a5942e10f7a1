/**
 * One child an agent started for the bench: the process on the agent's
 * host, and the stream of {@link AgentEvent}s it becomes (its stdout and
 * stderr lines, its Fedify log, its exit), held until the bench reads it.
 * A stream the bench lets go of before the child exited stops the child,
 * as a local child stops when its runner's end of stdin closes.
 *
 * @module
 */
import { DENO_LAUNCHER, readLines } from "../system/process.ts";
import { spawnProcess } from "../system/spawn.ts";
import type { AgentEvent } from "./agent_protocol.ts";

/** How long a child whose bench let go may take to stop before SIGKILL. */
const ORPHAN_GRACE_MS = 5_000;

const encoder = new TextEncoder();

/** A child of an agent. */
export class AgentChild {
  /** Its id at the agent. */
  readonly id: string;
  /** Its process id. */
  readonly pid: number;
  /** Resolves once it exited and its last event was queued. */
  readonly done: Promise<void>;
  readonly #process: Deno.ChildProcess;
  readonly #events: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #taken = false;
  #ended = false;

  /**
   * Starts `script` (a path on this host) with `spec` (its JSON text), whose
   * Fedify log, if it asks for one, goes to `logPath` and is sent back
   * whole before the exit.
   */
  constructor(id: string, script: string, spec: string, logPath: string) {
    this.id = id;
    const local = withLogPath(spec, logPath);
    this.#events = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#orphaned(),
    });
    this.#process = spawnProcess(DENO_LAUNCHER.command, {
      args: DENO_LAUNCHER.args(script, local.spec),
      stdin: "piped",
      env: { NO_COLOR: "1" },
    });
    this.pid = this.#process.pid;
    this.done = this.#pump(local.logged ? logPath : undefined);
  }

  /**
   * The child's events, once: the bench reads them as one stream.
   * @returns `undefined` when they were taken already.
   */
  takeEvents(): ReadableStream<Uint8Array> | undefined {
    if (this.#taken) return undefined;
    this.#taken = true;
    return this.#events;
  }

  /** Writes `text` to its stdin. */
  async write(text: string): Promise<void> {
    const writer = this.#process.stdin.getWriter();
    try {
      await writer.write(encoder.encode(text));
    } finally {
      writer.releaseLock();
    }
  }

  /** Closes its stdin: the child's sign to stop. */
  async closeStdin(): Promise<void> {
    try {
      await this.#process.stdin.close();
    } catch { /* closed already */ }
  }

  /** Sends it `signal`; nothing when it is gone. */
  kill(signal: Deno.Signal): void {
    try {
      this.#process.kill(signal);
    } catch { /* gone */ }
  }

  /** Stops it: stdin closed, then SIGKILL after `graceMs`. */
  async stop(graceMs = ORPHAN_GRACE_MS): Promise<void> {
    await this.closeStdin();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.kill("SIGKILL");
        resolve();
      }, graceMs);
    });
    await Promise.race([this.#process.status, late]);
    clearTimeout(timer);
    await this.#process.status;
  }

  #orphaned(): void {
    this.#ended = true;
    void this.stop();
  }

  #queue(event: AgentEvent): void {
    if (this.#ended) return;
    try {
      this.#controller.enqueue(encoder.encode(JSON.stringify(event) + "\n"));
    } catch { /* the stream ended */ }
  }

  async #pump(logPath: string | undefined): Promise<void> {
    const streams = [
      readLines(this.#process.stdout, (out) => this.#queue({ out })),
      readLines(this.#process.stderr, (err) => this.#queue({ err })),
    ];
    const status = await this.#process.status;
    await Promise.all(streams);
    if (logPath != null) {
      try {
        this.#queue({ log: await Deno.readTextFile(logPath) });
      } catch { /* nothing was logged */ }
    }
    this.#queue({ exit: { code: status.code, signal: status.signal } });
    if (!this.#ended) {
      this.#ended = true;
      try {
        this.#controller.close();
      } catch { /* cancelled */ }
    }
  }
}

/**
 * The spec with its Fedify log (if it asks for one) moved to `logPath`, a
 * file of this host: the bench's path means nothing here.
 */
function withLogPath(
  spec: string,
  logPath: string,
): { spec: string; logged: boolean } {
  const parsed = JSON.parse(spec) as { log?: { path?: string } };
  if (parsed.log?.path == null) return { spec, logged: false };
  return {
    spec: JSON.stringify({ ...parsed, log: { ...parsed.log, path: logPath } }),
    logged: true,
  };
}
