/**
 * The app's runtime adapter for Node.js (`types.ts`), on Node's own
 * modules: `process` for arguments, environment, signals, rejections and
 * exit, `fs.writeSync` for stdout, and `node:http` bridged to a fetch
 * handler for the federation's server (as `@hono/node-server` and `srvx`
 * bridge it for Fedify apps on Node.js).  Bun's adapter (`bun.ts`) shares
 * all but the server.
 *
 * @module
 */
import { writeSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import {
  type AppRuntime,
  type AppServer,
  type FetchHandler,
  STOP_SIGNALS,
} from "./types.ts";
import type { RuntimeName } from "../results/configuration.ts";

/** A cell to sleep on, synchronously, while stdout's pipe is full. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * The adapter of a runtime that provides Node's `process`, named `name` at
 * `version`, serving with `serve`.
 */
export function processRuntime(
  name: RuntimeName,
  version: () => string,
  serve: (handler: FetchHandler) => Promise<AppServer>,
): AppRuntime {
  return {
    name,
    get version() {
      return version();
    },
    get pid() {
      return process.pid;
    },
    get args() {
      return process.argv.slice(2);
    },
    env(key) {
      return process.env[key];
    },
    writeStdout(bytes) {
      let written = 0;
      while (written < bytes.length) {
        try {
          written += writeSync(1, bytes, written, bytes.length - written);
        } catch (error) {
          // stdout is a pipe the runtime made non-blocking: when it is full
          // (a long message, the bench reading a moment later), the write
          // fails with EAGAIN instead of waiting; wait a millisecond and go
          // on.  A bench that has gone closes the pipe (EPIPE), which throws.
          if ((error as { code?: unknown }).code !== "EAGAIN") throw error;
          Atomics.wait(PAUSE, 0, 0, 1);
        }
      }
    },
    stdin() {
      return new ReadableStream<Uint8Array>({
        start(controller) {
          process.stdin.on("data", (chunk: Uint8Array) => {
            controller.enqueue(new Uint8Array(chunk));
          });
          process.stdin.on("end", () => controller.close());
          process.stdin.on("error", (error) => controller.error(error));
        },
      });
    },
    onStopSignal(listener) {
      for (const signal of STOP_SIGNALS) process.on(signal, listener);
      return () => {
        for (const signal of STOP_SIGNALS) process.off(signal, listener);
      };
    },
    onUnhandledRejection(listener) {
      // With a listener, the runtime no longer ends the process for an
      // unhandled rejection; one the listener declines is thrown, which
      // ends it as an uncaught exception.
      const onRejection = (reason: unknown) => {
        if (!listener(reason)) throw reason;
      };
      process.on("unhandledRejection", onRejection);
      return () => process.off("unhandledRejection", onRejection);
    },
    closedResource() {
      return undefined;
    },
    serve,
    exit(code) {
      process.exit(code);
    },
  };
}

/** A Node.js request as a fetch `Request`, its body read in full. */
async function toRequest(incoming: IncomingMessage): Promise<Request> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) { for (const v of value) headers.append(key, v); }
    else if (value != null) headers.set(key, value);
  }
  const method = incoming.method ?? "GET";
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of incoming) {
      chunks.push(chunk as Uint8Array);
      length += (chunk as Uint8Array).length;
    }
    body = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      body.set(chunk, at);
      at += chunk.length;
    }
  }
  const host = incoming.headers.host ?? "127.0.0.1";
  return new Request(`http://${host}${incoming.url ?? "/"}`, {
    method,
    headers,
    body,
  });
}

/**
 * Serves a fetch handler with `node:http` on 127.0.0.1 at a free port
 * (imported here, so that Deno, which never serves this way, never loads
 * it).
 */
export async function serveNodeHttp(handler: FetchHandler): Promise<AppServer> {
  const { createServer } = await import("node:http");
  const server = createServer(async (incoming, outgoing) => {
    try {
      const response = await handler(await toRequest(incoming));
      const headers: Record<string, string | string[]> = {};
      for (const [key, value] of response.headers) {
        const had = headers[key];
        headers[key] = had == null
          ? value
          : [...(Array.isArray(had) ? had : [had]), value];
      }
      outgoing.writeHead(response.status, headers);
      if (response.body != null) {
        for await (const chunk of response.body) outgoing.write(chunk);
      }
      outgoing.end();
    } catch (error) {
      console.error(error);
      if (!outgoing.headersSent) outgoing.writeHead(500);
      outgoing.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    shutdown: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Node.js's adapter. */
export const nodeRuntime: AppRuntime = processRuntime(
  "node",
  () => process.versions.node,
  serveNodeHttp,
);
