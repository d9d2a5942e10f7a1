import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { HELP, parseDequeueCostArgs } from "./dequeue_cost.ts";
import { UsageError } from "../params/mod.ts";
import { exists } from "../testing/mod.ts";
import { runDeno } from "../testing/commands.ts";
import { assertCommitRecorded } from "../testing/tools.ts";
import type { DequeueCostDocument } from "../results/dequeue_cost_record.ts";

Deno.test("dequeue-cost arguments: defaults, help and bad input", () => {
  const options = parseDequeueCostArgs([], {})!;
  assert.deepEqual(options, {
    drivers: ["redis", "redis-limit1", "postgres", "postgres-indexed"],
    backlogs: [1000, 5000, 20000, 50000],
    dequeues: 200,
    warmup: 20,
    messageBytes: 4096,
    stepTimeoutSeconds: 60,
    projectionBacklog: 50000,
    project: ["redis"],
    depthBacklogs: [0, 10000, 50000],
    delayed: 0,
    // Never the published results/ by default.
    outDir: "runs/dequeue-cost",
    fedifySource: null,
  });
  assert.equal(
    parseDequeueCostArgs(["--fedify-source", "../f"], {})!.fedifySource,
    "../f",
  );
  assert.equal(
    parseDequeueCostArgs([], { FEDIFY_SOURCE: "../g" })!.fedifySource,
    "../g",
  );
  assert.equal(parseDequeueCostArgs(["--help"], {}), null);
  assert.equal(parseDequeueCostArgs(["-h"], {}), null);
  assert.deepEqual(
    parseDequeueCostArgs(["--backlogs", "2000,500,500"], {})!.backlogs,
    [500, 2000],
  );
  assert.equal(parseDequeueCostArgs(["--warmup", "0"], {})!.warmup, 0);
  for (
    const [args, pattern] of [
      [["--drivers", "nope"], /unknown driver "nope"; deno task bench --list/],
      [["--drivers", "none"], /"none" has no queue to measure; pick one/],
      [["--backlogs", "200"], /exceed --warmup \+ --dequeues \(220\)/],
      [["--dequeues", "x"], /--dequeues must be a whole number, got "x"/],
      [["--dequeues", "-1"], /--dequeues must be a whole number, got "-1"/],
      [["--message-bytes", "100"], /--message-bytes must be between 1024/],
      [["--bogus"], /run with --help for the options/],
    ] as const
  ) {
    assert.throws(() => parseDequeueCostArgs(args, {}), (e: Error) => {
      assert.ok(e instanceof UsageError, String(e));
      assert.match(e.message, pattern);
      return true;
    });
  }
});

Deno.test("dequeue-cost --help comes from its parameter table", () => {
  assert.match(HELP, /^Usage: deno task dequeue-cost \[options\]/);
  for (const flag of ["--drivers", "--backlogs", "--step-timeout", "--out"]) {
    assert.ok(HELP.includes(flag), flag);
  }
});

/** This project's root, where `deno task dequeue-cost` runs. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * A Fedify source tree of the five packages at `version`, not a git
 * checkout, whose sqlite package is the registry's under the tree's name.
 */
async function sqliteTree(dir: string, version: string): Promise<void> {
  for (const name of ["redis", "postgres", "amqp", "denokv", "sqlite"]) {
    const pkg = join(dir, "packages", name);
    await Deno.mkdir(join(pkg, "src"), { recursive: true });
    await Deno.writeTextFile(
      join(pkg, "deno.json"),
      JSON.stringify({
        name: `@fedify/${name}`,
        version,
        imports: { "#sqlite": "./src/sqlite.node.ts" },
      }),
    );
    await Deno.writeTextFile(
      join(pkg, "src", "mod.ts"),
      name === "sqlite"
        ? 'export { SqliteMessageQueue } from "@fedify/sqlite";\n'
        : "export {};\n",
    );
  }
}

Deno.test({
  name:
    "dequeue-cost records which code each queue ran, this project's commit and the command, naming the source tree relatively",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-dequeue-source-" });
    try {
      const tree = join(dir, "tree");
      await sqliteTree(tree, "2.3.5");
      const run = (source: string, out: string) =>
        runDeno([
          "run",
          "-A",
          "--unstable-kv",
          "lib/cli/dequeue_cost.ts",
          "--fedify-source",
          source,
          "--drivers",
          "sqlite",
          "--backlogs",
          "300",
          "--dequeues",
          "50",
          "--warmup",
          "10",
          "--depth-backlogs",
          "0",
          "--out",
          out,
        ], { cwd: ROOT, env: { FEDIFY_SOURCE: "" } });

      // A tree without the packages: exit 2, the path named, nothing written.
      const missing = join(dir, "missing-out");
      const bad = await run(join(dir, "no-tree"), missing);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /no-tree: no packages\/redis\/src\/mod\.ts/);
      assert.equal(await exists(missing), false, "nothing may be written");

      const out = join(dir, "out");
      const result = await run(tree, out);
      assert.equal(result.code, 0, result.stderr);
      const json = await Deno.readTextFile(join(out, "latest.json"));
      const document: DequeueCostDocument = JSON.parse(json);
      assert.deepEqual(document.implementations, {
        sqlite: {
          specifier: "@fedify/sqlite",
          resolved: "packages/sqlite/src/mod.ts",
          official: true,
          version: "2.3.5",
          origin: "fedify-source",
          ref: {
            commit: null,
            tag: null,
            dirty: null,
            noCommitReason: "not a git checkout",
          },
        },
      });
      // No value starts with the tree's absolute path.
      assert.ok(!json.includes(`"${tree}`), json);
      const environment = document.environment as {
        commit?: { sha: string; dirty: boolean } | null;
        noCommitReason?: string;
        command?: string[];
      };
      const command = environment.command ?? [];
      assert.match(command[0], /dequeue_cost\.ts$/);
      const source = command[command.indexOf("--fedify-source") + 1];
      assert.ok(!source.startsWith("/"), source);
      const md = await Deno.readTextFile(join(out, "latest.md"));
      assert.match(
        md,
        /- `sqlite`: `@fedify\/sqlite` 2\.3\.5 from a Fedify source tree \(not a git checkout/,
      );
      // This project's commit where git reads it, or why none, also on
      // the console (which prints the report).
      await assertCommitRecorded(environment, md);
      await assertCommitRecorded(environment, result.stdout);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
