/**
 * `deno task test [FILE…]`: every test file of the project (or the files
 * named), run by {@link TEST_PROCESSES} `deno test` processes at once, each taking the next
 * file as soon as it is done, then one summary line in `deno test`'s own
 * form (`ok | 458 passed (47 steps) | 0 failed | 6 ignored (4m41s)`), which
 * CI reads.  Each file's output is printed whole when it ends.
 *
 * Why processes rather than `deno test --parallel`: that runs files side by
 * side in one process, and some tests set environment variables for their
 * process (`REDIS_URL`, …) that a file beside them would then run against.
 * Separate processes keep them apart, and most tests wait on servers,
 * timers and child processes, so several at once share two cores well.
 * The files are type-checked once, first, and each process skips the check.
 * The longest files start first, and a file that shares its tests between
 * processes runs as several (`test_plan.ts`), so that the processes end
 * together; `--record-durations` writes how long each file took to the list
 * that order comes from.
 *
 * Exit codes: 0 every test passed; 1 a test failed, a file ended without a
 * summary, a sharded file ran its tests unshared, or the type check failed;
 * 2 an option it does not take.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FETCH_ENV,
  type ServiceDefinition,
  ServiceManager,
} from "../services/mod.ts";
import { backendServices, builtinDrivers } from "../../drivers/mod.ts";
import {
  type Durations,
  DURATIONS_URL,
  formatDurations,
  parseDurations,
  planRuns,
  runName,
  SHARD_ENV,
  shardLine,
  type TestFile,
  type TestRun,
} from "./test_plan.ts";

/**
 * How many `deno test` processes run at once.  The tests mostly wait (on
 * servers, timers, child processes): on two cores, two processes kept 1.1
 * cores busy and took 8m16s, three kept 1.5 busy and took 6m36s, every
 * test passing both times (the project's own host, a quiet AMD EPYC).
 */
export const TEST_PROCESSES = 3;

/**
 * The servers the tests start, in the order the runner reports them: one
 * per backend of the registry, in its order.
 */
const TEST_SERVERS: readonly ServiceDefinition[] = backendServices(
  builtinDrivers,
);

/**
 * Makes the tests' servers ready before any test runs: fetches those that
 * must be fetched (once, into the bench's cache), and prints where each
 * comes from, or why the tests that need it are skipped.
 *
 * @param services The manager to fetch with (it starts no server).
 * @param servers The servers to make ready.
 * @returns The lines to print.
 */
export async function provisionTestServers(
  services: ServiceManager,
  servers: readonly ServiceDefinition[] = TEST_SERVERS,
): Promise<string[]> {
  const lines: string[] = [];
  for (const def of servers) {
    const availability = await services.provision(def);
    lines.push(
      availability.available
        ? `  ${def.name}: ${availability.note ?? "available"}`
        : `  ${def.name}: the tests that need it are skipped: ${availability.reason}`,
    );
  }
  return lines;
}

/** What one `deno test` summary line counts. */
export interface TestCounts {
  /** Tests that passed. */
  readonly passed: number;
  /** Steps that passed. */
  readonly passedSteps: number;
  /** Tests that failed. */
  readonly failed: number;
  /** Steps that failed. */
  readonly failedSteps: number;
  /** Tests ignored. */
  readonly ignored: number;
}

/** No test at all. */
export const NO_TESTS: TestCounts = {
  passed: 0,
  passedSteps: 0,
  failed: 0,
  failedSteps: 0,
  ignored: 0,
};

const SUMMARY = /^(ok|FAILED) \| .*\d+ passed.*\| \d+ failed/;

/**
 * The counts of the last summary line in a `deno test` run's output, or
 * `null` when it has none (the process died before the end).
 *
 * @param output The run's output, colours off.
 */
export function parseSummary(output: string): TestCounts | null {
  const line = output.split("\n").findLast((l) => SUMMARY.test(l));
  if (line == null) return null;
  const count = (pattern: RegExp) => Number(pattern.exec(line)?.[1] ?? 0);
  return {
    passed: count(/(\d+) passed/),
    passedSteps: count(/passed \((\d+) steps?\)/),
    failed: count(/(\d+) failed/),
    failedSteps: count(/failed \((\d+) steps?\)/),
    ignored: count(/(\d+) ignored/),
  };
}

/** The sum of two counts. */
export function addCounts(a: TestCounts, b: TestCounts): TestCounts {
  return {
    passed: a.passed + b.passed,
    passedSteps: a.passedSteps + b.passedSteps,
    failed: a.failed + b.failed,
    failedSteps: a.failedSteps + b.failedSteps,
    ignored: a.ignored + b.ignored,
  };
}

/** `8m12s`, `13s` or `450ms`, as `deno test` writes a duration. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1000);
  return seconds < 60
    ? `${seconds}s`
    : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

/**
 * A summary line in `deno test`'s form; `FAILED` when `failed` says so.
 *
 * @param counts The counts over every file.
 * @param ms The whole run's wall time.
 * @param failed Whether anything failed (a test, or a file with no summary).
 */
export function formatSummary(
  counts: TestCounts,
  ms: number,
  failed: boolean,
): string {
  const steps = (n: number) =>
    n === 0 ? "" : ` (${n} step${n === 1 ? "" : "s"})`;
  return [
    failed ? "FAILED" : "ok",
    `${counts.passed} passed${steps(counts.passedSteps)}`,
    `${counts.failed} failed${steps(counts.failedSteps)}`,
    ...(counts.ignored > 0 ? [`${counts.ignored} ignored`] : []),
  ].join(" | ") + ` (${formatDuration(ms)})`;
}

/** Top-level folders that hold no tests: published and user results. */
const SKIPPED_AT_ROOT = new Set(["results", "runs"]);

/**
 * Every `*.test.ts` file under `root` but its `results/` and `runs/` (and
 * any `node_modules` or hidden folder), largest first (a rough first guess
 * at the longest, so that the long files start early and the processes
 * end together), as paths relative to `root`.
 */
export function findTestFiles(root: string): string[] {
  const found: { path: string; size: number }[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      if (dir === root && SKIPPED_AT_ROOT.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && entry.name.endsWith(".test.ts")) {
        found.push({
          path: relative(root, path),
          size: Deno.statSync(path).size,
        });
      }
    }
  };
  walk(root);
  return found
    .sort((a, b) => b.size - a.size || a.path.localeCompare(b.path))
    .map((f) => f.path);
}

/** An import of `shardedTest` (lib/testing/shards.ts) in a file's source. */
const SHARDED = /^import\s*\{[^}]*\bshardedTest\b[^}]*\}\s*from\s/m;

/** The files at `paths` (relative to the working folder), as the plan sees them. */
export function describeFiles(paths: readonly string[]): TestFile[] {
  return paths.map((path) => ({
    path,
    size: Deno.statSync(path).size,
    sharded: SHARDED.test(Deno.readTextFileSync(path)),
  }));
}

/** The recorded durations, or none when the list is missing. */
function readDurations(): Durations {
  try {
    return parseDurations(Deno.readTextFileSync(DURATIONS_URL));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
}

const FLAGS = ["--allow-all", "--unstable-kv"];

/** What one `deno test` process gave. */
interface RunResult {
  /** Its stdout, then its stderr. */
  readonly output: string;
  /** Its summary line's counts, `null` when it had none. */
  readonly counts: TestCounts | null;
  /** Its exit code. */
  readonly code: number;
  /** Its wall time. */
  readonly ms: number;
}

/**
 * Runs one test file, or one shard of it, in a `deno test` process of its
 * own.  Not through `spawnProcess` (lib/system/spawn.ts): a test process
 * stays in the terminal's process group, so that a Ctrl-C reaches it
 * directly.
 */
async function runFile(run: TestRun): Promise<RunResult> {
  const started = performance.now();
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["test", ...FLAGS, "--no-check", run.path],
    // The runner fetched what it could: a test that finds a server missing
    // skips rather than fetching it again (or failing) on its own.
    env: {
      NO_COLOR: "1",
      [FETCH_ENV]: "no",
      ...(run.shard == null
        ? {}
        : { [SHARD_ENV]: `${run.shard.index}/${run.shard.count}` }),
    },
    stdin: "null",
  }).output();
  const output = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  const ms = performance.now() - started;
  return { output, counts: parseSummary(output), code, ms };
}

/**
 * Why a process's result is a failure, or `undefined` when it is not: a
 * failed test, an exit code, no summary, or a shard that ran tests without
 * saying its shard (a file that did not share them, and so ran them all).
 */
export function brokenBecause(
  run: TestRun,
  result: Omit<RunResult, "ms">,
): string | undefined {
  const name = runName(run);
  const { counts } = result;
  if (counts == null) {
    return `${name}: ended with exit code ${result.code} and no summary`;
  }
  if (
    run.shard != null && !result.output.includes(shardLine(run.shard)) &&
    counts.passed + counts.failed + counts.ignored > 0
  ) {
    return `${name}: ran its tests unshared (each shard runs them all): ` +
      "register every test of the file with shardedTest " +
      "(lib/testing/shards.ts), or none";
  }
  if (counts.failed > 0 || result.code !== 0) {
    return `${name}: ${counts.failed} failed`;
  }
  return undefined;
}

const USAGE = `Usage: deno task test [--record-durations] [FILE…]

Runs every test file of the project (or the FILEs given) in three deno test
processes at once, longest first, and prints one summary line.  For deno
test's own options (--filter, …), run deno test --allow-all --unstable-kv
FILE directly.

  --record-durations  write how long each file took to
                      lib/cli/test_durations.json (the files not run keep
                      their entries when FILEs are given)`;

async function main(argv: readonly string[]): Promise<number> {
  const record = argv.includes("--record-durations");
  const args = argv.filter((a) => a !== "--record-durations");
  if (args.some((a) => a.startsWith("-"))) {
    const help = args.includes("--help") || args.includes("-h");
    (help ? console.log : console.error)(USAGE);
    return help ? 0 : 2;
  }
  const started = performance.now();
  const root = Deno.cwd();
  // As the list names them: relative to the root, `./` and `..` resolved.
  const files = args.length > 0
    ? args.map((a) => relative(root, resolve(root, a)))
    : findTestFiles(root);
  const check = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--unstable-kv", ...files],
    stdin: "null",
  }).spawn().status;
  if (!check.success) {
    console.log(formatSummary({ ...NO_TESTS, failed: 1 }, 0, true));
    return 1;
  }
  console.log("servers:");
  for (const line of await provisionTestServers(new ServiceManager())) {
    console.log(line);
  }
  const durations = readDurations();
  const runs = planRuns(describeFiles(files), durations);
  const workers = Math.min(TEST_PROCESSES, runs.length);
  console.log(
    `running ${files.length} test file${files.length === 1 ? "" : "s"} ` +
      `in ${runs.length} process${runs.length === 1 ? "" : "es"}, ` +
      `${workers} at a time, longest first`,
  );
  const unknown = runs.filter((r) =>
    r.seconds == null && (r.shard?.index ?? 0) === 0
  );
  if (unknown.length > 0 && args.length === 0) {
    console.log(
      `  no recorded duration, so run first: ${
        unknown.map((r) => r.path).join(", ")
      } (deno task test --record-durations records them)`,
    );
  }
  const queue = [...runs];
  let counts = NO_TESTS;
  const broken: string[] = [];
  const took = new Map<string, number>();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let run = queue.shift(); run != null; run = queue.shift()) {
        const result = await runFile(run);
        console.log(result.output.trimEnd());
        took.set(run.path, (took.get(run.path) ?? 0) + result.ms);
        // A file that died before its summary counts as one failure.
        counts = addCounts(
          counts,
          result.counts ?? { ...NO_TESTS, failed: 1 },
        );
        const why = brokenBecause(run, result);
        if (why != null) broken.push(why);
      }
    }),
  );
  const failed = broken.length > 0;
  if (failed) {
    console.log(`\nfailed:\n${broken.map((b) => `  ${b}`).join("\n")}`);
  }
  if (record) {
    const recorded = Object.fromEntries(
      [...took].map(([path, ms]) => [path, ms / 1000]),
    );
    await Deno.writeTextFile(
      DURATIONS_URL,
      formatDurations(
        args.length > 0 ? { ...durations, ...recorded } : recorded,
      ),
    );
    console.log(
      `\ndurations recorded in ${relative(root, fileURLToPath(DURATIONS_URL))}`,
    );
  }
  console.log(
    "\n" + formatSummary(counts, performance.now() - started, failed),
  );
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
