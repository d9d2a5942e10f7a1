import assert from "node:assert/strict";
import * as vega from "vega";
import { measuringHelvetica, textWidth } from "./text.ts";

/** Vega's text measurement, as `text.ts` replaces it. */
const metrics = (vega as unknown as {
  textMetrics: { width: (item: object, text?: unknown) => number };
}).textMetrics;

/** Whether two widths agree to a millionth of a pixel. */
function near(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} ≈ ${expected}`);
}

Deno.test("textWidth: Helvetica's advance widths, with room for DejaVu Sans", () => {
  near(textWidth({ fontSize: 10 }, "A"), 667 / 100 * 1.18);
  near(textWidth({ fontSize: 10 }, " ii "), 2 * 222 / 100 * 1.18);
  near(textWidth({}, "A"), 667 / 1000 * 11 * 1.18);
  near(
    textWidth({ fontSize: 10, fontWeight: "bold" }, "A"),
    6.67 * 1.07 * 1.18,
  );
  near(textWidth({ fontSize: 10, fontWeight: 700 }, "A"), 6.67 * 1.07 * 1.18);
  near(textWidth({ fontSize: 10 }, "×"), 5.84 * 1.18);
  near(textWidth({ fontSize: 10 }, "é"), 5.56 * 1.18);
  near(textWidth({ fontSize: 10 }, "中"), 10 * 1.18);
  assert.equal(textWidth({ fontSize: 10 }), 0);
  assert.equal(textWidth({ fontSize: 10, limit: 5 }, "AAAA"), 5);
});

Deno.test("measuringHelvetica: Vega measures with textWidth, then as before", async () => {
  const before = metrics.width;
  const inside = await measuringHelvetica(() => Promise.resolve(metrics.width));
  assert.equal(inside, textWidth);
  assert.equal(metrics.width, before);
  await assert.rejects(
    measuringHelvetica(() => Promise.reject(new Error("render failed"))),
    /render failed/,
  );
  assert.equal(metrics.width, before, "given back after a failure too");
});
