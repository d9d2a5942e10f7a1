/**
 * The parameter tables: every entry complete, the scenarios and the
 * results' schema held to them, docs/options.md written from them, uniform
 * messages for bad values, and a parser, help, record and comparison rule
 * built from a fixture table to show that a new flag is one entry.
 */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { OPTIONS_DOC, optionsDoc } from "../cli/docs.ts";
import {
  ADVISE,
  AGENT,
  BENCH,
  choice,
  type CommandTable,
  count,
  DEQUEUE_COST,
  FRESH_CHECK,
  groupDefaults,
  IMAGE,
  INSTANT_INBOX,
  measurementDifferences,
  type ParamSpec,
  parseCommand,
  recordParams,
  renderHelp,
  sameMeasurement,
  SCENARIOS,
  toggle,
  UsageError,
  value,
} from "./mod.ts";

const TABLES: readonly CommandTable<readonly ParamSpec[]>[] = [
  ADVISE,
  AGENT,
  BENCH,
  DEQUEUE_COST,
  FRESH_CHECK,
  IMAGE,
];

Deno.test("every parameter declares every part", () => {
  for (const table of TABLES) {
    const titles = table.sections.map((s) => s.title);
    for (const spec of table.params) {
      const where = `${table.command} ${spec.name}`;
      assert.match(spec.name, /^[a-z][A-Za-z]*$/, where);
      assert.match(spec.flag, /^[a-z][a-z-]*$/, where);
      assert.ok(spec.help.trim().length > 5, `${where}: help`);
      assert.ok(titles.includes(spec.section), `${where}: section`);
      assert.ok(
        ["measurement", "runs", "nothing"].includes(spec.affects),
        `${where}: affects`,
      );
      assert.ok("default" in spec, `${where}: default`);
      if (spec.shape !== "switch") {
        assert.ok(spec.kind != null, `${where}: kind`);
        assert.equal(typeof spec.kind.unit, "string", `${where}: unit`);
        assert.ok(spec.kind.placeholder !== "", `${where}: placeholder`);
      }
      if (spec.shape === "list") {
        assert.ok(spec.item && spec.example, `${where}: item and example`);
        assert.doesNotThrow(
          () => parseCommand(table, [`--${spec.flag}`, spec.example!], {}),
          `${where}: its example parses`,
        );
      }
      if (spec.affects === "measurement" && table === BENCH) {
        const recorded = spec.record != null ||
          (table.groups ?? []).some((g) => g.gate?.includes(spec.name));
        assert.ok(recorded, `${where}: a measured parameter is recorded`);
      }
    }
    const names = table.params.map((s) => s.name);
    const flags = table.params.map((s) => s.flag);
    assert.equal(new Set(names).size, names.length, "names are unique");
    assert.equal(new Set(flags).size, flags.length, "flags are unique");
  }
});

Deno.test("every scenario sets known parameters to valid values", () => {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    for (const key of Object.keys(scenario.settings)) {
      assert.ok(
        BENCH.params.some((s) => s.name === key),
        `scenario ${name} sets ${key}, which the table does not declare`,
      );
    }
    const cpus = String(scenario.settings.cpus ?? "").split(",").map(Number);
    if (cpus.some((n) => n > navigator.hardwareConcurrency)) {
      // A scenario for more cores than this machine gives says so.
      assert.throws(
        () => parseCommand(BENCH, ["--scenario", name], {}),
        /this machine gives the bench \d+ cores?; give --cpus from 1/,
      );
      continue;
    }
    assert.doesNotThrow(() => parseCommand(BENCH, ["--scenario", name], {}));
  }
});

const schema = JSON.parse(
  await Deno.readTextFile(
    new URL("../../results/schema.json", import.meta.url),
  ),
);

/** The schema node at a dotted path of the results' params, or undefined. */
function schemaAt(path: string): unknown {
  // deno-lint-ignore no-explicit-any
  let node: any = schema.definitions.SuiteParams;
  for (const key of path.split(".")) {
    while (node?.$ref != null) {
      node = schema.definitions[node.$ref.split("/").pop()];
    }
    node = node?.properties?.[key];
  }
  return node;
}

Deno.test("the results' schema declares every recorded parameter", () => {
  for (const spec of BENCH.params) {
    if (spec.record == null) continue;
    assert.ok(
      schemaAt(spec.record.path) != null,
      `results/schema.json has no params.${spec.record.path} (${spec.name})`,
    );
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  ajv.addSchema(schema, "results");
  const validate = ajv.getSchema("results#/definitions/SuiteParams")!;
  const cases = [
    [],
    ...Object.keys(SCENARIOS).map((name) => ["--scenario", name]),
    ["--fanout", "auto,skip", "--inbox-verify", "--crash-server-at", "0.5"],
    ["--senders", "4", "--idle", "5", "--log-level", "info"],
    ["--cpus", "1", "--queue-rtt", "0,2.5,5"],
    ["--worker-hosts", "1,2", "--workers", "2"],
  ];
  for (const args of cases) {
    const record = recordParams(BENCH, parseCommand(BENCH, args, {}).values);
    assert.ok(
      validate(record),
      `${args.join(" ")}: ${JSON.stringify(validate.errors)}`,
    );
  }
});

Deno.test("docs/options.md is the one the tables write", async () => {
  const onDisk = await Deno.readTextFile(OPTIONS_DOC);
  assert.ok(
    onDisk === optionsDoc(),
    "docs/options.md differs from the parameter tables: run deno task docs",
  );
});

Deno.test("every bad value gets the kind's message, negative ones too", () => {
  const cases: [string[], RegExp][] = [
    [["--rate", "-1"], /--rate must be a rate .* got "-1"/],
    [["--idle", "-1"], /--idle must be a positive number of seconds, got "-1"/],
    [
      ["--find-max-rate", "--max-rate-time", "-5"],
      /--max-rate-time must be a positive number of seconds, got "-5"/,
    ],
    [["--total", "-3"], /--total must be a whole number, got "-3"/],
    [["--parallel", "-4"], /--parallel must be a whole number, got "-4"/],
    [["--seed", "-1", "--rate", "2"], /--seed must be a whole number/],
    [["--total", "--recipients", "5"], /argument missing|--help/],
    [["--cpus", "0"], /--cpus must be between 1 and 1024, got 0/],
    [["--cpus", "-1"], /--cpus must be a whole number, got "-1"/],
    [["--cpus", "1.5"], /--cpus must be a whole number, got "1.5"/],
    [
      ["--cpus", `1,${navigator.hardwareConcurrency + 1}`],
      new RegExp(
        `--cpus ${navigator.hardwareConcurrency + 1}: this machine gives ` +
          `the bench ${navigator.hardwareConcurrency} cores?; give --cpus ` +
          `from 1 to ${navigator.hardwareConcurrency}`,
      ),
    ],
    [
      ["--queue-rtt", "-1"],
      /--queue-rtt must be a number of milliseconds from 0 to 1000, like 5 or 0\.5, got "-1"/,
    ],
    [["--queue-rtt", "fast"], /--queue-rtt must be a number of milliseconds/],
    [["--queue-rtt", "1001"], /--queue-rtt must be a number of milliseconds/],
    [["--queue-rtt", ","], /--queue-rtt needs at least one round trip/],
    [["--worker-hosts", "0"], /--worker-hosts must be between 1 and 64, got 0/],
    [["--worker-hosts", "65"], /--worker-hosts must be between 1 and 64/],
    [["--worker-hosts", "two"], /--worker-hosts must be a whole number/],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => parseCommand(BENCH, args, {}), (e: Error) => {
      assert.ok(e instanceof UsageError, `${args}: ${e}`);
      assert.match(e.message, message, args.join(" "));
      return true;
    });
  }
});

Deno.test("records carry groups only when a member is set", () => {
  const record = (args: string[]) =>
    recordParams(BENCH, parseCommand(BENCH, args, {}).values);
  const plain = record([]);
  // The budget is recorded once the suite has settled it (budget_basis.ts).
  assert.deepEqual(Object.keys(plain).sort(), [
    "fanout",
    "recipients",
    "rsaBits",
    "runs",
    "stallTimeoutSeconds",
    "timeoutSeconds",
    "total",
    "workers",
  ]);
  assert.deepEqual(record(["--inbox-gone-rate", "0.1"]).inbox, {
    latency: null,
    errorRate: 0,
    goneRate: 0.1,
    dropRate: 0,
    verifySignatures: false,
    seed: 1,
  });
  assert.deepEqual(record(["--rsa-bits", "2048,4096"]).axes, {
    fanout: ["auto"],
    rsaBits: [2048, 4096],
  });
  // Deployments: recorded only when set, as lists.
  assert.deepEqual(record(["--cpus", "1", "--queue-rtt", "0,5ms"]).cpus, [1]);
  assert.deepEqual(
    record(["--cpus", "1", "--queue-rtt", "0,5ms"]).queueRttMs,
    [0, 5],
  );
  assert.deepEqual(record(["--queue-rtt", "0.5"]).queueRttMs, [0.5]);
  assert.deepEqual(record(["--worker-hosts", "1,2"]).workerHosts, [1, 2]);
  assert.equal(record([]).workerHosts, undefined);
  assert.deepEqual(record(["--idle", "5"]).load, {
    rates: [],
    durationSeconds: 60,
    arrivals: "poisson",
    seed: 1,
    drainSeconds: 30,
    senders: [],
    idleSeconds: 5,
  });
});

Deno.test("comparison and resume rules follow each parameter's affects", () => {
  const record = (args: string[]) =>
    recordParams(BENCH, parseCommand(BENCH, args, {}).values);
  const base = record([]);
  assert.deepEqual(
    measurementDifferences(BENCH, base, record(["--timeout", "30"])),
    [],
    "a time limit does not change what is measured",
  );
  assert.deepEqual(
    measurementDifferences(BENCH, base, record(["--workers", "2"])).map((d) =>
      d.name
    ),
    ["workers"],
  );
  assert.ok(sameMeasurement(BENCH, base, record(["--timeout", "30"])));
  assert.ok(!sameMeasurement(BENCH, base, record(["--runs", "3"])));
  assert.deepEqual(
    measurementDifferences(BENCH, base, record(["--runs", "3"])),
    [],
    "runs change how often, not what",
  );
  const { workers: _, ...older } = base;
  assert.ok(sameMeasurement(BENCH, older, base), "absent means the default");
});

Deno.test("a new flag is one entry: parser, help, record and rules from a fixture table", () => {
  const params = [
    value({
      name: "messages",
      flag: "messages",
      env: "MESSAGES",
      kind: count(1, 1000, "messages"),
      default: 10,
      help: "messages per run",
      section: "Options",
      affects: "measurement",
      record: { path: "messages" },
    }),
    value({
      name: "orderingKey",
      flag: "ordering-key",
      kind: choice(["none", "object"] as const, "K"),
      default: "none",
      help: "which ordering key each activity gets",
      section: "Options",
      affects: "measurement",
      record: { path: "ordering.key" },
    }),
    toggle({
      name: "verbose",
      flag: "verbose",
      default: false,
      help: "say more",
      section: "Options",
      affects: "nothing",
    }),
  ] as const;
  const table: CommandTable<typeof params> = {
    command: "bench",
    usage: "fixture [options]",
    summary: "A fixture.",
    sections: [{ title: "Options" }],
    params,
    rules: [],
    footer: "",
  };
  const parsed = parseCommand(
    table,
    ["--ordering-key", "object"],
    { MESSAGES: "20" },
  );
  assert.equal(parsed.values.messages, 20);
  assert.equal(parsed.values.orderingKey, "object");
  assert.equal(parsed.values.verbose, false);
  assert.deepEqual(recordParams(table, parsed.values), {
    messages: 20,
    ordering: { key: "object" },
  });
  assert.match(
    renderHelp(table),
    /--ordering-key K\s+which ordering key each activity gets \(default none\)/,
  );
  assert.throws(
    () => parseCommand(table, ["--ordering-key", "subject"], {}),
    /--ordering-key must be none or object, got "subject"/,
  );
  const plain = recordParams(table, parseCommand(table, [], {}).values);
  assert.deepEqual(
    measurementDifferences(table, plain, recordParams(table, parsed.values))
      .map((d) => d.name),
    ["messages", "ordering"],
  );
});

Deno.test("a flag that checks nothing without another says which one it needs", () => {
  const alone = parseCommand(BENCH, ["--ordering-key", "object"], {});
  assert.equal(alone.warnings.length, 1);
  assert.match(
    alone.warnings[0],
    /--ordering-key object without --workload cud/,
  );
  assert.match(alone.warnings[0], /add --workload cud/);
  for (
    const args of [
      ["--ordering-key", "none"],
      ["--ordering-key", "none,object", "--workload", "cud", "--total", "120"],
      [],
    ]
  ) {
    assert.deepEqual(parseCommand(BENCH, args, {}).warnings, [], String(args));
  }
});

Deno.test("the inbox parameters' defaults are the instant inbox, in its order", () => {
  assert.equal(
    JSON.stringify(groupDefaults(BENCH, "inbox")),
    JSON.stringify(INSTANT_INBOX),
  );
});

Deno.test("agents take the app on Deno only, and --placement without them warns", () => {
  assert.throws(
    () =>
      parseCommand(BENCH, [
        "--agents",
        "127.0.0.1:7070",
        "--runtime",
        "deno,node",
      ], {}),
    /--agents and --sender-agent run the app on Deno .*drop --runtime node/,
  );
  assert.throws(
    () =>
      parseCommand(BENCH, ["--sender-agent", "h:7070", "--runtime", "bun"], {}),
    /drop --runtime bun, or the agents/,
  );
  assert.match(
    parseCommand(BENCH, ["--placement", "local"], {}).warnings.join("\n"),
    /there are no agents: every row runs on this host; give --agents/,
  );
  assert.throws(
    () => parseCommand(BENCH, ["--agents", "nowhere"], {}),
    /--agents expects HOST:PORT,HOST:PORT… .* or swarm, got "nowhere"/,
  );
  const { values } = parseCommand(BENCH, [
    "--agents",
    "swarm",
    "--scale",
    "1,2,4",
    "--placement",
    "agents,local",
    "--worker-cpu-limit",
    "0.25",
  ], {});
  assert.equal(values.agents, "swarm");
  assert.deepEqual(values.scale, [1, 2, 4]);
  assert.deepEqual(values.placement, ["agents", "local"]);
  assert.equal(values.workerCpuLimit, 0.25);
});
