/**
 * Fedify's `InProcessMessageQueue`: a queue in the sending process's memory.
 *
 * @module
 */
export { inProcessDriver } from "./in_process.ts";
