/**
 * The app's runtime adapter for Deno (`types.ts`): Deno's own APIs, as the
 * app used them before it ran on other runtimes.
 *
 * @module
 */
import {
  type AppRuntime,
  type AppServer,
  type FetchHandler,
  STOP_SIGNALS,
} from "./types.ts";

/** Deno's adapter. */
export const denoRuntime: AppRuntime = {
  name: "deno",
  get version() {
    return Deno.version.deno;
  },
  get pid() {
    return Deno.pid;
  },
  get args() {
    return Deno.args;
  },
  env(name) {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined; // no permission to read the environment
    }
  },
  writeStdout(bytes) {
    let written = 0;
    while (written < bytes.length) {
      written += Deno.stdout.writeSync(bytes.subarray(written));
    }
  },
  stdin() {
    return Deno.stdin.readable;
  },
  onStopSignal(listener) {
    for (const name of STOP_SIGNALS) Deno.addSignalListener(name, listener);
    return () => {
      for (const name of STOP_SIGNALS) {
        Deno.removeSignalListener(name, listener);
      }
    };
  },
  onUnhandledRejection(listener) {
    const onEvent = (event: PromiseRejectionEvent) => {
      if (listener(event.reason)) event.preventDefault();
    };
    globalThis.addEventListener("unhandledrejection", onEvent);
    return () => globalThis.removeEventListener("unhandledrejection", onEvent);
  },
  closedResource(error) {
    if (error instanceof Deno.errors.BadResource) {
      return "a resource used after it was closed";
    }
    if (error instanceof Deno.errors.Interrupted) {
      return "an operation interrupted by a close";
    }
    return undefined;
  },
  serve(handler: FetchHandler): Promise<AppServer> {
    const { promise, resolve } = Promise.withResolvers<number>();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
      (request) => handler(request),
    );
    return promise.then((port) => ({
      port,
      shutdown: () => server.shutdown(),
    }));
  },
  exit(code) {
    Deno.exit(code);
  },
};
