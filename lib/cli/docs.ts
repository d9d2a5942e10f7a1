/**
 * `deno task docs`: writes docs/options.md, the option list of every
 * command, from the parameter tables.  `lib/params/params.test.ts` fails
 * when the file differs from what this would write.
 *
 * @module
 */
import {
  ADVISE,
  BENCH,
  DEQUEUE_COST,
  FRESH_CHECK,
  renderOptionsDoc,
} from "../params/mod.ts";

/** Where the option list lives, from the repository root. */
export const OPTIONS_DOC = new URL("../../docs/options.md", import.meta.url);

/** The option list's text. */
export function optionsDoc(): string {
  return renderOptionsDoc([BENCH, DEQUEUE_COST, ADVISE, FRESH_CHECK]);
}

if (import.meta.main) {
  await Deno.writeTextFile(OPTIONS_DOC, optionsDoc());
  console.log(`wrote ${OPTIONS_DOC.pathname}`);
}
