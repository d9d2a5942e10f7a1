/**
 * The delay proxy's alarm: a wait never ends before its moment, whether
 * the worker wakes it, many wait at once (more than its slots), or the
 * alarm closes while they wait.  Only lower bounds of time are asserted.
 */
import assert from "node:assert/strict";
import { PreciseAlarm } from "./precise_alarm.ts";

/** Waits for `due` and returns how early (negative) or late it ended. */
async function lateness(alarm: PreciseAlarm, due: number): Promise<number> {
  await alarm.until(due);
  return performance.now() - due;
}

Deno.test("a wait never ends before its moment, alone or with others in any order", async () => {
  const alarm = PreciseAlarm.start();
  try {
    for (const ms of [0, 0.3, 1, 2.5]) {
      const late = await lateness(alarm, performance.now() + ms);
      assert.ok(late >= 0, `${ms} ms asked, ended ${-late} ms early`);
    }
    const start = performance.now();
    const lates = await Promise.all(
      [3, 0.5, 2, 1, 0].map((ms) => lateness(alarm, start + ms)),
    );
    for (const late of lates) assert.ok(late >= 0, `${late}`);
    // More waits at once than the worker has slots: the rest on timers.
    const many = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) => lateness(alarm, performance.now() + (i % 5)),
      ),
    );
    assert.ok(many.every((late) => late >= 0));
  } finally {
    alarm.close();
  }
});

Deno.test("closing the alarm lets waits in progress end on time, not early", async () => {
  const alarm = PreciseAlarm.start();
  const due = performance.now() + 20;
  const waiting = lateness(alarm, due);
  alarm.close();
  alarm.close();
  assert.ok((await waiting) >= 0);
  assert.ok((await lateness(alarm, performance.now() + 1)) >= 0);
});
