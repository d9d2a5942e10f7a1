/**
 * `deno task image`: builds the agent image, `fedify-queue-bench-agent:`
 * and HEAD's short hash (`dev` outside a git checkout or with uncommitted
 * changes; `-fedify-source` added with `FEDIFY_SOURCE`), offline from this
 * Deno binary and the locked npm packages in the host's Deno cache, and
 * prints its name, size and build time.  Load it on each node of a swarm
 * (`docker save NAME | ssh NODE docker load`) and deploy
 * `deploy/swarm/stack.yml` with `AGENT_IMAGE=NAME`.  The logic is in
 * `lib/deploy/agent_image.ts`.
 *
 * Options (`lib/params/image_params.ts`): `--name NAME` names the image
 * otherwise.
 *
 * Exit codes: 0 built; 2 it could not be built (the message names the
 * fix); 130 Ctrl-C.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { buildAgentImage, checkoutImage } from "../deploy/mod.ts";
import { dockerVersion } from "../system/docker.ts";
import { leftovers } from "../system/leftovers.ts";
import { IMAGE, parseCommand, renderHelp, UsageError } from "../params/mod.ts";
import { Interrupter } from "./interrupt.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The command line; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  let name: string | undefined;
  try {
    const { values } = parseCommand(IMAGE, args, {});
    if (values.help) {
      console.log(renderHelp(IMAGE));
      return 0;
    }
    name = values.name ?? undefined;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
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
      projectDir: ROOT,
      name: name ?? (await checkoutImage(ROOT)).name,
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
