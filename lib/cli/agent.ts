/**
 * `deno task agent`: runs the bench's sender and workers on this host for a
 * bench elsewhere (`deno task bench --agents HOST:PORT,…`), over HTTP with
 * the shared token `BENCH_AGENT_TOKEN` (`lib/agent/`).  It prints one line
 * when it listens and one per child it starts and ends (on stderr), and
 * stops its children and itself on Ctrl-C or SIGTERM (a swarm stopping a
 * replica).
 *
 * Exit codes: 0 stopped by a signal; 2 a bad option, no token, or the
 * address cannot be listened on (the message names the fix).
 *
 * @module
 */
import { AgentServer, tokenFromEnv } from "../agent/mod.ts";
import { leftovers } from "../system/leftovers.ts";
import {
  AGENT,
  parseCommand,
  parseHostPort,
  renderHelp,
  UsageError,
} from "../params/mod.ts";
import { Interrupter } from "./interrupt.ts";

/** The command line; returns the exit code once the agent stopped. */
export async function main(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let listen: string;
  try {
    const { values } = parseCommand(AGENT, args, env);
    if (values.help) {
      console.log(renderHelp(AGENT));
      return 0;
    }
    listen = values.listen;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    return 2;
  }
  let server: AgentServer;
  try {
    const { hostname, port } = parseHostPort(listen)!;
    server = await AgentServer.start({
      hostname,
      port,
      token: tokenFromEnv("agent"),
      log: (line) => console.error(`agent: ${line}`),
    });
  } catch (error) {
    console.error(
      `error: ${error instanceof Error ? error.message : error}`,
    );
    return 2;
  }
  console.error(`agent: listening on ${listen} (port ${server.port})`);
  const interrupter = new Interrupter({
    force: () => {
      leftovers.forceCleanup();
      Deno.exit(130);
    },
    log: (line) =>
      console.error(
        line.replace(
          /interrupted: stopping processes and servers…/,
          "agent: stopping its children…",
        ),
      ),
  });
  interrupter.install();
  await new Promise<void>((resolve) =>
    interrupter.signal.addEventListener("abort", () => resolve(), {
      once: true,
    })
  );
  await server.close();
  interrupter.uninstall();
  console.error("agent: stopped");
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args, Deno.env.toObject()));
}
