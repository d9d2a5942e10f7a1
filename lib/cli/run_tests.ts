/**
 * `deno task test [FILE…]`: every test file of the project (or the files
 * named), run by two `deno test` processes at once, each taking the next
 * file as soon as it is done, then one summary line in `deno test`'s own
 * form (`ok | 458 passed (47 steps) | 0 failed | 6 ignored (4m41s)`), which
 * CI reads.  Each file's output is printed whole when it ends.
 *
 * Why processes rather than `deno test --parallel`: that runs files side by
 * side in one process, and some tests set environment variables for their
 * process (`REDIS_URL`, …) that a file beside them would then run against.
 * Two processes keep them apart, and most tests wait on servers, timers and
 * child processes, so two at once take about half the time on two cores.
 * The files are type-checked once, first, and each process skips the check.
 *
 * Exit codes: 0 every test passed; 1 a test failed, a file ended without a
 * summary, or the type check failed; 2 an option it does not take.
 *
 * @module
 */
import { join, relative } from "node:path";
import {
  FETCH_ENV,
  type ServiceDefinition,
  ServiceManager,
} from "../services/mod.ts";
import { rabbitmqService } from "../../drivers/amqp/mod.ts";
import { mariadbService } from "../../drivers/mysql/mod.ts";
import { postgresService } from "../../drivers/postgres/mod.ts";
import { redisService } from "../../drivers/redis/mod.ts";

/** The servers the tests start, in the order the runner reports them. */
const TEST_SERVERS: readonly ServiceDefinition[] = [
  postgresService,
  redisService,
  rabbitmqService,
  mariadbService,
];

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
 * at the longest, so that the long files start early and the two processes
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

const FLAGS = ["--allow-all", "--unstable-kv"];

/**
 * Runs one test file in a `deno test` process of its own.  Not through
 * `spawnProcess` (lib/system/spawn.ts): a test process stays in the
 * terminal's process group, so that a Ctrl-C reaches it directly.
 */
async function runFile(
  file: string,
): Promise<{ output: string; counts: TestCounts | null; code: number }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["test", ...FLAGS, "--no-check", file],
    // The runner fetched what it could: a test that finds a server missing
    // skips rather than fetching it again (or failing) on its own.
    env: { NO_COLOR: "1", [FETCH_ENV]: "no" },
    stdin: "null",
  }).output();
  const output = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  return { output, counts: parseSummary(output), code };
}

const USAGE = `Usage: deno task test [FILE…]

Runs every test file of the project (or the FILEs given) in two deno test
processes at once, and prints one summary line.  For deno test's own options
(--filter, …), run deno test --allow-all --unstable-kv FILE directly.`;

async function main(args: readonly string[]): Promise<number> {
  if (args.some((a) => a.startsWith("-"))) {
    const help = args.includes("--help") || args.includes("-h");
    (help ? console.log : console.error)(USAGE);
    return help ? 0 : 2;
  }
  const started = performance.now();
  const root = Deno.cwd();
  const files = args.length > 0 ? [...args] : findTestFiles(root);
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
  const workers = Math.min(2, files.length);
  console.log(
    `running ${files.length} test file${files.length === 1 ? "" : "s"}, ` +
      `${workers} at a time`,
  );
  const queue = [...files];
  let counts = NO_TESTS;
  const broken: string[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let file = queue.shift(); file != null; file = queue.shift()) {
        const result = await runFile(file);
        console.log(result.output.trimEnd());
        if (result.counts == null) {
          // A file that died before its summary counts as one failure.
          counts = addCounts(counts, { ...NO_TESTS, failed: 1 });
          broken.push(
            `${file}: ended with exit code ${result.code} and no summary`,
          );
        } else {
          counts = addCounts(counts, result.counts);
          if (result.counts.failed > 0 || result.code !== 0) {
            broken.push(`${file}: ${result.counts.failed} failed`);
          }
        }
      }
    }),
  );
  const failed = broken.length > 0;
  if (failed) {
    console.log(`\nfailed:\n${broken.map((b) => `  ${b}`).join("\n")}`);
  }
  console.log(
    "\n" + formatSummary(counts, performance.now() - started, failed),
  );
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
