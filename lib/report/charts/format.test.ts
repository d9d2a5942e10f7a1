import assert from "node:assert/strict";
import { duration, fixed, short, unique } from "./format.ts";

Deno.test("unique: first-seen order, each once", () => {
  assert.deepEqual(unique(["b", "a", "b", "c", "a"]), ["b", "a", "c"]);
});

Deno.test("fixed and short: decimals and separators", () => {
  assert.equal(fixed(1234.5), "1,234.50");
  assert.equal(fixed(200, 0), "200");
  assert.equal(short(0.6), "0.60");
  assert.equal(short(12.345), "12.3");
  assert.equal(short(1234.5), "1,235");
});

Deno.test("duration: the largest whole unit", () => {
  assert.equal(duration(10), "10 s");
  assert.equal(duration(300), "5 min");
  assert.equal(duration(7200), "2 h");
  assert.equal(duration(90), "90 s");
});
