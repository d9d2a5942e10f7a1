/**
 * results/schema.json is what `deno task schema` writes from the results'
 * types and lib/results/schema_rules.ts: a field added to a type, or a rule
 * changed, without the schema written again fails here.
 */
import assert from "node:assert/strict";
import { SCHEMA_FILE, schemaText } from "./schema.ts";

Deno.test("results/schema.json is generated from the types (deno task schema)", async () => {
  const committed = await Deno.readTextFile(SCHEMA_FILE);
  assert.ok(
    committed === await schemaText(),
    "results/schema.json is stale: run `deno task schema` and commit it",
  );
});
