/**
 * `deno task schema`: writes results/schema.json from the results' types
 * (`ResultsDocument` in lib/results/document.ts and what it names), whose
 * JSDoc becomes each field's description and whose JSDoc tags its bounds
 * (`@minimum`, `@asType integer`, `@additionalProperties false`, …), with
 * the rules of lib/results/schema_rules.ts laid on it.
 * `lib/cli/schema.test.ts` fails when the file differs from what this would
 * write.
 *
 * @module
 */
import { createGenerator } from "ts-json-schema-generator";
import { SCHEMA_HEADER, SCHEMA_RULES } from "../results/schema_rules.ts";

/** Where the schema lives, from the repository root. */
export const SCHEMA_FILE = new URL(
  "../../results/schema.json",
  import.meta.url,
);

const TYPES = new URL("../results/document.ts", import.meta.url);

/** What the compiler needs to read the types as Deno does. */
const COMPILER_OPTIONS = {
  compilerOptions: {
    strict: true,
    target: "es2022",
    module: "esnext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
    lib: ["es2022"],
  },
};

type Node = Record<string, unknown>;

/** The node a JSON pointer (`#/definitions/Name/properties/x`) names. */
function nodeAt(schema: Node, pointer: string): Node {
  let node: unknown = schema;
  for (const key of pointer.split("/").slice(1)) {
    node = typeof node === "object" && node != null
      ? (node as Node)[key]
      : undefined;
  }
  if (typeof node !== "object" || node == null) {
    throw new Error(
      `lib/results/schema_rules.ts: ${pointer} names no part of the ` +
        "generated schema; a field was renamed or removed: move its rule " +
        "to the field's new pointer, or drop it",
    );
  }
  return node as Node;
}

/** `{@link X}` of the JSDoc as plain `X` in a description. */
function plainLinks(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(plainLinks);
  } else if (typeof node === "object" && node != null) {
    const record = node as Node;
    for (const [key, value] of Object.entries(record)) {
      if (key === "description" && typeof value === "string") {
        record[key] = value.replace(/\{@link\s+([^}\s]+)\s*\}/g, "$1");
      } else {
        plainLinks(value);
      }
    }
  }
}

/** The schema's text, as results/schema.json holds it. */
export async function schemaText(): Promise<string> {
  const tsconfig = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(tsconfig, JSON.stringify(COMPILER_OPTIONS));
    const generated = createGenerator({
      path: TYPES.pathname,
      type: "ResultsDocument",
      tsconfig,
      skipTypeCheck: true,
      expose: "export",
      topRef: false,
      jsDoc: "extended",
      additionalProperties: true,
      // Tags the generator does not know, taken as JSON: a closed object
      // (`@additionalProperties false`), and the keys a record takes
      // (`@patternProperties`), are said on its type or field.
      extraTags: ["additionalProperties", "patternProperties"],
    }).createSchema("ResultsDocument") as Node;
    const { $schema, ...rest } = generated;
    const schema: Node = {
      $schema,
      ...SCHEMA_HEADER,
      ...rest,
      ...SCHEMA_HEADER,
    };
    plainLinks(schema);
    for (const [pointer, keywords] of Object.entries(SCHEMA_RULES)) {
      Object.assign(nodeAt(schema, pointer), keywords);
    }
    return JSON.stringify(schema, null, 2) + "\n";
  } finally {
    await Deno.remove(tsconfig);
  }
}

if (import.meta.main) {
  await Deno.writeTextFile(SCHEMA_FILE, await schemaText());
  console.log(`wrote ${SCHEMA_FILE.pathname}`);
}
