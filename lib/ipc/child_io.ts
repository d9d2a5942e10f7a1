/**
 * The line protocol between the runner and its child processes (inbox,
 * sender, worker), as a child sees it.  A child writes one JSON object per
 * line to stdout (a {@link ChildMessage}) and logs to stderr; the runner
 * writes commands to its stdin and closes it to ask it to stop, so a child
 * whose runner died (and whose stdin therefore closed) stops too.
 *
 * @module
 */
import { appRuntime } from "../runtime/mod.ts";
import type { ChildMessage, Command } from "./messages.ts";

const encoder = new TextEncoder();

/** Sends `message` to the runner as one JSON line on stdout. */
export function emit(message: ChildMessage): void {
  appRuntime.writeStdout(encoder.encode(JSON.stringify(message) + "\n"));
}

/** The runner's control channel, as seen from a child. */
export interface Control {
  /** Aborts when the runner asks this child to stop. */
  readonly signal: AbortSignal;
  /** Resolves when the runner asks this child to stop. */
  readonly done: Promise<void>;
  /** Resolves when the runner sends the command line `name`. */
  command(name: Command): Promise<void>;
}

/**
 * Listens to the runner: each stdin line is a command; the end of stdin (the
 * runner closed it, or died), SIGTERM or SIGINT mean "stop".
 */
export function control(): Control {
  const controller = new AbortController();
  const stop = () => controller.abort();
  const offSignals = appRuntime.onStopSignal(stop);
  const received = new Set<string>();
  const waiting = new Map<string, () => void>();
  (async () => {
    let buffer = "";
    try {
      for await (
        const chunk of appRuntime.stdin().pipeThrough(new TextDecoderStream())
      ) {
        buffer += chunk;
        let index: number;
        while ((index = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, index).trim();
          buffer = buffer.slice(index + 1);
          received.add(line);
          waiting.get(line)?.();
        }
      }
    } catch { /* stdin unusable: treat as closed */ }
    stop();
  })();
  const done = new Promise<void>((resolve) => {
    controller.signal.addEventListener("abort", () => {
      offSignals();
      resolve();
    }, { once: true });
  });
  return {
    signal: controller.signal,
    done,
    command(name: Command): Promise<void> {
      if (received.has(name)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        waiting.set(name, resolve);
        controller.signal.addEventListener(
          "abort",
          () => reject(new Error(`stopped before "${name}"`)),
          { once: true },
        );
      });
    },
  };
}

/** Epoch milliseconds with sub-millisecond precision, comparable across processes. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Reads the JSON spec a child was started with (its first argument). */
export function readSpec<T>(): T {
  const raw = appRuntime.args[0];
  if (raw == null) throw new Error("missing JSON spec argument");
  return JSON.parse(raw) as T;
}
