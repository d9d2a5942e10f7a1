/**
 * The runtime the app's processes run on: {@link appRuntime} is the adapter
 * (`types.ts`) of the runtime this process runs on, and `launch.ts` starts
 * a script of the app on a runtime the bench names (`--runtime`).
 *
 * @module
 */
import { bunRuntime } from "./bun.ts";
import { denoRuntime } from "./deno.ts";
import { nodeRuntime } from "./node.ts";
import type { RuntimeName } from "../results/configuration.ts";
import type { AppRuntime } from "./types.ts";

export { type AppRuntime, type AppServer, type FetchHandler } from "./types.ts";

/** Which runtime this process runs on, from the globals each one defines. */
export function currentRuntimeName(): RuntimeName {
  const global = globalThis as Record<string, unknown>;
  if (global.Deno != null) return "deno";
  if (global.Bun != null) return "bun";
  return "node";
}

const ADAPTERS: Readonly<Record<RuntimeName, AppRuntime>> = {
  deno: denoRuntime,
  node: nodeRuntime,
  bun: bunRuntime,
};

/** The adapter of the runtime this process runs on. */
export const appRuntime: AppRuntime = ADAPTERS[currentRuntimeName()];
