import assert from "node:assert/strict";
import {
  collectEnvironment,
  parseCpuInfo,
  parseMemTotal,
  parseOsRelease,
  resolvePackageVersions,
} from "./environment.ts";
import type { SuiteParams } from "../results/mod.ts";

const PARAMS: SuiteParams = {
  total: 500,
  recipients: 100,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 3600,
  stallTimeoutSeconds: 120,
};

Deno.test("parseCpuInfo: model, processors and MHz", () => {
  const text = [
    "processor\t: 0",
    "vendor_id\t: AuthenticAMD",
    "model name\t: AMD Ryzen 7 7700X 8-Core Processor",
    "cpu MHz\t\t: 4499.812",
    "",
    "processor\t: 1",
    "model name\t: AMD Ryzen 7 7700X 8-Core Processor",
    "cpu MHz\t\t: 3000.000",
    "",
  ].join("\n");
  assert.deepEqual(parseCpuInfo(text), {
    model: "AMD Ryzen 7 7700X 8-Core Processor",
    processors: 2,
    mhz: 4500,
  });
  assert.deepEqual(parseCpuInfo("processor : 0\nBogoMIPS : 50.00\n"), {
    model: null,
    processors: 1,
    mhz: null,
  });
  assert.deepEqual(parseCpuInfo(""), {
    model: null,
    processors: null,
    mhz: null,
  });
});

Deno.test("parseMemTotal and parseOsRelease", () => {
  assert.equal(
    parseMemTotal("MemTotal:       65536000 kB\nMemFree: 1 kB\n"),
    65536000 * 1024,
  );
  assert.equal(parseMemTotal("MemFree: 1 kB\n"), null);
  assert.equal(
    parseOsRelease(
      'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
    ),
    "Debian GNU/Linux 12 (bookworm)",
  );
  assert.equal(
    parseOsRelease("NAME=Alpine\nVERSION='3.20'\n# comment\n"),
    "Alpine 3.20",
  );
  assert.equal(parseOsRelease(""), null);
});

Deno.test("resolvePackageVersions: exact versions from deno.lock", () => {
  const lock = {
    version: "5",
    specifiers: {
      "npm:@fedify/fedify@^2.3.0": "2.3.6",
      "npm:@fedify/redis@1.8.7": "1.8.7_@fedify+fedify@2.3.6_ioredis@5.9.2",
      "npm:ioredis@5.9.2": "5.9.2",
    },
    npm: {
      "@fedify/fedify@2.3.6": {},
      "@fedify/redis@1.8.7_@fedify+fedify@2.3.6_ioredis@5.9.2": {},
      "@fedify/vocab@2.3.6": {},
      "ioredis@5.9.2": {},
      "@logtape/logtape@2.4.2": {},
      "@logtape/logtape@1.3.11": {},
      "redis-parser@3.0.0": {},
    },
  };
  const config = {
    imports: {
      "@fedify/fedify": "npm:@fedify/fedify@^2.3.0",
      "@fedify/redis": "npm:@fedify/redis@1.8.7",
      "ioredis": "npm:ioredis@5.9.2",
      "postgres": "npm:postgres@3.4.9",
      "vega-sub": "npm:vega@6.4.0/build/vega.js",
      "local": "./local.ts",
    },
  };
  assert.deepEqual(
    resolvePackageVersions(
      [
        "@fedify/fedify",
        "@fedify/vocab",
        "@fedify/redis",
        "ioredis",
        "@fedify/redis",
        "@logtape/logtape",
        "redis-parser",
        "postgres",
        "vega",
        "nothing",
      ],
      lock,
      config,
    ),
    {
      "@fedify/fedify": "2.3.6", // the range resolved through `specifiers`
      "@fedify/vocab": "2.3.6", // transitive, from `npm`
      "@fedify/redis": "1.8.7", // peer suffix dropped
      "ioredis": "5.9.2",
      "@logtape/logtape": "1.3.11, 2.4.2", // two versions installed
      "redis-parser": "3.0.0",
      "postgres": "3.4.9", // not locked: the import map's version
      "vega": "6.4.0", // a subpath specifier
      "nothing": "unknown",
    },
  );
  assert.deepEqual(
    resolvePackageVersions(["ioredis", "x"], null, "not json"),
    { ioredis: "unknown", x: "unknown" },
  );
  // deno.lock format 3 keeps both sections under `packages`.
  assert.deepEqual(
    resolvePackageVersions(
      ["ioredis"],
      { version: "3", packages: { npm: { "ioredis@5.4.1": {} } } },
      {},
    ),
    { ioredis: "5.4.1" },
  );
});

Deno.test("collectEnvironment: this machine and this repository", async () => {
  const env = await collectEnvironment({
    params: PARAMS,
    packages: ["@fedify/redis", "ioredis", "@fedify/fedify"],
    servers: { redis: "7.0.15" },
  });
  assert.deepEqual(Object.keys(env.packages), [
    "@fedify/fedify",
    "@fedify/vocab",
    "@fedify/redis",
    "ioredis",
  ]);
  for (const [name, version] of Object.entries(env.packages)) {
    assert.match(version, /^\d+\.\d+\.\d+/, `${name} has an exact version`);
  }
  assert.deepEqual(env.servers, { redis: "7.0.15" });
  assert.equal(
    env.senderKeys,
    "RSA-2048 (RSASSA-PKCS1-v1_5, HTTP Signatures) + " +
      "Ed25519 (Object Integrity Proofs)",
  );
  assert.equal(env.fanout, "auto");
  assert.equal(env.runtime.deno, Deno.version.deno);
  assert.equal(env.runtime.v8, Deno.version.v8);
  assert.equal(env.runtime.typescript, Deno.version.typescript);
  assert.equal(env.os.arch, Deno.build.arch);
  assert.ok(env.cpu.cores >= 1);
  assert.ok(env.cpu.model.length > 0);
  if (Deno.build.os === "linux") {
    assert.notEqual(env.cpu.model, "unknown");
    assert.ok(env.memoryBytes > 0);
    assert.notEqual(env.os.kernel, "unknown");
  }
  // The result is plain JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(env)), env);
  assert.ok(!("commit" in env), "no commit given, none recorded");
});

Deno.test("collectEnvironment records the reason beside a null commit only", async () => {
  const options = { params: PARAMS, packages: [], servers: {} };
  const none = await collectEnvironment({
    ...options,
    commit: null,
    noCommitReason: "git not found",
  });
  assert.equal(none.commit, null);
  assert.equal(none.noCommitReason, "git not found");
  const read = await collectEnvironment({
    ...options,
    commit: { sha: "a".repeat(40), dirty: false },
    noCommitReason: "git not found",
  });
  assert.ok(!("noCommitReason" in read));
});
