/**
 * The parameters of `deno task agent`, which runs the bench's roles on
 * its host for a bench elsewhere.  Declared like the bench's; the same
 * parser, help and docs serve them.
 *
 * @module
 */
import { hostPort } from "./kinds.ts";
import { type CommandTable, helpToggle, value } from "./spec.ts";

const OPTIONS = "Options";

/**
 * The port an agent listens on unless told otherwise: the image's and the
 * swarm stack's too.
 */
export const DEFAULT_AGENT_PORT = 7070;

const PARAMS = [
  value({
    name: "listen",
    flag: "listen",
    kind: hostPort(),
    default: `0.0.0.0:${DEFAULT_AGENT_PORT}`,
    help: "the address and port to listen on",
    section: OPTIONS,
    affects: "nothing",
  }),
  helpToggle(OPTIONS),
] as const;

/** The options of `deno task agent`. */
export const AGENT: CommandTable<typeof PARAMS> = {
  command: "agent",
  usage: "BENCH_AGENT_TOKEN=SECRET deno task agent [--listen HOST:PORT]",
  summary: "Runs the bench's sender and workers on this host for a bench " +
    "elsewhere (deno task bench --agents HOST:PORT,… or --sender-agent " +
    "HOST:PORT), over HTTP with the shared token BENCH_AGENT_TOKEN; answers " +
    "the bench's clock readings; stops its children when the bench lets go " +
    "or on Ctrl-C.",
  sections: [{ title: OPTIONS }],
  params: PARAMS,
  rules: [],
  footer: "The token is required: an agent refuses to start without it, " +
    "and refuses every request that does not carry it. Anyone who has it " +
    "can run the bench's sender and workers here; keep the port on a " +
    "network you trust.",
};
