import assert from "node:assert/strict";
import { arrivalSchedule, SeededRandom } from "./arrivals.ts";

Deno.test("fixed arrivals are evenly spaced inside the window", () => {
  const due = arrivalSchedule({
    rate: 4,
    durationSeconds: 2,
    arrivals: "fixed",
    seed: 1,
  });
  assert.deepEqual(due, [0, 250, 500, 750, 1000, 1250, 1500, 1750]);
});

Deno.test("Poisson arrivals: same seed, same schedule; another seed, another", () => {
  const options = {
    rate: 50,
    durationSeconds: 10,
    arrivals: "poisson" as const,
    seed: 7,
  };
  assert.deepEqual(arrivalSchedule(options), arrivalSchedule(options));
  assert.notDeepEqual(
    arrivalSchedule(options),
    arrivalSchedule({ ...options, seed: 8 }),
  );
});

Deno.test("Poisson arrivals have the asked rate and exponential gaps", () => {
  const due = arrivalSchedule({
    rate: 100,
    durationSeconds: 200,
    arrivals: "poisson",
    seed: 42,
  });
  // 20,000 expected; a Poisson count's standard deviation is √20,000 ≈ 141.
  assert.ok(Math.abs(due.length - 20_000) < 5 * 141, `${due.length}`);
  for (let i = 1; i < due.length; i++) assert.ok(due[i] >= due[i - 1]);
  assert.ok(due.at(-1)! < 200_000);
  const gaps = due.slice(1).map((at, i) => at - due[i]);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  assert.ok(Math.abs(mean - 10) < 0.3, `mean gap ${mean}`);
  // Exponential: the share of gaps above the mean is e^-1 ≈ 0.368.
  const above = gaps.filter((g) => g > 10).length / gaps.length;
  assert.ok(Math.abs(above - Math.exp(-1)) < 0.02, `share above ${above}`);
});

Deno.test("the seeded generator stays in [0, 1)", () => {
  const random = new SeededRandom(3);
  for (let i = 0; i < 10_000; i++) {
    const x = random.next();
    assert.ok(x >= 0 && x < 1);
  }
});

Deno.test("a schedule needs a positive rate and duration", () => {
  assert.throws(
    () =>
      arrivalSchedule({
        rate: 0,
        durationSeconds: 1,
        arrivals: "fixed",
        seed: 1,
      }),
    RangeError,
  );
});
