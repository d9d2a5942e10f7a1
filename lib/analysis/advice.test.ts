/**
 * "Which queue should I use?" from fixture results files: which queues fit,
 * in what order, with every figure's file; durability from crash files;
 * "not covered" with the command that would measure the question; and the
 * command line's exit codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ConfigurationResult, MaxRateRecord } from "../results/mod.ts";
import { result } from "../testing/chart_fixtures.ts";
import { doc } from "../testing/comparison_fixtures.ts";
import { loadRecord, runDeno } from "../testing/mod.ts";
import { advise } from "./advice.ts";
import type { Source } from "./advice_crash.ts";
import { renderAdvice } from "../report/capacity_plan.ts";

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
  extra: Partial<ConfigurationResult> = {},
): ConfigurationResult {
  return {
    ...result(driver, 1, "ok"),
    id: `${driver}-rate-${activities}`,
    load: loadRecord(activities),
    latencyMs: { p50: p99 / 2, p90: p99, p99, p999: p99, max: p99 },
    ...extra,
  };
}

function crash(
  driver: string,
  lost: number,
  duplicates = 0,
  extra: Partial<ConfigurationResult> = {},
) {
  return result(driver, 1, lost > 0 ? "incomplete" : "ok", {
    expected: 2000,
    delivered: 2000 - lost,
    missing: lost,
    duplicates,
    ...extra,
  });
}

/**
 * A worker crash run that lost nothing after `quiet` seconds without a
 * delivery (crash at 5 s, deliveries every second before, the rest after).
 */
function recovered(driver: string, quiet: number, duplicates = 0) {
  const before: [number, number][] = [0, 1, 2, 3, 4, 5].map((t) => [t, 100]);
  return crash(driver, 0, duplicates, {
    crashes: [{ target: "worker", atSeconds: 5, deliveredBefore: 600 }],
    timeline: {
      bucketSeconds: 1,
      deliveries: [...before, [5 + quiet, 1400]],
      cumulative: [],
      queueDepth: [],
    },
  });
}

/** A worker crash run that gave up after `stall` s without a delivery. */
function stalledRun(driver: string, missing: number, stall = 60) {
  return crash(driver, missing, 0, {
    reason: `stalled after the worker crash: ${missing} deliveries lost ` +
      `(no new delivery for ${stall} s)`,
    stallTimeoutSeconds: stall,
    timeoutSeconds: 600,
    elapsedSeconds: 8 + stall,
  });
}

/**
 * A results folder: fast but lossy, slow and safe, safe with a poll (which
 * redelivers after a crash only after 62 s, so a run that waited 60 s was
 * cut off), and a faster variant of the poll measured on its own.
 */
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
      path: "results/polling-fast/latest.json",
      document: doc([search("polling-fast", 50, 64)], { recipients: 100 }),
    },
    {
      path: "results/steady/latest.json",
      document: doc([
        result("generator", 1, "ok"),
        search("fast", 40, 64),
        rate("fast", 8, 100),
        search("safe", 20, 32),
        rate("safe", 8, 300, {
          cpuMsPerDelivery: 6,
          serverCpuMsPerDelivery: 1,
        }),
        rate("safe", 16, 900, {
          cpuMsPerDelivery: 4,
          serverCpuMsPerDelivery: 0.5,
        }),
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
        [crash("fast", 990), crash("safe", 0), recovered("polling", 62, 11)],
        { crash: { workerAt: 0.5 } },
      ),
    },
    {
      path: "results/crash-short/latest.json",
      document: doc([stalledRun("fast", 3), stalledRun("polling", 5)], {
        crash: { workerAt: 0.5 },
      }),
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
  assert.deepEqual(advice.measuredRecipients, {
    value: 10,
    source: "results/steady/latest.json",
  }, "the recipients of the file the capacities come from");
  assert.deepEqual(safe.cpuMsPerDelivery, {
    value: { app: 6, server: 1, basis: "steady", deliveriesPerSecond: 80 },
    source: "results/steady/latest.json",
  }, "CPU at the steady rate nearest the 100/s asked, not the burst's");
  assert.deepEqual(safe.workerCrash?.runs.map((r) => r.source), [
    "results/crash/latest.json",
  ]);
  const text = renderAdvice(advice);
  assert.match(text, /= 100 deliveries\/s/);
  assert.match(
    text,
    /1\. fast\n {3}sustains 400 deliveries\/s \(fell behind at 640\), 4× what is needed \[results\/steady\/latest\.json\]/,
  );
  assert.match(
    text,
    /CPU per delivery at a steady 80 deliveries\/s: app 6 ms, server 1 ms \[results\/steady\/latest\.json\]/,
  );
  assert.match(
    text,
    /CPU per delivery in a burst \(no steady-load run has it\): app 3 ms \[results\/latest\.json\]/,
    "fast has no steady CPU: the burst's, saying so",
  );
  assert.match(
    text,
    /variant polling-fast: sustains 500 deliveries\/s \(results\/polling-fast\/latest\.json\)/,
  );
  assert.match(
    text,
    /measured with 10 recipients per activity, .* \[results\/steady\/latest\.json\]/,
  );
  assert.doesNotMatch(text, /Not covered/);
  // Capacity and latency are apart: the poll's latency is a note.
  assert.deepEqual(advice.answers[2].notes, [
    "p99 latency at that rate 5.2 s, over the 5 s bound",
    "variant polling-fast: sustains 500 deliveries/s " +
    "(results/polling-fast/latest.json)",
  ]);
});

Deno.test("advise: a measured queue whose name extends another's is no variant of it", () => {
  const advice = advise({ followers: 60, postsPerMinute: 10, durable: true }, [
    {
      path: "results/steady/latest.json",
      document: doc([search("kv", 20, 32), search("kv-single", 20, 32)], {
        recipients: 10,
      }),
    },
    {
      path: "results/crash-server/latest.json",
      document: doc([crash("kv-single", 7), crash("kv-aof", 0)], {
        crash: { serverAt: 0.5 },
      }),
    },
  ]);
  const kv = advice.answers.find((a) => a.driver === "kv")!;
  assert.doesNotMatch(kv.notes.join(), /kv-single/);
  assert.deepEqual(kv.serverCrashVariants.map((e) => e.id), ["kv-aof"]);
  const single = advice.answers.find((a) => a.driver === "kv-single")!;
  assert.match(single.notes.join(), /lost 7 of 2000 when its server crashed/);
});

Deno.test("advise: --durable leaves out a queue a crash made lose deliveries, and says why", () => {
  const advice = advise(
    { followers: 600, postsPerMinute: 10, durable: true },
    sources(),
  );
  const polling = advice.answers.find((a) => a.driver === "polling")!;
  assert.ok(polling.fits, "the run cut off before redelivery is not a loss");
  const fast = advice.answers.find((a) => a.driver === "fast")!;
  assert.equal(fast.fits, false);
  assert.match(
    fast.notes.join(),
    /lost 3–990 of 2000 when a worker crashed \(990 in results\/crash\/latest\.json, 3 in results\/crash-short\/latest\.json\)/,
    "a range over every file, each with its figure",
  );
  assert.deepEqual(polling.workerCrash?.lost, { min: 0, max: 0 });
  assert.ok(polling.notes.some((n) => n.startsWith("it has no queue server")));
  const text = renderAdvice(advice);
  assert.match(
    text,
    /server crash: it has no queue server \[results\/steady\/latest\.json\]; losing the machine or disk that holds its queue was not measured\n/,
  );
  assert.match(
    text,
    /worker crash: lost 0, duplicated 11 of 2,000 over 1 run \(1 run cut off, not counted\):\n {5}results\/crash\/latest\.json: lost 0, duplicated 11\n {5}results\/crash-short\/latest\.json: loss unknown, run cut off: it counted 5 missing when it gave up after 60 s without a delivery, while a run of the same configuration went 62 s without one after its crash and then lost nothing \[results\/crash\/latest\.json\]/,
  );
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
  assert.deepEqual(advice.highestMeasured, {
    value: { driver: "polling-fast", deliveriesPerSecond: 500 },
    source: "results/polling-fast/latest.json",
  }, "a variant measured in its own file counts");
  assert.match(
    advice.measureCommand!,
    /^deno task bench --drivers fast,safe,polling --parallel 1,4 --recipients 10000 --rate 0\.0833 --duration 240 --out runs\/advise$/,
  );
  assert.match(
    renderAdvice(advice),
    /Not covered: .* The highest measured is polling-fast at 500 deliveries\/s \[results\/polling-fast\/latest\.json\]/,
  );
});

/** `row` as measured with the app on `runtime`. */
function on<T extends ConfigurationResult>(runtime: string, row: T): T {
  return {
    ...row,
    id: `${row.id}-${runtime}`,
    runtime: { name: runtime, version: "1.0.0" },
  };
}

/** {@link sources} and a file of searches on Node.js and Bun as well. */
function withRuntimes(): Source[] {
  return [
    ...sources(),
    {
      path: "results/runtimes-steady/latest.json",
      document: doc([
        // More searches than results/steady, but Deno's are fewer here.
        search("fast", 30, 64),
        on("node", search("fast", 90, 128)),
        on("node", search("safe", 60, 128)),
        on("node", rate("safe", 8, 200, { cpuMsPerDelivery: 2 })),
        on("bun", search("fast", 70, 128)),
        on("bun", search("safe", 50, 128)),
      ], { recipients: 10 }),
    },
  ];
}

Deno.test("advise: another runtime's searches never answer for Deno, however many", () => {
  const advice = advise(
    { followers: 600, postsPerMinute: 10, durable: false },
    withRuntimes(),
  );
  assert.deepEqual(advice.answers.map((a) => [a.driver, a.capacity]), [
    ["fast", { value: 400, source: "results/steady/latest.json" }],
    ["safe", { value: 200, source: "results/steady/latest.json" }],
    ["polling", { value: 200, source: "results/steady/latest.json" }],
  ]);
  assert.deepEqual(advice.crashRuntimes, []);
  assert.doesNotMatch(
    renderAdvice(advice),
    /The app on|measured with the app on/,
  );
});

Deno.test("advise --runtime node: rates, latency and CPU from Node.js rows; crash figures named as Deno's", () => {
  const advice = advise(
    { followers: 600, postsPerMinute: 10, durable: true, runtime: "node" },
    withRuntimes(),
  );
  assert.deepEqual(advice.answers.map((a) => [a.driver, a.capacity]), [
    ["safe", { value: 600, source: "results/runtimes-steady/latest.json" }],
    ["fast", { value: 900, source: "results/runtimes-steady/latest.json" }],
  ]);
  const safe = advice.answers[0];
  assert.deepEqual(safe.latency?.value, {
    deliveriesPerSecond: 80,
    p99Ms: 200,
  });
  assert.equal(safe.cpuMsPerDelivery?.value.app, 2);
  assert.deepEqual(
    safe.workerCrash?.runs.map((r) => r.source),
    ["results/crash/latest.json"],
    "what a crash loses is the queue's, whichever runtime measured it",
  );
  assert.deepEqual(advice.crashRuntimes, ["deno"]);
  const text = renderAdvice(advice);
  assert.match(
    text,
    /The app on node: rates, latency, CPU and idle cost come only from rows measured with the app on node\./,
  );
  assert.match(
    text,
    /Crash figures were measured with the app on deno: .* not measured on node\./,
  );
  const far = advise(
    { followers: 50_000, postsPerMinute: 1, durable: false, runtime: "bun" },
    withRuntimes(),
  );
  assert.equal(far.covered, false);
  assert.match(far.measureCommand!, / --runtime bun --out runs\/advise$/);
});

/** `row` deployed: cores and round trip as given, its id to match. */
function deployed(
  row: ConfigurationResult,
  cpus: number | null,
  queueRttMs: number | null,
  deliveriesPerSecond: number,
): ConfigurationResult {
  return {
    ...row,
    id: `${row.id}${cpus == null ? "" : `-cpu${cpus}`}${
      queueRttMs == null ? "" : `-rtt${queueRttMs}`
    }`,
    deliveriesPerSecond,
    deployment: { cpus, queueRttMs, workerHosts: null },
  };
}

/** {@link sources} and a file of bursts with the server 0 and 5 ms away. */
function withDeployment(): Source[] {
  return [
    ...sources(),
    {
      path: "results/deployment/latest.json",
      document: doc([
        deployed(result("safe", 1, "ok"), null, 0, 300),
        deployed(result("safe", 1, "ok"), null, 5, 120),
        deployed(result("safe", 4, "ok"), null, 0, 500),
        deployed(result("safe", 4, "incomplete"), null, 5, 400),
      ]),
    },
  ];
}

Deno.test("advise --queue-rtt: each queue's bursts at that round trip beside 0 ms, or not covered with the command", () => {
  const advice = advise(
    { followers: 600, postsPerMinute: 10, durable: false, queueRttMs: 5 },
    withDeployment(),
  );
  const safe = advice.answers.find((a) => a.driver === "safe")!;
  assert.deepEqual(
    safe.deployed.map((d) => [d.id, d.deliveriesPerSecond, d.reference]),
    [["safe-rtt5", 120, 300], ["safe-x4-rtt5", 400, 500]],
  );
  assert.deepEqual(advice.deployment?.covered, true);
  const text = renderAdvice(advice);
  assert.match(text, /Deployed with its queue server 5 ms away/);
  assert.match(
    text,
    /deployed as asked, safe-x4-rtt5: 400 deliveries\/s so far \(stopped\) in a burst, against 500 .* \[results\/deployment\/latest\.json\]/,
  );
  const far = advise(
    { followers: 600, postsPerMinute: 10, durable: false, queueRttMs: 20 },
    withDeployment(),
  );
  assert.equal(far.deployment?.covered, false);
  assert.deepEqual(far.deployment?.measuredRttMs, [0, 5]);
  assert.match(
    renderAdvice(far),
    /Not covered: no results file measured its queue server 20 ms away \(measured: round trips 0 ms, 5 ms; cores none\)\. To measure it: deno task bench --scenario deployment --queue-rtt 0,20 --out runs\/advise/,
  );
  const plain = advise(
    { followers: 600, postsPerMinute: 10, durable: false },
    withDeployment(),
  );
  assert.equal(plain.deployment, null);
  assert.deepEqual(plain.answers.map((a) => a.deployed.length), [0, 0, 0]);
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
