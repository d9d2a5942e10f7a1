/**
 * `deno task image`: builds the agent image, `fedify-queue-bench-agent:`
 * and HEAD's short hash (`dev` outside a git checkout), offline from this
 * Deno binary and the locked npm packages in the host's Deno cache, and
 * prints its name, size and build time.  Load it on each node of a swarm
 * (`docker save NAME | ssh NODE docker load`) and deploy
 * `deploy/swarm/stack.yml` with `AGENT_IMAGE=NAME`.  The logic is in
 * `lib/deploy/agent_image.ts`.
 *
 * Options: `--name NAME` names the image otherwise.
 *
 * Exit codes: 0 built; 2 it could not be built (the message names the
 * fix); 130 Ctrl-C.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { buildAgentImage } from "../deploy/mod.ts";
import { dockerVersion } from "../system/docker.ts";
import { leftovers } from "../system/leftovers.ts";
import { Interrupter } from "./interrupt.ts";

const HELP = `deno task image [--name NAME]

Builds the agent image (fedify-queue-bench-agent:<short commit>) offline
from this Deno binary and the locked npm packages, and prints its name,
size and build time.  Needs a running Docker daemon.`;

/**
 * Runs the command.
 *
 * @param args The command line's arguments.
 * @returns The exit code.
 */
export async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const nameAt = args.indexOf("--name");
  const name = nameAt >= 0 ? args[nameAt + 1] : undefined;
  const unknown = args.filter((arg, i) =>
    arg !== "--name" && (nameAt < 0 || i !== nameAt + 1)
  );
  if (unknown.length > 0 || (nameAt >= 0 && name == null)) {
    console.error(`error: unknown options ${unknown.join(" ")}\n\n${HELP}`);
    return 2;
  }
  const interrupter = new Interrupter({
    force: () => {
      leftovers.forceCleanup();
      Deno.exit(130);
    },
  });
  interrupter.install();
  try {
    await dockerVersion(interrupter.signal);
    const image = await buildAgentImage({
      projectDir: fileURLToPath(new URL("../../", import.meta.url)),
      name,
      timeoutMs: 600_000,
      signal: interrupter.signal,
      log: (line) => console.error(line),
    });
    console.log(
      `${image.name}  ${(image.bytes / 1e6).toFixed(0)} MB  built in ${
        image.seconds.toFixed(1)
      } s`,
    );
    return 0;
  } catch (error) {
    if (interrupter.interrupted) return 130;
    console.error(
      `error: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 2;
  } finally {
    interrupter.uninstall();
  }
}

if (import.meta.main) {
  globalThis.addEventListener("unload", () => leftovers.forceCleanup());
  Deno.exit(await main(Deno.args));
}
