/**
 * No queue: the sender delivers each activity itself, the floor every
 * queue's figures stand on.
 *
 * @module
 */
export { noneDriver } from "./none.ts";
