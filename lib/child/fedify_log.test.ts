/**
 * Fedify's own log: the line format, the counting, that deno.json maps the
 * LogTape Fedify depends on, and a real run whose 410 deliveries make
 * Fedify warn and log errors that end up in the configuration's log file
 * and its counts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import { INSTANT_INBOX } from "../params/mod.ts";
import { countLog, FileLogSink } from "./fedify_log.ts";
import { renderTable } from "../report/markdown.ts";
import { runSuite } from "../run/suite.ts";

Deno.test("a log record is one line; its stack lines are indented", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "x.log");
    const sink = new FileLogSink(path, "worker/42");
    sink.write({
      category: ["fedify", "federation", "outbox"],
      level: "error",
      message: ["Failed to send ", "a1", ":\n", new Error("boom")],
      rawMessage: "Failed to send {id}:\n{error}",
      timestamp: Date.UTC(2026, 0, 2, 3, 4, 5),
      properties: {},
    });
    sink.write({
      category: ["fedify"],
      level: "warning",
      message: ["Permanent failure"],
      rawMessage: "Permanent failure",
      timestamp: Date.UTC(2026, 0, 2, 3, 4, 6),
      properties: {},
    });
    sink.close();
    const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
    assert.equal(
      lines[0],
      "2026-01-02T03:04:05.000Z ERROR worker/42 fedify·federation·outbox: " +
        "Failed to send a1:",
    );
    assert.match(lines[1], /^ {2}Error: boom$/);
    assert.ok(lines.slice(1, -1).every((line) => line.startsWith("  ")));
    assert.equal(
      lines.at(-1),
      "2026-01-02T03:04:06.000Z WARNING worker/42 fedify: Permanent failure",
    );
    assert.deepEqual(countLog(lines.join("\n")), { warnings: 1, errors: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a log whose folder is gone costs one stderr line, not the run", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.remove(dir);
  const said: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => {
    said.push(args);
  };
  try {
    const sink = new FileLogSink(join(dir, "x.log"), "worker/42");
    for (let i = 0; i < 3; i++) {
      sink.write({
        category: ["fedify"],
        level: "warning",
        message: ["Permanent failure"],
        rawMessage: "Permanent failure",
        timestamp: Date.UTC(2026, 0, 2, 3, 4, 6),
        properties: {},
      });
    }
    sink.close();
  } finally {
    console.error = original;
  }
  assert.equal(said.length, 1, "said once");
  assert.match(
    String(said[0][0]),
    /^worker\/42: cannot write Fedify's log to .*x\.log .*going on without it$/,
  );
});

Deno.test("countLog counts records by level, not continuation lines", () => {
  const text = [
    "2026-01-02T03:04:05.000Z WARNING sender/1 fedify: a",
    "  WARNING inside a stack line",
    "2026-01-02T03:04:05.000Z ERROR sender/1 fedify: b",
    "2026-01-02T03:04:05.000Z FATAL sender/1 fedify: c",
    "2026-01-02T03:04:05.000Z INFO sender/1 fedify: d",
    "",
  ].join("\n");
  assert.deepEqual(countLog(text), { warnings: 1, errors: 2 });
});

Deno.test("deno.json maps the @logtape/logtape Fedify 2.3.6 depends on", async () => {
  const root = new URL("../../", import.meta.url);
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", root)),
  );
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", root)));
  const fedify = lock.npm["@fedify/fedify@2.3.6"];
  assert.ok(fedify != null, "deno.lock resolves @fedify/fedify@2.3.6");
  const dependency = (fedify.dependencies as string[]).find((d) =>
    d.startsWith("@logtape/logtape")
  );
  assert.ok(dependency != null, "Fedify depends on @logtape/logtape");
  const version = dependency.split("@").at(-1);
  assert.equal(
    config.imports["@logtape/logtape"],
    `npm:@logtape/logtape@${version}`,
    "map @logtape/logtape to the exact version Fedify uses, or its loggers " +
      "never see the bench's configuration",
  );
});

Deno.test({
  sanitizeResources: false,
  sanitizeOps: false,
  name: "Fedify's warnings and errors of a real run are in its log file",
  async fn() {
    const out = await Deno.makeTempDir({ prefix: "fqb-log-test-" });
    try {
      const recipients = 5;
      const document = await runSuite({
        params: {
          total: 2,
          recipients,
          fanout: "auto",
          rsaBits: 2048,
          timeoutSeconds: 120,
          stallTimeoutSeconds: 15,
          // One recipient's inbox answers 410 Gone to every delivery.
          inbox: { ...INSTANT_INBOX, goneRate: 1 / recipients },
        },
        drivers: [findDriver(builtinDrivers, "in-process")!],
        parallel: [1],
        logDir: join(out, "logs"),
      });
      const [result] = document.results;
      assert.equal(result.status, "ok", result.reason ?? "");
      assert.equal(result.gone, 2);
      const log = result.log!;
      assert.equal(log.path, join(out, "logs", "in-process.log"));
      const text = await Deno.readTextFile(log.path!);
      // Fedify 2.3.6: "Permanent delivery failure … (410); not retrying."
      assert.match(text, / WARNING sender\/\d+ fedify·.*Permanent delivery/);
      assert.match(text, / ERROR sender\/\d+ fedify·.*Failed to send activity/);
      assert.deepEqual(
        { warnings: log.warnings, errors: log.errors },
        countLog(text),
      );
      assert.equal(log.warnings, 2, "one permanent failure per activity");
      assert.ok(log.errors >= 2, `${log.errors} errors`);
      assert.deepEqual(result.runs![0].log, log);
      assert.match(
        renderTable(document),
        new RegExp(`Fedify logged 2 warnings and ${log.errors} errors`),
      );
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});
