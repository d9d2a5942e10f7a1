/**
 * The line protocol between the runner and its child processes (inbox,
 * sender, worker).  A child writes one JSON object per line to stdout and
 * logs to stderr; the runner closes the child's stdin to ask it to stop, so a
 * child whose runner died (and whose stdin therefore closed) stops too.
 *
 * @module
 */

/** A message a child process sends to the runner. */
export interface ChildMessage {
  /** What happened, e.g. `"ready"`, `"sent"`, `"error"`. */
  readonly type: string;
  /** Further fields depend on the type. */
  readonly [key: string]: unknown;
}

const encoder = new TextEncoder();

/** Sends `message` to the runner as one JSON line on stdout. */
export function emit<T extends { readonly type: string }>(message: T): void {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\n"));
}

/**
 * Resolves when the runner asks this child to stop: stdin reaches its end,
 * or SIGTERM or SIGINT arrives.  The returned signal aborts at that moment.
 */
export function stopRequested(): { signal: AbortSignal; done: Promise<void> } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  for (const name of ["SIGTERM", "SIGINT"] as const) {
    Deno.addSignalListener(name, stop);
  }
  (async () => {
    const buffer = new Uint8Array(1024);
    try {
      while ((await Deno.stdin.read(buffer)) != null) { /* ignore input */ }
    } catch { /* stdin unusable: treat as closed */ }
    stop();
  })();
  const done = new Promise<void>((resolve) => {
    controller.signal.addEventListener("abort", () => {
      for (const name of ["SIGTERM", "SIGINT"] as const) {
        Deno.removeSignalListener(name, stop);
      }
      resolve();
    }, { once: true });
  });
  return { signal: controller.signal, done };
}

/** Epoch milliseconds with sub-millisecond precision, comparable across processes. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Reads the JSON spec a child was started with (its first argument). */
export function readSpec<T>(): T {
  const raw = Deno.args[0];
  if (raw == null) throw new Error("missing JSON spec argument");
  return JSON.parse(raw) as T;
}
