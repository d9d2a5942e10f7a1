/**
 * The runtimes this machine can run the app on, for tests that run it on
 * each (`--runtime`): Deno always; Node.js and Bun where they and the app's
 * packages install from the npm registry (`deno task runtimes` installs
 * them ahead, as CI does).  A runtime that cannot be had is left out, and
 * the tests say why in one line.
 *
 * @module
 */
// The registry registers the queues' packages the app installs.
import "../../drivers/mod.ts";
import { prepareAppRuntime } from "../services/app_runtimes.ts";
import type { RuntimeName } from "../results/mod.ts";

let here: Promise<RuntimeName[]> | undefined;

/** Deno, and each other runtime that is installed or installs now. */
export function runtimesHere(): Promise<RuntimeName[]> {
  here ??= (async () => {
    const names: RuntimeName[] = ["deno"];
    for (const name of ["node", "bun"] as const) {
      try {
        await prepareAppRuntime(name);
        names.push(name);
      } catch (error) {
        console.log(
          `tests on ${name} are skipped: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    }
    return names;
  })();
  return here;
}
