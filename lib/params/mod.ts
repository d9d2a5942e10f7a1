/**
 * The parameter tables: every option of every command declared once, as
 * data, with the parser, `--help`, the results' record, the comparison
 * rules and the docs' option list derived from them.
 *
 * @module
 */
export * from "./kinds.ts";
export * from "./spec.ts";
export * from "./parse.ts";
export * from "./record.ts";
export * from "./help.ts";
export * from "./scenarios.ts";
export * from "./bench/mod.ts";
export * from "./dequeue_cost_params.ts";
export * from "./advise_params.ts";
export * from "./fresh_check_params.ts";
export * from "./agent_params.ts";
export * from "./image_params.ts";
