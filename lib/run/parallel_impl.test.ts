/**
 * `--parallel-impl`: the option, the configurations it makes, how results
 * name and label them, and a real PostgreSQL run at ×4 with the awaiting
 * wrapper that delivers everything exactly once.
 */
import assert from "node:assert/strict";
import { serversMissing } from "../testing/servers.ts";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import { HELP, parseCli, suiteParams } from "../cli/params.ts";
import { UsageError } from "../params/mod.ts";
import { label } from "../report/label.ts";
import { renderTable } from "../report/markdown.ts";
import { postgresService } from "../../drivers/postgres/mod.ts";
import { expandConfigurations, idOf } from "./configurations.ts";
import { runSuite } from "./suite.ts";

Deno.test("--parallel-impl and --log-level parse, default and refuse", () => {
  const plain = parseCli([], {});
  assert.deepEqual(plain.parallelImpl, ["fedify"]);
  assert.equal(plain.logLevel, "warning");
  const params = suiteParams(plain);
  assert.equal(params.parallelImpl, undefined);
  assert.equal(params.logLevel, undefined);

  const both = parseCli(
    ["--parallel-impl", "fedify,awaiting", "--log-level", "info"],
    {},
  );
  assert.deepEqual(both.parallelImpl, ["fedify", "awaiting"]);
  assert.deepEqual(suiteParams(both).parallelImpl, ["fedify", "awaiting"]);
  assert.equal(suiteParams(both).logLevel, "info");

  assert.throws(
    () => parseCli(["--parallel-impl", "awaitng"], {}),
    (e: Error) =>
      e instanceof UsageError &&
      /fedify, awaiting or prompt/.test(e.message) &&
      /"awaitng"/.test(e.message),
  );
  assert.throws(
    () => parseCli(["--log-level", "warn"], {}),
    (e: Error) => e instanceof UsageError && /warning/.test(e.message),
  );
  assert.match(HELP, /--parallel-impl/);
  assert.match(HELP, /--log-level/);
});

Deno.test("a parallel-impl list sweeps only the wrapped configurations", () => {
  const postgres = findDriver(builtinDrivers, "postgres")!;
  const none = findDriver(builtinDrivers, "none")!;
  const configurations = expandConfigurations(
    [none, postgres],
    [1, 4],
    true,
    undefined,
    ["fedify", "awaiting"],
  );
  const ids = configurations.map((c) => idOf(c));
  assert.deepEqual(ids, [
    "baseline",
    "baseline-x4",
    "none",
    "postgres",
    "postgres-x4",
    "postgres-x4-awaiting",
  ]);
  assert.deepEqual(
    configurations.map((c) => c.parallelImpl ?? null),
    [null, null, null, null, "fedify", "awaiting"],
  );
  const base = { driver: "postgres", parallelism: 4 };
  assert.equal(label({ ...base, parallelImpl: "fedify" }), "postgres ×4");
  assert.equal(
    label({ ...base, parallelImpl: "awaiting" }),
    "postgres ×4 awaiting",
  );
});

const noPostgres = serversMissing(postgresService) != null;

Deno.test({
  sanitizeResources: false,
  sanitizeOps: false,
  name: "postgres ×4 with --parallel-impl awaiting delivers exactly once",
  ignore: noPostgres,
  async fn() {
    const total = 6;
    const recipients = 10;
    const document = await runSuite({
      params: {
        total,
        recipients,
        fanout: "auto",
        rsaBits: 2048,
        timeoutSeconds: 180,
        stallTimeoutSeconds: 30,
        parallelImpl: ["awaiting"],
      },
      drivers: [findDriver(builtinDrivers, "postgres")!],
      parallel: [4],
    });
    const [result] = document.results;
    if (result.status === "skipped") {
      throw new Error(
        `postgres is not available here (${result.reason}); install ` +
          "PostgreSQL or set POSTGRES_URL to run this test",
      );
    }
    assert.equal(result.status, "ok", result.reason ?? "");
    assert.equal(result.id, "postgres-x4-awaiting");
    assert.equal(result.parallelImpl, "awaiting");
    assert.equal(result.delivered, total * recipients);
    assert.equal(result.duplicates, 0);
    assert.equal(result.missing, 0);
    assert.equal(result.unexpected, 0);
    assert.deepEqual(result.log, { path: null, warnings: 0, errors: 0 });
    assert.match(renderTable(document), /postgres ×4 awaiting/);

    const schema = JSON.parse(
      await Deno.readTextFile(
        new URL("../../results/schema.json", import.meta.url),
      ),
    );
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    assert.ok(validate(document), JSON.stringify(validate.errors, null, 2));
  },
});
