/**
 * How the app's bare imports resolve on Node.js and Bun: as deno.json maps
 * them, from this project's modules and a source tree's, and as the runtime
 * resolves them inside node_modules.
 */
import assert from "node:assert/strict";
import {
  APP_IMPORTS_ENV,
  type AppImports,
  isBare,
  parseAppImports,
  redirect,
  rewriteSubpathImports,
} from "./app_imports.ts";

const imports: AppImports = {
  parent: "file:///cache/node-1/package.json",
  local: {
    "#sqlite": "file:///repo/drivers/sqlite/sqlite_platform.ts",
    "@fedify/amqp": "file:///repo/drivers/amqp/amqp_standin.ts",
  },
};

Deno.test("bare specifiers are told from relative ones, paths and URLs", () => {
  for (
    const bare of ["@fedify/fedify", "ioredis", "mysql2/promise", "#sqlite"]
  ) {
    assert.ok(isBare(bare), bare);
  }
  for (
    const not of [
      "./x.ts",
      "../x.ts",
      "/abs/x.ts",
      "node:fs",
      "bun:sqlite",
      "file:///x.ts",
    ]
  ) {
    assert.ok(!isBare(not), not);
  }
});

Deno.test("imports from this project and a source tree resolve as deno.json maps them", () => {
  const project = "file:///repo/lib/child/sender.ts";
  const tree = "file:///shared/fedify-2.3.5/packages/sqlite/src/mq.ts";
  assert.deepEqual(redirect(imports, "#sqlite", tree), {
    url: "file:///repo/drivers/sqlite/sqlite_platform.ts",
  });
  assert.deepEqual(redirect(imports, "@fedify/amqp", project), {
    url: "file:///repo/drivers/amqp/amqp_standin.ts",
  });
  assert.deepEqual(redirect(imports, "@fedify/fedify", tree), {
    parent: imports.parent,
  });
  assert.deepEqual(redirect(imports, "mysql2/promise", project), {
    parent: imports.parent,
  });
  // Relative imports, builtins and unmapped package imports stay.
  assert.equal(redirect(imports, "./mq.ts", tree), null);
  assert.equal(redirect(imports, "node:sqlite", tree), null);
  assert.equal(redirect(imports, "#other", project), null);
});

Deno.test("imports made inside node_modules resolve as the runtime resolves them", () => {
  const inside = "file:///cache/node-1/node_modules/@fedify/fedify/dist/mod.js";
  assert.equal(redirect(imports, "@logtape/logtape", inside), null);
  assert.equal(redirect(imports, "#sqlite", inside), null);
});

Deno.test("a process started without the map says how to start it", () => {
  assert.throws(
    () => parseAppImports(undefined),
    new RegExp(`${APP_IMPORTS_ENV} is not set: start the app's processes`),
  );
  assert.deepEqual(parseAppImports(JSON.stringify(imports)), imports);
});

Deno.test("a source tree's mapped subpath imports point at the mapped file, nothing else changes", () => {
  const source = [
    'import { type PlatformDatabase, SqliteDatabase } from "#sqlite";',
    "export { x } from '#sqlite';",
    'const m = await import("#sqlite");',
    'import { y } from "#unmapped";',
    'const text = "#sqlite";',
    'import { z } from "./sqlite.node.ts";',
  ].join("\n");
  assert.equal(
    rewriteSubpathImports(imports, source),
    [
      'import { type PlatformDatabase, SqliteDatabase } from "/repo/drivers/sqlite/sqlite_platform.ts";',
      'export { x } from "/repo/drivers/sqlite/sqlite_platform.ts";',
      'const m = await import("/repo/drivers/sqlite/sqlite_platform.ts");',
      'import { y } from "#unmapped";',
      'const text = "#sqlite";',
      'import { z } from "./sqlite.node.ts";',
    ].join("\n"),
  );
});
