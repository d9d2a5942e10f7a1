/**
 * The parameters of `deno task image`, which builds the agents' image.
 * Declared like the bench's; the same parser, help and docs serve them.
 *
 * @module
 */
import { text } from "./kinds.ts";
import { type CommandTable, helpToggle, optional } from "./spec.ts";

const OPTIONS = "Options";

const PARAMS = [
  optional({
    name: "name",
    flag: "name",
    kind: text("NAME"),
    help: "the image's name (default: fedify-queue-bench-agent: and HEAD's " +
      "short hash, dev when the checkout has uncommitted changes, with " +
      "-fedify-source when FEDIFY_SOURCE is set)",
    section: OPTIONS,
    affects: "nothing",
  }),
  helpToggle(OPTIONS),
] as const;

/** The options of `deno task image`. */
export const IMAGE: CommandTable<typeof PARAMS> = {
  command: "image",
  usage: "deno task image [--name NAME]",
  summary: "Builds the agents' image offline from this Deno binary, the " +
    "libraries it needs, the project and the locked npm packages (with " +
    "Fedify's source when FEDIFY_SOURCE is set), and prints its name, size " +
    "and build time; deploy it with deploy/swarm/stack.yml.",
  sections: [{ title: OPTIONS }],
  params: PARAMS,
  rules: [],
  footer: "Needs a running Docker daemon. On a swarm of several nodes, load " +
    "the image on each (docker save NAME | ssh NODE docker load), as there " +
    "is no registry.",
};
