import assert from "node:assert/strict";
import {
  closeLastStep,
  holdFlat,
  lastPerBucket,
  MAX_POINTS,
  maxPerBucket,
  meanPerBucket,
} from "./resample.ts";
import type { Series } from "../../results/mod.ts";

Deno.test("holdFlat: a gap keeps the earlier value until a bucket before", () => {
  assert.deepEqual(holdFlat([[0, 0], [1, 10], [5, 20]], 1), [
    [0, 0],
    [1, 10],
    [4, 10],
    [5, 20],
  ]);
  assert.deepEqual(holdFlat([[0, 0], [1, 10], [2, 20]], 1), [
    [0, 0],
    [1, 10],
    [2, 20],
  ]);
  assert.deepEqual(holdFlat([], 1), []);
});

Deno.test("lastPerBucket: short series stay, long ones keep each bucket's last", () => {
  const short: Series = [[0, 1], [1, 2]];
  assert.equal(lastPerBucket(short, 10), short);
  const long: Series = Array.from({ length: 1200 }, (_, i) => [i / 2, i]);
  assert.ok(long.length > MAX_POINTS);
  const merged = lastPerBucket(long, 10);
  assert.equal(merged.length, 61);
  assert.deepEqual(merged[0], [0, 0]);
  assert.deepEqual(merged[1], [9.5, 19]);
  assert.deepEqual(merged.at(-1), [599.5, 1199]);
});

Deno.test("maxPerBucket: short series stay, long ones keep each bucket's peak", () => {
  const short: Series = [[0, 1], [1, 2]];
  assert.equal(maxPerBucket(short, 10), short, "the same array");
  const long: Series = Array.from({ length: 700 }, (_, i) => [i, i % 7]);
  assert.deepEqual(
    maxPerBucket(long, 100),
    [0, 100, 200, 300, 400, 500, 600].map((t) => [t, 6]),
  );
});

Deno.test("closeLastStep: the last value again one bucket later", () => {
  assert.deepEqual(closeLastStep([[0, 5], [1, 7]], 1), [[0, 5], [1, 7], [
    2,
    7,
  ]]);
  assert.deepEqual(closeLastStep([], 1), []);
});

Deno.test("meanPerBucket: mean rates over wider buckets, gaps as zero", () => {
  assert.deepEqual(meanPerBucket([[0, 2], [1, 4], [2, 6]], 1, 2), [
    [0, 3],
    [2, 6],
    [3, 6],
  ]);
  assert.deepEqual(meanPerBucket([[0, 4], [4, 4]], 1, 2), [
    [0, 2],
    [2, 0],
    [4, 4],
    [5, 4],
  ]);
});
