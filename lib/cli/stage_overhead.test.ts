/**
 * `deno task stage-overhead`: both modes measured, bad arguments refused.
 * (What it prints is a measurement; no test asserts a speed.)
 */
import assert from "node:assert/strict";
import { main, measureOverhead } from "./stage_overhead.ts";

Deno.test("the timing's overhead is measured with and without it", async () => {
  const { withoutUs, withUs } = await measureOverhead(100, 1);
  for (const us of [withoutUs, withUs]) {
    assert.ok(Number.isFinite(us) && us > 0, String(us));
  }
});

Deno.test("bad arguments exit 2", async () => {
  for (const args of [["10"], ["abc"], ["500", "0"]]) {
    assert.equal(await main(args), 2, String(args));
  }
});
