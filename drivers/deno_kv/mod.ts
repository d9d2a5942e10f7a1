/**
 * Deno KV (`@fedify/denokv`): the drivers (one process or a worker of its
 * own, the registry's package or the project's stand-in), the FIFO
 * ablation, and the stand-in that `deno.json` maps under `@fedify/denokv`
 * (`denokv_standin.ts`).
 *
 * @module
 */
export {
  denoKvDriver,
  denoKvSingleDriver,
  denoKvSingleStandInDriver,
  denoKvStandInDriver,
} from "./deno_kv.ts";
export { denoKvFifoDriver, denoKvSingleFifoDriver } from "./deno_kv_fifo.ts";
