import assert from "node:assert/strict";
import { DEFAULTS, parseCli, UsageError } from "./params.ts";

Deno.test("parseCli: defaults, env and flags", () => {
  const d = parseCli([], {});
  assert.equal(d.total, 500);
  assert.equal(d.recipients, 100);
  assert.deepEqual(d.parallel, [1, 4]);
  assert.equal(d.out, "results");
  assert.equal(d.drivers, undefined);
  assert.equal(d.timeoutSeconds, DEFAULTS.timeoutSeconds);
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
    [["--rsa-bits", "1024"], {}, /--rsa-bits must be 2048, 3072 or 4096/],
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
