import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { describeImplementation } from "./implementation.ts";

Deno.test("registry shapes count as official, other modules do not", () => {
  const cases: [string, string, boolean, string | null][] = [
    [
      "@fedify/redis",
      "file:///root/.cache/deno/npm/registry.npmjs.org/@fedify/redis/1.8.7/dist/mod.js",
      true,
      "1.8.7",
    ],
    ["@fedify/amqp", "jsr:@fedify/amqp@2.3.6", true, "2.3.6"],
    ["@fedify/amqp", "npm:@fedify/amqp@2.3.6/mq", true, "2.3.6"],
    [
      "@fedify/denokv",
      "https://jsr.io/@fedify/denokv/2.3.6/src/mod.ts",
      true,
      "2.3.6",
    ],
    [
      "@fedify/mysql",
      "file:///app/node_modules/.deno/@fedify+mysql@2.3.6/node_modules/@fedify/mysql/dist/mod.js",
      true,
      "2.3.6",
    ],
    [
      "@fedify/mysql",
      "file:///app/node_modules/@fedify/mysql/dist/mod.js",
      true,
      null,
    ],
    // A fork mapped under the official name is not the official package.
    [
      "@fedify/redis",
      "file:///root/.cache/deno/npm/registry.npmjs.org/redis-fork/1.0.0/mod.js",
      false,
      null,
    ],
    [
      "@fedify/denokv",
      "file:///work/drivers/deno_kv/denokv_standin.ts",
      false,
      null,
    ],
  ];
  for (const [specifier, resolved, official, version] of cases) {
    const got = describeImplementation(specifier, resolved);
    assertEquals([got.official, got.version], [official, version], resolved);
  }
});
