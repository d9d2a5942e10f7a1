/**
 * The trivial HTTP server of the loopback calibration, run as its own process
 * by {@link measureCalibration}: it parses each POSTed JSON body and answers
 * 202, and nothing else, so that its rate is the machine's (the kernel's
 * loopback, Deno's HTTP stack, both cores), not the bench's.
 *
 * @module
 */
import { control, emit } from "../ipc/child_io.ts";

if (import.meta.main) {
  const stop = control();
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => resolve(port),
  }, async (request) => {
    if (request.method === "POST") await request.json();
    else await request.body?.cancel();
    return new Response(null, { status: 202 });
  });
  emit({ type: "ready", port: await listening, pid: Deno.pid });
  await stop.done;
  await server.shutdown();
  Deno.exit(0);
}
