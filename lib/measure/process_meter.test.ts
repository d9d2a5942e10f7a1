/**
 * The one record of a measured process: built from two readings by pure
 * functions, and by a meter reading this very process from `/proc`.
 */
import assert from "node:assert/strict";
import { idleProcess, ProcessMeter, processRecord } from "./process_meter.ts";

const sample = (cpuSeconds: number, peakRssBytes = 1_000) => ({
  cpuSeconds,
  peakRssBytes,
});

Deno.test("processRecord: CPU between the readings, peak RSS at the end", () => {
  const record = processRecord("worker", 3, sample(0.5), sample(0.8, 7));
  assert.deepEqual(record, {
    role: "worker",
    pid: 3,
    cpuSeconds: 0.3,
    peakRssBytes: 7,
  });
  assert.deepEqual(
    Object.keys(record),
    ["role", "pid", "cpuSeconds", "peakRssBytes"],
    "the results file's order",
  );
  assert.deepEqual(processRecord("inbox", 2, undefined, undefined), {
    role: "inbox",
    pid: 2,
    cpuSeconds: null,
    peakRssBytes: null,
  });
  assert.deepEqual(processRecord("server", 1, null, sample(2, 9)), {
    role: "server",
    pid: 1,
    cpuSeconds: null,
    peakRssBytes: 9,
  }, "a dropped first reading");
});

Deno.test("idleProcess: CPU share, RSS at the end, wake-ups between", () => {
  const start = { cpuSeconds: 1, rssBytes: 10, threadSwitches: { "1/1": 5 } };
  const end = {
    cpuSeconds: 1.5,
    rssBytes: 20,
    threadSwitches: { "1/1": 8, "1/2": 4 },
  };
  const idle = idleProcess("worker", 1, 10, start, end);
  assert.deepEqual(idle, {
    role: "worker",
    pid: 1,
    cpuPercent: 5,
    rssBytes: 20,
    wakeups: 7,
  });
  assert.deepEqual(
    Object.keys(idle),
    ["role", "pid", "cpuPercent", "rssBytes", "wakeups"],
  );
  assert.deepEqual(idleProcess("server", 2, 10, null, end), {
    role: "server",
    pid: 2,
    cpuPercent: null,
    rssBytes: 20,
    wakeups: null,
  });
});

Deno.test({
  name: "ProcessMeter reads this process; a dropped start leaves no CPU",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const meter = new ProcessMeter("sender", Deno.pid);
    assert.deepEqual(meter.record().cpuSeconds, null, "nothing read yet");
    await meter.start();
    let x = 0;
    for (let i = 0; i < 5_000_000; i++) x += Math.sqrt(i);
    assert.ok(x > 0);
    await meter.finish();
    const record = meter.record();
    assert.equal(record.role, "sender");
    assert.equal(record.pid, Deno.pid);
    assert.ok(record.cpuSeconds != null && record.cpuSeconds >= 0);
    assert.ok(record.peakRssBytes != null && record.peakRssBytes > 0);
    meter.forgetStart();
    assert.equal(meter.record().cpuSeconds, null);

    await meter.startIdle();
    const idle = await meter.idle(1);
    assert.ok(idle.cpuPercent != null && idle.cpuPercent >= 0);
    assert.ok(idle.rssBytes != null && idle.rssBytes > 0);

    const gone = new ProcessMeter("worker", 2 ** 22 + 7, true);
    await gone.start();
    await gone.finish();
    assert.deepEqual(gone.record(), {
      role: "worker",
      pid: 2 ** 22 + 7,
      cpuSeconds: null,
      peakRssBytes: null,
    });
  },
});
