import assert from "node:assert/strict";
import { DEFAULTS, parseCli, suiteParams } from "./params.ts";
import { UsageError } from "../params/mod.ts";

Deno.test("parseCli: defaults, env and flags", () => {
  const d = parseCli([], {});
  assert.equal(d.total, 500);
  assert.equal(d.recipients, 100);
  assert.deepEqual(d.parallel, [1, 4]);
  // A plain run never writes the published results: bench.ts makes a
  // folder of runs/ when --out is not given.
  assert.equal(d.out, null);
  assert.deepEqual(d.drivers, []);
  assert.equal(d.timeoutSeconds, DEFAULTS.timeoutSeconds);
  assert.deepEqual(d.fanout, ["auto"]);
  assert.deepEqual(d.rsaBits, [2048]);
  assert.equal(d.inbox.latency, null);
  assert.equal(d.crashWorkerAt, null);
  const env = parseCli([], { TOTAL: "20", RECIPIENTS: "7" });
  assert.equal(env.total, 20);
  assert.equal(env.recipients, 7);
  const flags = parseCli(
    [
      "--total",
      "3",
      "--recipients=4",
      "--drivers",
      "redis, none",
      "--parallel",
      "1,4,4",
    ],
    { TOTAL: "20", RECIPIENTS: "7" },
  );
  assert.equal(flags.total, 3, "flags override env");
  assert.equal(flags.recipients, 4);
  assert.deepEqual(flags.drivers, ["redis", "none"]);
  assert.deepEqual(flags.parallel, [1, 4]);
  // No budget unless given: each row to its end or its time limit.
  assert.equal(d.budgetSeconds, null);
  assert.equal(d.timeoutSeconds, 1_200);
  // Stage timing is on unless --no-stages, and recorded only when off.
  assert.equal(suiteParams(d).stages, undefined);
  assert.equal(suiteParams(parseCli(["--no-stages"], {})).stages, false);
});

Deno.test("parseCli: bad input names the problem", () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [[], { TOTAL: "abc" }, /TOTAL must be a whole number, got "abc"/],
    [[], { RECIPIENTS: "0" }, /RECIPIENTS must be between 1 and/],
    [[], { TOTAL: "-5" }, /TOTAL must be a whole number/],
    [[], { TOTAL: "1.5" }, /TOTAL must be a whole number/],
    [["--total", "99999999999"], {}, /--total must be between 1 and/],
    [["--total", "100000", "--recipients", "10000"], {}, /more than the/],
    [["--parallel", "0"], {}, /--parallel must be between 1 and/],
    [["--parallel", ""], {}, /--parallel needs at least one level/],
    [["--drivers", ","], {}, /--drivers needs at least one driver/],
    [["--timeout", "soon"], {}, /--timeout must be a positive number/],
    [["--stall-timeout=-1"], {}, /--stall-timeout must be a positive/],
    [["--fanout", "maybe"], {}, /--fanout must be auto, skip or force/],
    [["--fanout", "auto,nah"], {}, /--fanout must be auto, skip or force/],
    [
      ["--scenario", "doom"],
      {},
      /unknown scenario "doom"; known scenarios: original/,
    ],
    [["--inbox-latency", "fast"], {}, /--inbox-latency must be a delay/],
    [["--inbox-latency", "300-50ms"], {}, /--inbox-latency must be a delay/],
    [["--inbox-error-rate", "2"], {}, /--inbox-error-rate must be a share/],
    [["--inbox-gone-rate", "x"], {}, /--inbox-gone-rate must be a share/],
    [["--crash-worker-at", "0"], {}, /--crash-worker-at must be a share/],
    [
      ["--inbox-error-rate", "0.6", "--inbox-drop-rate", "0.6"],
      {},
      /add up to more than 1/,
    ],
    [["--rsa-bits", "1024"], {}, /--rsa-bits must be 2048, 3072 or 4096/],
    [
      ["--budget-none=0.8"],
      {},
      /--budget-none is gone: .* its time limit \(--timeout S\); give --budget S/,
    ],
    [["--bogus"], {}, /Unknown option '--bogus'.*--help/],
    [["extra"], {}, /--help/],
  ];
  for (const [args, env, message] of cases) {
    assert.throws(() => parseCli(args, env), (error: unknown) => {
      assert.ok(error instanceof UsageError, `${args} ${JSON.stringify(env)}`);
      assert.match(error.message, message);
      return true;
    });
  }
});

Deno.test("parseCli: scenarios preset settings that flags and env override", () => {
  const realistic = parseCli(["--scenario", "realistic"], {});
  assert.equal(realistic.total, 100);
  assert.deepEqual(realistic.parallel, [1, 4, 16, 64]);
  assert.deepEqual(realistic.inbox.latency, { minMs: 50, maxMs: 300 });
  assert.equal(realistic.inbox.errorRate, 0.02);
  const original = parseCli(["--scenario", "original"], { TOTAL: "7" });
  assert.equal(original.total, 7, "env beats the preset");
  assert.deepEqual(original.rsaBits, [4096]);
  const crash = parseCli(
    ["--scenario", "crash", "--crash-worker-at", "30%"],
    {},
  );
  assert.equal(crash.crashWorkerAt, 0.3, "a flag beats the preset");
  const axes = parseCli(
    ["--fanout", "auto,skip", "--rsa-bits", "2048,4096"],
    {},
  );
  assert.deepEqual(axes.fanout, ["auto", "skip"]);
  assert.deepEqual(axes.rsaBits, [2048, 4096]);
  const params = suiteParams(axes);
  assert.equal(params.fanout, "auto");
  assert.deepEqual(params.axes, {
    fanout: ["auto", "skip"],
    rsaBits: [2048, 4096],
  });
  assert.equal(params.inbox, undefined, "an instant inbox is not recorded");
  assert.deepEqual(suiteParams(crash).crash, { workerAt: 0.3 });
});

Deno.test("parseCli: steady load flags", () => {
  const o = parseCli([
    "--rate",
    "2,8,0.5",
    "--duration",
    "30",
    "--arrivals",
    "fixed",
    "--find-max-rate",
    "--latency-bound",
    "500ms",
    "--idle",
    "10",
    "--senders",
    "1,8",
  ], {});
  assert.deepEqual(o.load, {
    rates: [2, 8, 0.5],
    durationSeconds: 30,
    arrivals: "fixed",
    seed: 1,
    drainSeconds: 30,
    senders: [1, 8],
    maxRate: {
      latencyBoundMs: 500,
      timeBoxSeconds: 300,
      startRate: 1,
      probeSeconds: 20,
      probeDrainSeconds: 10,
    },
    idleSeconds: 10,
  });
  assert.deepEqual(suiteParams(o).load, o.load);
  assert.equal(parseCli([], {}).load, undefined);
  assert.equal(suiteParams(parseCli([], {})).load, undefined);
});

Deno.test("parseCli: the steady scenario idles and searches capacity", () => {
  const o = parseCli(["--scenario", "steady"], {});
  assert.equal(o.recipients, 10);
  assert.deepEqual(o.parallel, [1]);
  assert.deepEqual(o.load?.rates, []);
  assert.deepEqual(o.load?.maxRate, {
    latencyBoundMs: 5000,
    timeBoxSeconds: 240,
    startRate: 8,
    probeSeconds: 20,
    probeDrainSeconds: 10,
  });
  assert.equal(o.load?.idleSeconds, 20);
  const fewer = parseCli(["--scenario", "steady", "--rate", "4"], {});
  assert.deepEqual(fewer.load?.rates, [4]);
});

Deno.test("parseCli: bad steady-load input names the problem and the fix", () => {
  const bad: [string[], RegExp][] = [
    [["--rate", "0"], /--rate must be a rate .* got "0"/],
    [["--rate", "fast"], /--rate must be a rate/],
    [
      ["--rate", "2", "--arrivals", "bursty"],
      /--arrivals must be poisson or fixed/,
    ],
    [["--duration", "10"], /--duration applies to rate runs; add --rate R/],
    [["--latency-bound", "2s"], /applies to --find-max-rate/],
    [
      ["--find-max-rate", "--latency-bound", "soon"],
      /--latency-bound must be a duration like 5s/,
    ],
    [["--senders", "0"], /--senders must be between 1 and/],
    [
      ["--rate", "2", "--crash-worker-at", "0.5"],
      /crash tests .* run on a burst/,
    ],
  ];
  for (const [args, message] of bad) {
    assert.throws(() => parseCli(args, {}), (e: Error) => {
      assert.ok(e instanceof UsageError, String(e));
      assert.match(e.message, message);
      return true;
    });
  }
});
