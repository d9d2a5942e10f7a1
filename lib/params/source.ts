/**
 * `--fedify-source DIR` (`FEDIFY_SOURCE`), declared once for every command
 * that opens Fedify's queues: the bench and `deno task dequeue-cost`.
 *
 * @module
 */
import { text } from "./kinds.ts";
import { optional, type ParamSpec } from "./spec.ts";

/**
 * The parameter, in the `--help` section `section`: the Fedify source tree
 * whose queue packages the drivers load instead of `deno.json`'s names.
 */
export function fedifySourceParam(
  section: string,
): ParamSpec<"fedifySource", string | null> {
  return optional({
    name: "fedifySource",
    flag: "fedify-source",
    env: "FEDIFY_SOURCE",
    kind: text("DIR"),
    help: "load @fedify/redis, postgres, amqp, denokv and sqlite from the " +
      "Fedify source tree DIR (a clone of fedify-dev/fedify: DIR/packages/" +
      "<name>/src/mod.ts) instead of deno.json's names; each row records " +
      "which code ran (implementation)",
    section,
    affects: "nothing",
  });
}
