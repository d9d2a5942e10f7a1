/**
 * The results file against its JSON schema (results/schema.json): the
 * published results, and real output of a small suite that exercises
 * repeated runs, an unreliable inbox, a crash and a failure.
 */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { loadDrivers } from "../../drivers/mod.ts";
import type { ResultsDocument } from "./types.ts";
import { runSuite } from "../run/suite.ts";
import { steadyDocument } from "../testing/load_fixtures.ts";

const schema = JSON.parse(
  await Deno.readTextFile(
    new URL("../../results/schema.json", import.meta.url),
  ),
);

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

function assertValid(document: unknown): void {
  const validate = validator();
  const ok = validate(document);
  assert.ok(ok, JSON.stringify(validate.errors, null, 2));
}

/** What the schema cannot say: every expected delivery is accounted for. */
function assertAccounted(document: ResultsDocument): void {
  for (const r of document.results) {
    for (const run of r.runs ?? [r]) {
      assert.equal(
        run.delivered + run.missing + (run.gone ?? 0),
        run.expected,
        r.id,
      );
    }
  }
}

Deno.test("the published results file matches the schema", async () => {
  const url = new URL("../../results/latest.json", import.meta.url);
  let text: string;
  try {
    text = await Deno.readTextFile(url);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const document = JSON.parse(text);
  assertValid(document);
  assertAccounted(document);
});

Deno.test("the schema rejects a time on an unfinished run", () => {
  const validate = validator();
  const run = {
    id: "x",
    driver: "x",
    parallelism: 1,
    status: "incomplete",
    reason: "stalled",
    expected: 10,
    delivered: 5,
    duplicates: 0,
    missing: 5,
    unexpected: 0,
    sendSeconds: 1,
    receiveSeconds: 2,
    totalSeconds: 3,
    deliveriesPerSecond: 1,
    elapsedSeconds: 3,
    sendErrors: 0,
    workers: 0,
    stallTimeoutSeconds: 60,
    timeoutSeconds: 600,
    server: null,
    processes: [],
  };
  const document = {
    schemaVersion: 1,
    startedAt: "2026-11-22T00:00:00.000Z",
    finishedAt: null,
    params: {
      total: 1,
      recipients: 10,
      fanout: "auto",
      rsaBits: 2048,
      timeoutSeconds: 600,
      stallTimeoutSeconds: 60,
    },
    results: [run],
  };
  assert.equal(validate(document), false);
  run.receiveSeconds = null as unknown as number;
  run.totalSeconds = null as unknown as number;
  assert.equal(validate(document), true, JSON.stringify(validate.errors));
});

Deno.test("a steady-load document matches the schema", () => {
  const document = steadyDocument();
  assertValid(document);
  assertAccounted(document);
});

Deno.test("the schema rejects a rate run whose verdict is neither", () => {
  const validate = validator();
  const document = structuredClone(steadyDocument());
  const rate = document.results.find((r) =>
    r.load != null && r.id !== "generator"
  )!;
  (rate.load as { verdict: string }).verdict = "maybe";
  assert.equal(validate(document), false);
  assert.ok(
    validate.errors?.some((e) => e.instancePath.endsWith("/load/verdict")),
    JSON.stringify(validate.errors),
  );
});

Deno.test({
  name: "real output of a varied small suite matches the schema",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const faulty = new URL("../testing/faulty_drivers.ts", import.meta.url)
      .href;
    const drivers = (await loadDrivers([faulty])).filter((d) =>
      ["in-process", "postgres", "test-crashing-worker"].includes(d.name)
    );
    const document = await runSuite({
      calibrate: true,
      params: {
        total: 3,
        recipients: 6,
        fanout: "auto",
        rsaBits: 2048,
        timeoutSeconds: 60,
        // Short: a crash test that lost deliveries stalls, every run of it,
        // and either outcome (ok or incomplete) fits the schema.
        stallTimeoutSeconds: 3,
        runs: 2,
        inbox: {
          latency: { minMs: 1, maxMs: 5 },
          errorRate: 0.1,
          goneRate: 0,
          dropRate: 0,
          verifySignatures: false,
          seed: 7,
        },
        crash: { workerAt: 0.5 },
      },
      drivers,
      // One parallelism: the published results (checked above) hold ×1 and
      // ×2 results of every driver, and each run here costs seconds of
      // process start-up.
      parallel: [1],
      baseline: true,
      driverModules: [faulty],
    });
    const status = Object.fromEntries(
      document.results.map((r) => [r.id, r.status]),
    );
    // The baseline has no queue, so a crash test skips it.
    assert.equal(status["baseline"], "skipped");
    // Whether a crash loses deliveries depends on timing (hostile.test.ts
    // pins that down with a slower inbox); here either outcome must fit the
    // schema.
    assert.ok(["ok", "incomplete"].includes(status["in-process"]));
    assert.equal(status["test-crashing-worker"], "failed");
    // PostgreSQL keeps its queue; a message taken just before the kill may
    // be lost (the queue deletes it before handling it), so either is fine.
    assert.ok(["ok", "incomplete"].includes(status["postgres"]));
    // Each queue's result says which implementation ran and what its server
    // cost; the baseline and the in-process queue have no server.
    const byId = new Map(document.results.map((r) => [r.id, r]));
    const inProcess = byId.get("in-process")!;
    assert.equal(inProcess.implementation?.specifier, "@fedify/fedify");
    assert.equal(inProcess.implementation?.official, true);
    assert.equal(inProcess.serverCpuMsPerDelivery, null);
    const postgres = byId.get("postgres")!;
    assert.equal(postgres.implementation?.specifier, "@fedify/postgres");
    assert.equal(postgres.implementation?.official, true);
    if (postgres.server?.startedByBench && postgres.delivered > 0) {
      assert.equal(typeof postgres.serverCpuMsPerDelivery, "number");
    }
    assert.equal(byId.get("baseline")?.implementation ?? null, null);
    // The machine's speed at the start and the end, checked by the schema.
    assert.ok(document.environment?.calibration?.end != null);
    assertValid(document);
    assertAccounted(document);
  },
});
