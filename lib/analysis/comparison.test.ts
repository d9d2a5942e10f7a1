import assert from "node:assert/strict";
import { INSTANT_INBOX } from "../params/mod.ts";
import { compareResults, type FigureChange } from "./comparison.ts";
import { findRegressions } from "./regressions.ts";
import { renderComparison, renderGate } from "../report/changes_table.ts";
import type { Calibration, Spread } from "../results/mod.ts";
import { calibration, config, doc } from "../testing/comparison_fixtures.ts";

function change(
  c: ReturnType<typeof compareResults>,
  id: string,
  figure: FigureChange["figure"],
): FigureChange | undefined {
  return c.rows.find((r) => r.id === id)?.changes.find((x) =>
    x.figure === figure
  );
}

const WIDE: Record<string, Spread> = {
  receiveSeconds: { min: 9, max: 11 },
  deliveriesPerSecond: { min: 90, max: 110 },
  latencyP99Ms: { min: 40, max: 60 },
};

Deno.test("compareResults: single runs give no verdict, only the change", () => {
  const c = compareResults(
    doc([config("redis", 10, 100, 50)]),
    doc([config("redis", 8, 80, 50)]),
  );
  assert.deepEqual(c.paramDifferences, []);
  assert.equal(c.rows.length, 1);
  const receive = change(c, "redis", "receiveSeconds")!;
  assert.equal(receive.delta, -2);
  assert.equal(receive.percent, -20);
  assert.equal(receive.verdict, "too few runs");
  assert.equal(receive.oldRuns, 1);
  assert.equal(receive.normalized, null);
  assert.equal(change(c, "redis", "deliveriesPerSecond")?.percent, -20);
  const text = renderComparison(c);
  assert.match(text, /single run: noise unknown \(use --runs 3\)/);
  assert.doesNotMatch(text, /\b(better|worse)\b/);
});

Deno.test("compareResults: 2 runs, or 3 against 1, are still too few", () => {
  const two = compareResults(
    doc([config("x", 10, 100, 50, WIDE, "ok", 2)]),
    doc([config("x", 20, 50, 90, {}, "ok", 2)]),
  );
  assert.equal(change(two, "x", "receiveSeconds")?.verdict, "too few runs");
  assert.match(
    renderComparison(two),
    /\| 2 runs: noise unknown \(use --runs 3\)/,
  );
  const mixed = compareResults(
    doc([config("x", 10, 100, 50, WIDE, "ok", 3)]),
    doc([config("x", 20, 50, 90)]),
  );
  assert.match(
    renderComparison(mixed),
    /\| 3 \/ 1 .*single run in new: noise unknown/,
  );
});

Deno.test("compareResults: with 3 runs, overlapping ranges are noise", () => {
  const c = compareResults(
    doc([config("pg", 10, 100, 50, WIDE, "ok", 3)]),
    doc([
      config(
        "pg",
        12,
        130,
        70,
        {
          receiveSeconds: { min: 10.5, max: 13 },
          deliveriesPerSecond: { min: 111, max: 140 },
          latencyP99Ms: { min: 60, max: 80 },
        },
        "ok",
        3,
      ),
    ]),
  );
  assert.equal(change(c, "pg", "receiveSeconds")?.verdict, "noise");
  assert.equal(
    change(c, "pg", "deliveriesPerSecond")?.verdict,
    "better",
    "disjoint ranges, higher throughput",
  );
  assert.equal(
    change(c, "pg", "latencyP99Ms")?.verdict,
    "noise",
    "touching ranges overlap",
  );
  const worse = compareResults(
    doc([config("pg", 10, 100, 50, WIDE, "ok", 3)]),
    doc([config("pg", 13, 80, 70, {}, "ok", 3)]),
  );
  assert.equal(change(worse, "pg", "receiveSeconds")?.verdict, "worse");
  assert.equal(change(worse, "pg", "deliveriesPerSecond")?.verdict, "worse");
});

Deno.test("compareResults: rows only on one side, in order", () => {
  const c = compareResults(
    doc([config("a", 1, 1, 1), config("b", 1, 1, 1)]),
    doc([config("c", 1, 1, 1), config("b", 1, 1, 1)]),
  );
  assert.deepEqual(
    c.rows.map((r) => [r.id, r.presence, r.oldStatus, r.newStatus]),
    [
      ["a", "only in old", "ok", null],
      ["b", "both", "ok", "ok"],
      ["c", "only in new", null, "ok"],
    ],
  );
  assert.deepEqual(c.rows[0].changes, []);
});

Deno.test("compareResults: non-ok configurations compare statuses", () => {
  const c = compareResults(
    doc([
      config("a", 1, 1, 1),
      config("b", 1, 1, 1, {}, "failed"),
      config("c", 1, 1, 1, {}, "incomplete"),
    ]),
    doc([
      config("a", 1, 1, 1, {}, "incomplete"),
      config("b", 1, 1, 1),
      config("c", 1, 1, 1, {}, "incomplete"),
    ]),
  );
  assert.deepEqual(
    c.rows.map((r) => [r.id, r.statusVerdict, r.changes.length]),
    [["a", "worse", 0], ["b", "better", 0], ["c", null, 0]],
  );
  const text = renderComparison(c);
  assert.match(text, /\| a +\| status +\| +\| +ok \| +incomplete \|.*\| worse/);
  assert.match(text, /\| c +\| status .*\| still incomplete/);
});

Deno.test("compareResults: a missing figure has no verdict", () => {
  const c = compareResults(
    doc([config("x", 10, 100, null)]),
    doc([config("x", 10, 100, 5)]),
  );
  const p99 = change(c, "x", "latencyP99Ms")!;
  assert.equal(p99.old, null);
  assert.equal(p99.new, 5);
  assert.equal(p99.delta, null);
  assert.equal(p99.verdict, null);
});

Deno.test("compareResults: parameter differences", () => {
  const c = compareResults(
    doc([], {}),
    doc([], { total: 500, rsaBits: 4096, timeoutSeconds: 10 }),
  );
  assert.deepEqual(c.paramDifferences, [
    { name: "total", old: 100, new: 500 },
    { name: "rsaBits", old: 2048, new: 4096 },
  ]);
  const text = renderComparison(c);
  assert.match(text, /^Warning: .*total 100 → 500, rsaBits 2048 → 4096/);
  assert.match(text, /No configurations/);
});

Deno.test("compareResults: any parameter that changes a figure, defaults equal", () => {
  const same = compareResults(
    doc([], {}),
    doc([], { workers: 1, parallelImpl: ["fedify"], logLevel: "warning" }),
  );
  assert.deepEqual(same.paramDifferences, [], "absent is the default");
  const c = compareResults(
    doc([], {}),
    doc([], {
      inbox: { ...INSTANT_INBOX, errorRate: 0.1 },
      workers: 2,
      parallelImpl: ["fedify", "awaiting"],
      logLevel: "debug",
    }),
  );
  assert.deepEqual(
    c.paramDifferences.map((d) => d.name),
    ["parallelImpl", "workers", "inbox", "logLevel"],
  );
  const [warning, ...rest] = renderComparison(c).split("\n");
  assert.match(
    warning,
    /^Warning: .*parallelImpl \["fedify"\] → \["fedify","awaiting"\], workers 1 → 2, inbox none → \{.*"errorRate":0\.1,.*\}, logLevel warning → debug\)/,
  );
  assert.doesNotMatch(rest.join("\n"), /parameters differ/, "one line");
});

Deno.test("compareResults: calibration unknown, the same, or different", () => {
  const unknown = compareResults(doc([]), doc([], {}, calibration(600, 9000)));
  assert.deepEqual(unknown.calibration.unknownIn, ["old"]);
  assert.match(
    renderComparison(unknown),
    /^Calibration: unknown in the old file \(written before/,
  );
  assert.match(
    renderComparison(compareResults(doc([]), doc([]))),
    /^Calibration: unknown in both files/,
  );
  const same = compareResults(
    doc([], {}, calibration(600, 9000)),
    doc([], {}, calibration(603, 8900)),
  );
  assert.equal(same.calibration.scale, null);
  assert.match(
    renderComparison(same),
    /^Calibration: no change beyond its noise \(RSA-2048 signatures 600\/s \(588–612\) → 603\/s/,
  );
  const loopbackOnly = compareResults(
    doc([], {}, calibration(600, 9000)),
    doc([], {}, calibration(600, 5000)),
  );
  assert.equal(loopbackOnly.calibration.scale, null);
  assert.match(
    renderComparison(loopbackOnly),
    /^Calibration differs beyond its noise \(loopback POSTs .*-44\.4%\): RSA-2048 signatures, which dominate .* nothing is normalised/,
  );
});

Deno.test("compareResults: a slower machine is normalised away", () => {
  // The new host signs at half the speed and every figure is twice as bad:
  // raw, that is worse; at the old host's speed, it is the same.
  const c = compareResults(
    doc([config("pg", 10, 100, 50, WIDE, "ok", 3)], {}, calibration(600, 9000)),
    doc(
      [
        config(
          "pg",
          20,
          50,
          100,
          {
            receiveSeconds: { min: 18, max: 22 },
            deliveriesPerSecond: { min: 45, max: 55 },
            latencyP99Ms: { min: 80, max: 120 },
          },
          "ok",
          3,
        ),
      ],
      {},
      calibration(300, 9000),
    ),
  );
  assert.equal(c.calibration.scale, 0.5);
  const receive = change(c, "pg", "receiveSeconds")!;
  assert.equal(receive.raw, "worse");
  assert.deepEqual(receive.normalized?.new, { value: 10, min: 9, max: 11 });
  assert.equal(receive.normalized?.percent, 0);
  assert.equal(receive.normalized?.verdict, "noise");
  assert.equal(receive.verdict, "unclear");
  const rate = change(c, "pg", "deliveriesPerSecond")!;
  assert.deepEqual(rate.normalized?.new, { value: 100, min: 90, max: 110 });
  assert.equal(rate.verdict, "unclear");
  const text = renderComparison(c);
  assert.match(
    text,
    /^Calibration differs beyond its noise \(RSA-2048 signatures 600\/s \(588–612\) → 300\/s \(294–306\), -50\.0%\)/,
  );
  assert.match(text, /New, normalised \| Change %, normalised \| Verdict/);
  assert.match(text, /unclear: raw worse, normalised noise/);
  assert.match(text, /new ÷ old = 0\.500, -50\.0%\): times and latencies × it/);
  assert.deepEqual(findRegressions(c, 0), [], "unclear never fails the gate");

  // Twice as bad on a host that is only a little slower: worse either way.
  const d = compareResults(
    doc([config("pg", 10, 100, 50, WIDE, "ok", 3)], {}, calibration(600, 9000)),
    doc([config("pg", 20, 50, 100, {}, "ok", 3)], {}, calibration(540, 9000)),
  );
  assert.equal(change(d, "pg", "receiveSeconds")?.verdict, "worse");
  const [regression] = findRegressions(d, 10);
  assert.equal(regression.figure, "receiveSeconds");
  assert.ok(
    Math.abs(regression.percent! - 80) < 1e-9,
    "the smaller of +100% raw and +80% normalised",
  );
});

Deno.test("compareResults: normalised by the all-cores rate where both files have it", () => {
  // A busy host: one thread signs as fast as before, every core 25% slower,
  // and the row took 40% longer.
  const c = compareResults(
    doc(
      [config("pg", 10, 100, 50, WIDE, "ok", 3)],
      {},
      calibration(600, 9000, 1200),
    ),
    doc(
      [config("pg", 14, 100, 50, WIDE, "ok", 3)],
      {},
      calibration(600, 9000, 900),
    ),
  );
  assert.equal(c.calibration.normalizingRate, "rsaSignsPerSecondAllCores");
  assert.equal(c.calibration.scale, 0.75);
  assert.deepEqual(c.calibration.shifts?.map((s) => s.rate), [
    "rsaSignsPerSecond",
    "rsaSignsPerSecondAllCores",
    "loopbackRequestsPerSecond",
  ]);
  const receive = change(c, "pg", "receiveSeconds")!;
  assert.ok(Math.abs(receive.normalized!.new!.value - 10.5) < 1e-9);
  assert.match(
    renderComparison(c),
    /by the ratio of the files' RSA-2048 signatures on every core per second \(new ÷ old = 0\.750/,
  );
  // A file from before the all-cores rate: the one-thread rate, as before.
  const older = compareResults(
    doc([], {}, calibration(600, 9000)),
    doc([], {}, calibration(300, 9000, 900)),
  );
  assert.equal(older.calibration.normalizingRate, "rsaSignsPerSecond");
  assert.equal(older.calibration.scale, 0.5);
});

Deno.test("compareResults: drift within a suite is reported", () => {
  const drifting: Calibration = {
    start: calibration(600, 9000).start,
    end: calibration(400, 9000).start,
  };
  const c = compareResults(doc([], {}, drifting), doc([]));
  assert.equal(c.calibration.drift.old.length, 1);
  assert.deepEqual(c.calibration.noisy.old.map((n) => n.rate), [
    "rsaSignsPerSecond",
  ]);
  assert.match(
    renderComparison(c),
    /Warning: the old file's calibration is itself noisy \(RSA-2048 signatures 500\/s \(392–612\)\): the host was busy/,
  );
  assert.match(
    renderComparison(c),
    /Warning: the old file's calibration drifted during its own suite \(RSA-2048 signatures 600\/s .* → 400\/s .*-33\.3%\)/,
  );
});

Deno.test("findRegressions: worse beyond noise and the threshold, or a status", () => {
  const c = compareResults(
    doc([
      config("a", 10, 100, 50, WIDE, "ok", 3),
      config("b", 10, 100, 50, WIDE, "ok", 3),
      config("c", 1, 1, 1),
      config("d", 1, 1, 1, {}, "skipped"),
      config("e", 10, 100, 50),
    ]),
    doc([
      config("a", 12, 100, 50, {}, "ok", 3), // +20% receive, beyond noise
      config("b", 11.5, 100, 50, {}, "ok", 3), // +15% receive, beyond noise
      config("c", 1, 1, 1, {}, "failed"),
      config("d", 1, 1, 1, {}, "failed"), // was skipped: no regression
      config("e", 20, 50, 99), // one run: no verdict
    ]),
  );
  const at = (threshold: number) =>
    findRegressions(c, threshold).map((r) => [r.id, r.figure]);
  assert.deepEqual(at(10), [
    ["a", "receiveSeconds"],
    ["b", "receiveSeconds"],
    ["c", "status"],
  ]);
  assert.deepEqual(at(18), [["a", "receiveSeconds"], ["c", "status"]]);
  assert.deepEqual(at(25), [["c", "status"]]);
  const gate = renderGate(c, 18, findRegressions(c, 18));
  assert.match(
    gate,
    /^Regression gate \(--fail-on-regression 18%\): FAILED, 2 regressions beyond the noise:/,
  );
  assert.match(
    gate,
    /- a: receive \(s\) 10\.00 \(9\.00–11\.00\) → 12\.00, 20\.0% worse/,
  );
  assert.match(gate, /- c: status ok → failed/);
  assert.match(gate, /Not judged: 3 figures with fewer than 3 runs/);
});

Deno.test("findRegressions: a configuration missing from the new file fails", () => {
  const c = compareResults(
    doc([
      config("kept", 10, 100, 50),
      config("gone", 10, 100, 50),
      config("broken", 1, 1, 1, {}, "failed"),
      config("never", 1, 1, 1, {}, "skipped"),
    ]),
    doc([config("kept", 10, 100, 50), config("added", 1, 1, 1)]),
  );
  const found = findRegressions(c, 10);
  assert.deepEqual(
    found.map((r) => [r.id, r.figure]),
    [["gone", "missing"], ["broken", "missing"]],
    "not when skipped in the old file, nor when only in the new",
  );
  const gate = renderGate(c, 10, found);
  assert.match(gate, /FAILED, 2 regressions/);
  assert.match(
    gate,
    /- gone: missing from the new file \(ok in the old one\)/,
  );
  assert.match(gate, /- broken: missing from the new file \(failed in/);
});

Deno.test("renderGate: passes, naming what it could not judge", () => {
  const c = compareResults(
    doc([config("x", 10, 100, 50, WIDE, "ok", 3), config("y", 1, 1, 1)]),
    doc([config("x", 11.5, 100, 50, {}, "ok", 3), config("y", 2, 1, 1)]),
  );
  const text = renderGate(c, 20, findRegressions(c, 20));
  assert.match(
    text,
    /passed; no configuration is worse beyond the noise by more than 20%/,
  );
  assert.match(text, /1 figure is worse beyond the noise but by 20% or less/);
  assert.match(text, /Not judged: 3 figures .* --runs 3/);
});

Deno.test("renderComparison: a table with medians, ranges and runs", () => {
  const text = renderComparison(compareResults(
    doc([config("redis", 10, 100, 50, WIDE, "ok", 3), config("gone", 1, 1, 1)]),
    doc([
      config(
        "redis",
        8,
        150,
        50,
        {
          receiveSeconds: { min: 7.5, max: 8.5 },
        },
        "ok",
        3,
      ),
      config("new", 1, 1, 1, {}, "failed"),
    ]),
  ));
  const lines = text.split("\n");
  const table = lines.filter((l) => l.startsWith("|"));
  assert.match(
    table[0],
    /^\| Configuration \| Figure +\| +Runs \| +Old \| +New \|/,
  );
  assert.match(table[1], /^\| -+ \| -+ \| -+: \|/);
  assert.match(
    text,
    /\| redis +\| receive \(s\) +\| 3 \/ 3 \| +10\.00 \(9\.00–11\.00\) \| +8\.000 \(7\.500–8\.500\) \| +-2\.000 \| +-20\.0% \| better/,
  );
  assert.match(text, /deliveries\/s .*\| +\+50\.00 \| +\+50\.0% \| better/);
  assert.match(text, /p99 latency \(ms\) .*\| +0\.000 \| +0\.0% \| noise/);
  assert.match(text, /\| gone .*\| +ok \| +— \|.*\| only in old/);
  assert.match(text, /\| new .*\| +— \| +failed \|.*\| only in new/);
  assert.match(text, /Medians over the runs, min–max in parentheses/);
  const widths = table.map((l) => l.length);
  assert.ok(widths.every((w) => w === widths[0]), "aligned columns");
});

Deno.test("the comparison names the commit each file was measured at, when recorded", () => {
  const withCommit = (sha: string, dirty: boolean) => {
    const d = doc([config("redis", 10, 100, 50)], {}, calibration(600, 9000));
    return { ...d, environment: { ...d.environment!, commit: { sha, dirty } } };
  };
  const text = renderComparison(
    compareResults(withCommit("a".repeat(40), false), {
      ...withCommit("b".repeat(40), true),
    }),
  );
  assert.match(
    text,
    /^Measured at `a{12}` \(old\) and `b{12}` with uncommitted changes \(new\)\.\n/,
  );
  const older = doc([config("redis", 10, 100, 50)]);
  assert.match(
    renderComparison(compareResults(older, withCommit("c".repeat(40), false))),
    /^Measured at an unknown commit \(old\) and `c{12}` \(new\)\./,
  );
  assert.doesNotMatch(
    renderComparison(compareResults(older, older)),
    /Measured at/,
  );
});

Deno.test("compareResults: a change in what limits a configuration is named", () => {
  const limited = (resource: "cpu" | "dequeue") => ({
    ...config("redis", 10, 100, 50),
    limitedBy: { resource, evidence: "…", utilisation: 0.9 },
  });
  const c = compareResults(doc([limited("cpu")]), doc([limited("dequeue")]));
  assert.deepEqual(c.rows[0].limitChange, { old: "cpu", new: "dequeue" });
  assert.match(
    renderComparison(c),
    /What limits a configuration changed .*: redis cpu → dequeue\./,
  );
  const same = compareResults(doc([limited("cpu")]), doc([limited("cpu")]));
  assert.equal(same.rows[0].limitChange, undefined);
  assert.doesNotMatch(renderComparison(same), /What limits/);
});
