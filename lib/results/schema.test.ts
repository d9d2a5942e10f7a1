/**
 * The results file against its JSON schema (results/schema.json): the
 * published results, and real output of a small suite that exercises
 * repeated runs, an unreliable inbox, a crash and a failure.
 */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { loadDrivers } from "../../drivers/mod.ts";
import type { ResultsDocument } from "./document.ts";
import { runSuite } from "../run/suite.ts";
import { steadyDocument } from "../testing/load_fixtures.ts";
import { PARAMS, result } from "../testing/chart_fixtures.ts";
import { serversMissing } from "../testing/servers.ts";
import { assertCommitRecorded } from "../testing/tools.ts";
import { postgresService } from "../../drivers/postgres/mod.ts";

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

Deno.test("schema version 2 requires its provenance; version 1 does not", () => {
  const validate = validator();
  const environment = {
    cpu: { model: "x", cores: 2, mhz: 2600 },
    memoryBytes: 1,
    os: { name: "Debian", kernel: "6", arch: "x86_64" },
    runtime: { deno: "2.9.6", v8: "15", typescript: "6" },
    packages: {},
    servers: {},
    senderKeys: "RSA-2048",
    fanout: "auto",
  };
  const base = {
    startedAt: "2026-11-22T00:00:00.000Z",
    finishedAt: "2026-11-22T00:01:00.000Z",
    params: {
      total: 1,
      recipients: 10,
      fanout: "auto",
      rsaBits: 2048,
      timeoutSeconds: 600,
      stallTimeoutSeconds: 60,
    },
    results: [],
  };
  const v1 = { ...base, schemaVersion: 1, environment };
  assert.equal(validate(v1), true, JSON.stringify(validate.errors));
  const v2 = { ...v1, schemaVersion: 2 };
  assert.equal(validate(v2), false, "no suiteSeconds, commit or command");
  const messages = JSON.stringify(validate.errors);
  for (const field of ["suiteSeconds", "commit", "command"]) {
    assert.match(messages, new RegExp(field));
  }
  const full = {
    ...v2,
    suiteSeconds: 60,
    environment: { ...environment, commit: null, command: null },
  };
  assert.equal(validate(full), true, JSON.stringify(validate.errors));
  // No commit, and why: a reason beside the null.
  const said = { ...full.environment, noCommitReason: "git not found" };
  assert.equal(
    validate({ ...full, environment: said }),
    true,
    JSON.stringify(validate.errors),
  );
  assert.equal(
    validate({ ...full, environment: { ...said, noCommitReason: "" } }),
    false,
    "an empty reason says nothing",
  );
  assert.equal(validate({ ...full, schemaVersion: 3 }), false);
});

Deno.test("an estimate stands on an unfinished run only, whole", () => {
  const validate = validator();
  const estimate: Record<string, unknown> = {
    totalSeconds: 446,
    lowSeconds: 182,
    highSeconds: 1246,
    deliveriesPerSecond: 78.1,
    stoppedBy: "budget",
    basis: "2,504 of 50,000 delivered in 30 s; …",
  };
  const run: Record<string, unknown> = {
    id: "postgres",
    driver: "postgres",
    parallelism: 1,
    status: "incomplete",
    reason: "stopped at 30 s: cannot finish within the budget of 120 s",
    expected: 50_000,
    delivered: 2_504,
    duplicates: 0,
    missing: 47_496,
    unexpected: 0,
    sendSeconds: 6.9,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: 83.5,
    elapsedSeconds: 30,
    sendErrors: 0,
    workers: 1,
    stallTimeoutSeconds: 60,
    timeoutSeconds: 600,
    server: null,
    processes: [],
    estimate,
  };
  const document = {
    schemaVersion: 1,
    startedAt: "2026-11-22T00:00:00.000Z",
    finishedAt: null,
    params: {
      total: 500,
      recipients: 100,
      fanout: "auto",
      rsaBits: 2048,
      timeoutSeconds: 600,
      stallTimeoutSeconds: 60,
      budgetSeconds: 120,
    },
    results: [run],
  };
  assertValid(document);
  estimate.stoppedBy = "stall";
  assert.equal(validate(document), false, "stoppedBy is budget or limit");
  estimate.stoppedBy = "time limit";
  delete estimate.basis;
  assert.equal(validate(document), false, "an estimate says its basis");
  estimate.basis = "…";
  Object.assign(run, {
    status: "ok",
    reason: null,
    delivered: 50_000,
    missing: 0,
    receiveSeconds: 440,
    totalSeconds: 446,
  });
  assert.equal(validate(document), false, "a finished run has no estimate");
  delete run.estimate;
  assertValid(document);
});

Deno.test("a steady-load document matches the schema", () => {
  const document = steadyDocument();
  assertValid(document);
  assertAccounted(document);
});

Deno.test("ordering fields match the schema; an unknown key does not", () => {
  const ordering = {
    key: "object" as const,
    supported: false,
    note: "not supported by the installed version",
    violations: 3,
  };
  const ok = {
    delivered: 200,
    missing: 0,
    sendSeconds: 1,
    receiveSeconds: 2,
    totalSeconds: 2.5,
    deliveriesPerSecond: 80,
    elapsedSeconds: 2.5,
  };
  const document: ResultsDocument = {
    schemaVersion: 1,
    startedAt: "2026-11-26T00:00:00.000Z",
    finishedAt: "2026-11-26T00:01:00.000Z",
    params: {
      ...PARAMS,
      workload: "cud",
      orderingKey: "none",
      axes: {
        fanout: ["auto"],
        rsaBits: [2048],
        orderingKey: ["none", "object"],
      },
    },
    results: [
      result("redis", 1, "ok", {
        ...ok,
        id: "redis-key-object",
        orderingKey: "object",
        ordering,
        runs: [{ ...result("redis", 1, "ok", ok), ordering }],
      }),
    ],
  };
  assertValid(document);
  const validate = validator();
  const bad = structuredClone(document);
  (bad.results[0].ordering as { key: string }).key = "activity";
  assert.equal(validate(bad), false);
  const negative = structuredClone(document);
  (negative.results[0].ordering as { violations: number }).violations = -1;
  assert.equal(validate(negative), false);
});

Deno.test("depth and delayed records match the schema; a bad backlog key does not", () => {
  const document = structuredClone(steadyDocument());
  const [first, second] = document.results as unknown as {
    depth?: unknown;
  }[];
  first.depth = {
    supported: true,
    samples: 12,
    maxAbsError: 3,
    meanAbsError: 0.25,
    peakTrueDepth: 400,
    callMs: { "0": 0.1, "10000": 2.5, "50000": 11 },
  };
  second.depth = { supported: false };
  assertValid(document);
  (first as { delayed?: unknown }).delayed = {
    inboxDeadRate: 0.1,
    deadRecipients: 10,
    deadAttempts: 57,
    peakDelayedBacklog: 480,
    meanDelayedBacklog: 233.5,
    delayedSource: "getDepth",
    peakDelayedBacklogBench: 480,
    healthyDeliveriesPerSecond: 120.5,
    healthyLatencyMs: { p50: 1, p90: 2, p99: 3, p999: 4, max: 5 },
    series: [[0, 0], [0.25, 12], [0.5, 40]],
  };
  assertValid(document);
  assertValid({
    ...document,
    params: { ...document.params, sampleDepth: true },
  });
  first.depth = { supported: true, callMs: { "ten": 1 } };
  assert.equal(validator()(document), false);
});

Deno.test("deployment, proxy and round-trip records match the schema; an unknown key does not", () => {
  const document = structuredClone(steadyDocument()) as unknown as {
    params: Record<string, unknown>;
    results: Record<string, unknown>[];
  };
  document.params = { ...document.params, cpus: [1], queueRttMs: [0, 5] };
  const traffic = {
    connections: 2,
    turns: 120,
    chunks: 260,
    bytesUp: 50_000,
    bytesDown: 90_000,
    addedDelayMs: { median: 2.51, p99: 3.2 },
    busiestChunksPerSecond: 140,
  };
  const [first, second] = document.results;
  first.deployment = {
    cpus: 1,
    queueRttMs: 5,
    workerHosts: null,
    pinning: { app: "0", others: "1", server: "1" },
  };
  first.proxy = { oneWayMs: 2.5, sender: traffic, workers: traffic };
  first.roundTripsPerDelivery = { enqueue: 0.05, dequeue: 3.2 };
  second.deployment = {
    cpus: 1,
    queueRttMs: null,
    workerHosts: null,
    pinning: {
      app: "0",
      others: "1",
      server: null,
      serverNote: "the user's own server ($REDIS_URL) is left where it runs",
    },
    notApplied: { queueRttMs: "sqlite has no queue server" },
  };
  assertValid(document);
  first.proxy = { ...first.proxy as object, workers: null };
  first.roundTripsPerDelivery = { enqueue: 0.05, dequeue: null };
  assertValid(document);
  const validate = validator();
  first.deployment = { ...first.deployment as object, hosts: 2 };
  assert.equal(validate(document), false);
  delete (first.deployment as Record<string, unknown>).hosts;
  first.proxy = { ...first.proxy as object, sender: { turns: 1 } };
  assert.equal(validate(document), false);
});

Deno.test("--worker-hosts records match the schema: the hosts, their addresses, a worker's namespace", () => {
  const document = structuredClone(steadyDocument()) as unknown as {
    params: Record<string, unknown>;
    results: Record<string, unknown>[];
  };
  document.params = { ...document.params, workerHosts: [2] };
  const [first, second] = document.results;
  first.deployment = {
    cpus: null,
    queueRttMs: null,
    workerHosts: 2,
    hostAddresses: ["10.231.0.2", "10.231.1.2"],
  };
  first.processes = [
    { role: "sender", pid: 10 },
    { role: "worker", pid: 11, network: "net:[4026532300]" },
  ];
  second.deployment = {
    cpus: null,
    queueRttMs: null,
    workerHosts: null,
    notApplied: {
      workerHosts: "in-process's queue is not shared across processes",
    },
  };
  assertValid(document);
  const validate = validator();
  first.processes = [{ role: "worker", pid: 11, network: "ns-1" }];
  assert.equal(validate(document), false);
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
  ignore: serversMissing(postgresService) != null,
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
      // The shape of the figures is checked, not their precision.
      calibrationSlices: { slices: 1, sliceSeconds: 0.05 },
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
    // Provenance: this checkout's commit (or why none), the wall time, the
    // order run.
    await assertCommitRecorded(document.environment);
    assert.equal(document.environment?.command, null, "run as a library");
    assert.ok((document.suiteSeconds ?? 0) > 0);
    assert.equal(typeof document.params.orderSeed, "number");
    // Two rounds: every measured configuration once in each (the failed
    // one leaves after its first run), first runs before second runs.
    const measured = document.results.filter((r) => r.status !== "skipped")
      .map((r) => r.id);
    // A configuration whose first run did not finish leaves the later
    // rounds, so when every one ended incomplete there is no second round.
    assert.ok([1, 2].includes(document.rounds?.length ?? 0));
    assert.deepEqual([...document.rounds![0]].sort(), [...measured].sort());
    assert.ok(!(document.rounds![1] ?? []).includes("test-crashing-worker"));
    // Each measured row has the calibration taken before it, on one thread
    // and on every core; each run its own.
    for (const id of measured) {
      const r = byId.get(id)!;
      assert.ok((r.calibration?.rsaSignsPerSecond ?? 0) > 0, id);
      assert.ok((r.calibration?.rsaSignsPerSecondAllCores ?? 0) > 0, id);
      assert.ok((r.calibration?.threads ?? 0) >= 1, id);
      for (const run of r.runs ?? []) assert.ok(run.calibration != null, id);
    }
    assertValid(document);
    assertAccounted(document);
  },
});
