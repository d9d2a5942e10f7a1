/**
 * "Which queue should I use?" from fixture results files: which queues fit,
 * in what order, with every figure's file; durability from crash files;
 * "not covered" with the command that would measure the question; and the
 * command line's exit codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ConfigurationResult, MaxRateRecord } from "../results/types.ts";
import { result } from "../testing/chart_fixtures.ts";
import { doc } from "../testing/comparison_fixtures.ts";
import { loadRecord, runDeno } from "../testing/mod.ts";
import { advise, type Source } from "./advice.ts";
import { renderAdvice } from "./advice_text.ts";

function search(driver: string, activities: number | null, failed: number) {
  const maxRate: MaxRateRecord = {
    activitiesPerSecond: activities,
    deliveriesPerSecond: activities == null ? null : activities * 10,
    latencyBoundMs: 5000,
    stoppedBy: "bracketed",
    lowestFailedRate: failed,
    probes: [],
    seconds: 60,
  };
  return { ...result(driver, 1, "ok"), id: `${driver}-max-rate`, maxRate };
}

function rate(
  driver: string,
  activities: number,
  p99: number,
): ConfigurationResult {
  return {
    ...result(driver, 1, "ok"),
    id: `${driver}-rate-${activities}`,
    load: loadRecord(activities),
    latencyMs: { p50: p99 / 2, p90: p99, p99, p999: p99, max: p99 },
  };
}

function crash(driver: string, lost: number, duplicates = 0) {
  return result(driver, 1, lost > 0 ? "incomplete" : "ok", {
    expected: 2000,
    delivered: 2000 - lost,
    missing: lost,
    duplicates,
  });
}

/** A results folder: fast but lossy, slow and safe, safe with a poll. */
function sources(): Source[] {
  return [
    {
      path: "results/latest.json",
      document: doc([
        result("fast", 1, "ok", {
          cpuMsPerDelivery: 3,
          serverCpuMsPerDelivery: null,
        }),
        result("safe", 1, "ok", {
          cpuMsPerDelivery: 5,
          serverCpuMsPerDelivery: 2,
        }),
      ]),
    },
    {
      path: "results/steady/latest.json",
      document: doc([
        result("generator", 1, "ok"),
        search("fast", 40, 64),
        rate("fast", 8, 100),
        search("safe", 20, 32),
        rate("safe", 8, 300),
        rate("safe", 16, 900),
        {
          ...search("polling", 20, 32),
          maxRate: {
            ...search("polling", 20, 32).maxRate,
            p99AtCapacityMs: 5200,
            latencyBoundMet: false,
            resolution: 0.1,
          },
        },
        rate("polling", 8, 5000),
      ], { recipients: 10, load: { rates: [8, 16] } as never }),
    },
    {
      path: "results/crash/latest.json",
      document: doc(
        [crash("fast", 990), crash("safe", 0), crash("polling", 0)],
        {
          crash: { workerAt: 0.5 },
        },
      ),
    },
    {
      path: "results/crash-server/latest.json",
      document: doc([crash("safe", 0), crash("fast", 0, 30)], {
        crash: { serverAt: 0.5 },
      }),
    },
  ];
}

Deno.test("advise: queues that fit come first, by latency at the rate, each figure with its file", () => {
  const advice = advise(
    { followers: 600, postsPerMinute: 10, durable: false },
    sources(),
  );
  assert.equal(advice.neededDeliveriesPerSecond, 100);
  assert.ok(advice.covered);
  assert.deepEqual(advice.answers.map((a) => [a.driver, a.fits]), [
    ["fast", true],
    ["safe", true],
    ["polling", true],
  ]);
  const safe = advice.answers[1];
  assert.deepEqual(safe.capacity, {
    value: 200,
    source: "results/steady/latest.json",
  });
  assert.equal(safe.failedAt, 320);
  assert.deepEqual(safe.latency?.value, {
    deliveriesPerSecond: 80,
    p99Ms: 300,
  });
  assert.equal(safe.workerCrash?.source, "results/crash/latest.json");
  assert.deepEqual(safe.cpuMsPerDelivery?.value, { app: 5, server: 2 });
  const text = renderAdvice(advice);
  assert.match(text, /= 100 deliveries\/s/);
  assert.match(
    text,
    /1\. fast\n {3}sustains 400 deliveries\/s \(fell behind at 640\), 4× what is needed \[results\/steady\/latest\.json\]/,
  );
  assert.doesNotMatch(text, /Not covered/);
  // Capacity and latency are apart: the poll's latency is a note.
  assert.deepEqual(advice.answers[2].notes, [
    "p99 latency at that rate 5.2 s, over the 5 s bound",
  ]);
});

Deno.test("advise: --durable leaves out a queue a crash made lose deliveries, and says why", () => {
  const advice = advise(
    { followers: 600, postsPerMinute: 10, durable: true },
    sources(),
  );
  const fast = advice.answers.find((a) => a.driver === "fast")!;
  assert.equal(fast.fits, false);
  assert.match(
    fast.notes.join(),
    /lost 990 of 2000 when a worker crashed \(results\/crash\/latest\.json\)/,
  );
  const polling = advice.answers.find((a) => a.driver === "polling")!;
  assert.ok(polling.fits);
  assert.ok(polling.notes.includes("a server crash was not measured"));
  assert.deepEqual(advice.answers.map((a) => a.driver), [
    "safe",
    "polling",
    "fast",
  ], "measured before unknown");
});

Deno.test("advise: a rate beyond every measurement is not covered, with the command that measures it", () => {
  const advice = advise(
    { followers: 50_000, postsPerMinute: 1, durable: true },
    sources(),
  );
  assert.equal(advice.covered, false);
  assert.deepEqual(advice.highestMeasured?.value, {
    driver: "fast",
    deliveriesPerSecond: 400,
  });
  assert.match(
    advice.measureCommand!,
    /^deno task bench --drivers fast,safe,polling --parallel 1,4 --recipients 10000 --rate 0\.0833 --duration 240 --out runs\/advise$/,
  );
  assert.match(
    renderAdvice(advice),
    /Not covered: .* The highest measured is fast at 400 deliveries\/s \[results\/steady\/latest\.json\]/,
  );
});

Deno.test("deno task advise: answers from a folder, exit 0 when not covered, 2 on bad input", async () => {
  const dir = await Deno.makeTempDir({ prefix: "advise-" });
  try {
    for (const source of sources()) {
      const path = join(dir, source.path.replace(/^results\//, ""));
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, JSON.stringify(source.document));
    }
    const cli = new URL("../cli/advise.ts", import.meta.url).pathname;
    const ask = (...args: string[]) =>
      runDeno(["run", "--allow-read", cli, "--results", dir, ...args]);
    const far = await ask("--followers", "50000", "--posts-per-minute", "1");
    assert.equal(far.code, 0, far.stderr);
    assert.match(far.stdout, /Not covered/);
    const near = await ask(
      "--followers",
      "600",
      "--posts-per-minute",
      "10",
      "--json",
    );
    assert.equal(near.code, 0, near.stderr);
    assert.equal(JSON.parse(near.stdout).answers[0].driver, "fast");
    const bad: [string[], RegExp][] = [
      [
        ["--followers", "-5", "--posts-per-minute", "1"],
        /--followers must be a whole number, got "-5"/,
      ],
      [
        ["--followers", "many", "--posts-per-minute", "1"],
        /--followers must be a whole number/,
      ],
      [
        ["--followers", "5", "--posts-per-minute", "0"],
        /--posts-per-minute must be a number above 0/,
      ],
      [
        ["--followers", "5"],
        /--followers and --posts-per-minute are both needed/,
      ],
      [
        ["--followers", "5", "--posts-per-minute", "1", "--fast"],
        /Unknown option '--fast'/,
      ],
    ];
    for (const [args, message] of bad) {
      const out = await ask(...args);
      assert.equal(out.code, 2, args.join(" "));
      assert.match(out.stderr, message);
    }
    const empty = await runDeno([
      "run",
      "--allow-read",
      cli,
      "--results",
      join(dir, "nowhere"),
      "--followers",
      "5",
      "--posts-per-minute",
      "1",
    ]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /no sustained rates in .*--scenario steady/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
