import assert from "node:assert/strict";
import { Interrupter } from "./interrupt.ts";

function setup() {
  let now = 0;
  const lines: string[] = [];
  let forced = 0;
  const interrupter = new Interrupter({
    windowMs: 1500,
    now: () => now,
    log: (line) => lines.push(line.trim()),
    force: () => forced++,
  });
  return {
    interrupter,
    lines,
    forced: () => forced,
    at: (ms: number) => {
      now = ms;
      interrupter.interrupt();
    },
  };
}

Deno.test("signals within the window are one Ctrl-C: one graceful stop", () => {
  const { interrupter, lines, forced, at } = setup();
  assert.equal(interrupter.signal.aborted, false);
  at(0);
  at(1);
  at(2);
  at(1499);
  assert.equal(interrupter.signal.aborted, true);
  assert.equal(interrupter.interrupted, true);
  assert.equal(forced(), 0);
  assert.deepEqual(lines, [
    "interrupted: stopping processes and servers… (Ctrl-C again to force an exit)",
  ]);
});

Deno.test("a Ctrl-C after the window forces the exit", () => {
  const { lines, forced, at } = setup();
  at(0);
  at(1500);
  assert.equal(forced(), 1);
  assert.match(lines[1], /^forced exit/);
});
