/**
 * `deno task runtimes [NAMES]`: installs the runtimes the app can run on
 * besides Deno (`--runtime node,bun`), with the app's packages at the
 * versions deno.json pins, into the cache folder the bench uses
 * (`lib/services/app_runtimes.ts`), and prints where each is and what it
 * holds.  The bench installs a runtime on first use anyway; this does it
 * ahead (CI runs it before the tests).  Exit codes: 0 all installed, 1 one
 * could not be (its reason printed), 2 bad input.
 *
 * @module
 */
import { RUNTIME_NAMES } from "../params/mod.ts";
import type { RuntimeName } from "../results/mod.ts";
import { errorMessage } from "../results/error_message.ts";
// The registry registers the queues' packages the app installs.
import "../../drivers/mod.ts";
import { prepareAppRuntime } from "../services/app_runtimes.ts";

const USAGE = `Usage: deno task runtimes [node,bun]

Installs Node.js and Bun (or those named) with the app's packages at the
versions deno.json pins, for --runtime; default: node,bun.`;

/** Parses the one optional argument, a list of runtimes. */
export function runtimesArg(args: readonly string[]): RuntimeName[] {
  if (args.length > 1 || args[0] === "--help" || args[0] === "-h") {
    throw new Error(USAGE);
  }
  const names = (args[0] ?? "node,bun").split(",").map((n) => n.trim());
  for (const name of names) {
    if (!(RUNTIME_NAMES as readonly string[]).includes(name)) {
      throw new Error(
        `unknown runtime "${name}": give ${RUNTIME_NAMES.join(", ")}\n\n` +
          USAGE,
      );
    }
  }
  return names as RuntimeName[];
}

if (import.meta.main) {
  let names: RuntimeName[];
  try {
    names = runtimesArg(Deno.args);
  } catch (error) {
    console.error(errorMessage(error));
    Deno.exit(2);
  }
  let failed = false;
  for (const name of names) {
    try {
      const launcher = await prepareAppRuntime(name);
      const packages = Object.entries(launcher.packages)
        .map(([pkg, version]) => `${pkg}@${version}`).join(", ");
      console.log(
        `${name} ${launcher.runtime.version}: ${launcher.command}` +
          (packages === "" ? "" : `\n  with ${packages}`),
      );
    } catch (error) {
      failed = true;
      console.error(`${name}: ${errorMessage(error)}`);
    }
  }
  Deno.exit(failed ? 1 : 0);
}
