/**
 * Ctrl-C for the command line: one Ctrl-C is one graceful stop, however the
 * bench was started.  A terminal sends SIGINT to its whole foreground process
 * group, and wrappers (`npx`, `deno task`) pass it on again, so one key press
 * arrives several times within milliseconds: signals within a short window
 * of the first count as one.  A signal after that window forces the exit.
 * SIGTERM and SIGHUP (a closed terminal or a dropped SSH session) stop the
 * bench the same way; on Windows, which has only SIGINT and SIGBREAK
 * (Ctrl-Break), those two do.
 *
 * @module
 */

/** How long after the first signal further signals count as the same one. */
export const SAME_SIGNAL_WINDOW_MS = 1500;

const WINDOWS = Deno.build.os === "windows";

/**
 * The signals that stop the bench.  Windows has only SIGINT and SIGBREAK:
 * listening to another signal there throws.
 */
export const STOP_SIGNALS: readonly Deno.Signal[] = WINDOWS
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGINT", "SIGTERM", "SIGHUP"];

/** Options for {@link Interrupter}. */
export interface InterrupterOptions {
  /** Signals within this many milliseconds of the first count as one. */
  readonly windowMs?: number;
  /** Prints a line for the user. */
  readonly log?: (line: string) => void;
  /** Ends the process at once; called on a second signal after the window. */
  readonly force: () => void;
  /** The clock, in milliseconds; `performance.now` by default. */
  readonly now?: () => number;
}

/**
 * Turns SIGINT, SIGTERM and SIGHUP ({@link STOP_SIGNALS}) into an
 * {@link AbortSignal} for a graceful stop, and a later second signal into a
 * forced exit.
 */
export class Interrupter {
  readonly #controller = new AbortController();
  readonly #windowMs: number;
  readonly #log: (line: string) => void;
  readonly #force: () => void;
  readonly #now: () => number;
  readonly #listener = () => this.interrupt();
  #firstAt: number | undefined;

  /** @param options What to do on a forced exit, and the window. */
  constructor(options: InterrupterOptions) {
    this.#windowMs = options.windowMs ?? SAME_SIGNAL_WINDOW_MS;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#force = options.force;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Aborts on the first signal: stop gracefully. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether a signal has arrived. */
  get interrupted(): boolean {
    return this.#firstAt != null;
  }

  /**
   * Handles one signal: the first aborts {@link signal}; those within the
   * window are the same key press; one after it forces the exit.
   */
  interrupt(): void {
    const now = this.#now();
    if (this.#firstAt == null) {
      this.#firstAt = now;
      this.#say(
        "\ninterrupted: stopping processes and servers… " +
          "(Ctrl-C again to force an exit)",
      );
      this.#controller.abort(new Error("interrupted"));
    } else if (now - this.#firstAt >= this.#windowMs) {
      this.#say("\nforced exit: killing processes, removing temporary folders");
      this.#force();
    }
  }

  /** Listens to {@link STOP_SIGNALS}. */
  install(): void {
    for (const name of STOP_SIGNALS) {
      Deno.addSignalListener(name, this.#listener);
    }
  }

  /** Stops listening. */
  uninstall(): void {
    for (const name of STOP_SIGNALS) {
      Deno.removeSignalListener(name, this.#listener);
    }
  }

  /**
   * Logs a line, never throwing: after SIGHUP the terminal is gone and
   * writing to it fails, yet the bench must still stop.
   */
  #say(line: string): void {
    try {
      this.#log(line);
    } catch { /* no one to tell */ }
  }
}
