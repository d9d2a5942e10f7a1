/**
 * Crash figures over several results files: a range with each file, and a
 * run that gave up sooner than the configuration was seen to redeliver is
 * cut off, not counted, while other incomplete runs count.
 */
import assert from "node:assert/strict";
import type { ConfigurationResult } from "../results/mod.ts";
import { result } from "../testing/chart_fixtures.ts";
import { doc } from "../testing/comparison_fixtures.ts";
import { crashEvidence, quietAfterCrash, type Source } from "./advice_crash.ts";

/** A crash run; `quiet` s without a delivery after the crash at 5 s. */
function run(
  missing: number,
  quiet: number,
  extra: Partial<ConfigurationResult> = {},
): ConfigurationResult {
  const before: [number, number][] = [0, 1, 2, 3, 4, 5].map((t) => [t, 10]);
  return result("q", 1, missing > 0 ? "incomplete" : "ok", {
    expected: 100,
    delivered: 100 - missing,
    missing,
    duplicates: 0,
    stallTimeoutSeconds: 60,
    timeoutSeconds: 600,
    elapsedSeconds: 70,
    crashes: [{ target: "worker", atSeconds: 5, deliveredBefore: 60 }],
    timeline: {
      bucketSeconds: 1,
      deliveries: [...before, [5 + quiet, 40 - missing]],
      cumulative: [],
      queueDepth: [],
    },
    ...extra,
  });
}

function files(...rows: ConfigurationResult[]): Source[] {
  return rows.map((row, i) => ({
    path: `results/crash-${i}/latest.json`,
    document: doc([row], { crash: { workerAt: 0.5 } }),
  }));
}

Deno.test("quietAfterCrash: the longest spell without a delivery from the crash on", () => {
  assert.equal(quietAfterCrash(run(0, 62)), 62);
  assert.equal(quietAfterCrash(run(0, 1)), 1);
  assert.equal(quietAfterCrash(run(0, 1, { timeline: null })), null);
  assert.equal(quietAfterCrash(run(0, 1, { crashes: [] })), null);
});

Deno.test("crashEvidence: a stalled run is cut off only if the configuration was seen quiet that long and then whole", () => {
  const [cut] = crashEvidence(files(run(0, 62), run(5, 1)), () => true);
  assert.deepEqual(cut.lost, { min: 0, max: 0 });
  assert.deepEqual(cut.runs[1].cutOff, {
    gaveUpAfterSeconds: 60,
    recoveredAfterSeconds: 62,
    recoveredIn: "results/crash-0/latest.json",
  });
  const [short] = crashEvidence(files(run(0, 30), run(5, 1)), () => true);
  assert.deepEqual(short.lost, { min: 0, max: 5 }, "30 s quiet < 60 s window");
  assert.equal(short.runs[1].cutOff, null);
  const [timedOut] = crashEvidence(
    files(run(0, 62), run(5, 1, { elapsedSeconds: 600 })),
    () => true,
  );
  assert.deepEqual(timedOut.lost, { min: 0, max: 5 }, "hit the time limit");
  const [lossy] = crashEvidence(files(run(4, 1), run(1, 1)), () => true);
  assert.deepEqual(lossy.lost, { min: 1, max: 4 });
  assert.deepEqual(lossy.runs.map((r) => r.missing), [4, 1]);
  const [all] = crashEvidence(
    files(run(0, 62, { status: "skipped" }), run(5, 1)),
    () => true,
  );
  assert.equal(all.lost?.max, 5, "a skipped run is no evidence");
  assert.equal(all.runs.length, 1);
});
