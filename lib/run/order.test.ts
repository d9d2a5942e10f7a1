import assert from "node:assert/strict";
import { seededRandom } from "../../fake_inbox/behaviour.ts";
import { planRounds, shuffle } from "./order.ts";

const IDS = ["baseline", "none", "in-process", "redis", "redis-x4", "sqlite"];

Deno.test("planRounds: every configuration's first run before any second run", () => {
  const rounds = planRounds(IDS, 3, 42);
  assert.equal(rounds.length, 3);
  for (const round of rounds) {
    assert.deepEqual([...round].sort(), [...IDS].sort(), "each once a round");
  }
  // Flattened, the n-th run of every id comes before any (n+1)-th run.
  const seen = new Map<string, number>();
  for (const [index, round] of rounds.entries()) {
    for (const id of round) {
      seen.set(id, (seen.get(id) ?? 0) + 1);
      for (const other of IDS) {
        assert.ok(
          (seen.get(other) ?? 0) >= index,
          `${other} in round ${index}`,
        );
      }
    }
  }
});

Deno.test("planRounds: the same seed gives the same order, another seed another", () => {
  assert.deepEqual(planRounds(IDS, 3, 7), planRounds(IDS, 3, 7));
  // With 720 orders of six, a few seeds cannot all give the given order.
  const firsts = [1, 2, 3, 4, 5].map((seed) => planRounds(IDS, 1, seed)[0]);
  assert.ok(firsts.some((order) => order.join() !== IDS.join()));
  assert.ok(new Set(firsts.map((o) => o.join())).size > 1);
  // The rounds of one suite differ from each other too.
  const [a, b, c] = planRounds(IDS, 3, 7);
  assert.ok(a.join() !== b.join() || b.join() !== c.join());
});

Deno.test("planRounds: pinned entries first, once-only entries in round 1 only", () => {
  const entries = ["generator", "a", "b", "a-max", "c"];
  const rounds = planRounds(entries, 2, 9, {
    pinned: (e) => e === "generator",
    once: (e) => e.endsWith("-max"),
  });
  assert.equal(rounds[0][0], "generator");
  assert.equal(rounds[1][0], "generator");
  assert.ok(rounds[0].includes("a-max"));
  assert.ok(!rounds[1].includes("a-max"));
  assert.throws(() => planRounds(entries, 0, 1), /runs must be a positive/);
});

Deno.test("seededRandom: a fixed sequence in [0, 1); shuffle keeps every item", () => {
  const random = seededRandom(1);
  const values = Array.from({ length: 1000 }, random);
  assert.ok(values.every((v) => v >= 0 && v < 1));
  assert.deepEqual(
    Array.from({ length: 3 }, seededRandom(1)),
    values.slice(0, 3),
  );
  assert.deepEqual(shuffle(IDS, seededRandom(5)).sort(), [...IDS].sort());
});
