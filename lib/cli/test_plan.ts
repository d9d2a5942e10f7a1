/**
 * The order in which `deno task test` (`run_tests.ts`) runs the test files,
 * and how it shares a long file between its processes.
 *
 * Its processes each take the next file when done, so the run ends when
 * the last long file does: the longest start first.  How long each file
 * takes is data, `lib/cli/test_durations.json` (seconds, measured with two
 * or three files at once; `deno task test --record-durations` writes it again).  A
 * file the list does not name under its path, nor under its name alone
 * (moved to another folder), starts before every file it names, largest
 * first: nothing says it is short, and a short one costs little at the
 * start.  A name the list holds that no file has is passed over.
 *
 * A file that registers its tests through `shardedTest`
 * (`lib/testing/shards.ts`) runs as several processes, each with
 * {@link SHARD_ENV} naming its share, about one per {@link SHARD_SECONDS}
 * of its recorded duration, so that several processes take a part of it and
 * no single file holds the end of the run.
 *
 * @module
 */
import { basename } from "node:path";

/** The environment variable that names a process's shard: `k/n`. */
export const SHARD_ENV = "TEST_SHARD";

/** A shard: the `index`-th of `count` (from 0). */
export interface Shard {
  /** Which shard, from 0. */
  readonly index: number;
  /** How many shards the file's tests are shared between. */
  readonly count: number;
}

/**
 * The shard that `value` (`k/n`, as in {@link SHARD_ENV}) names, or
 * `undefined` for none (every test).
 *
 * @throws When `value` is not `k/n` with 0 ≤ k < n.
 */
export function parseShard(value: string | undefined): Shard | undefined {
  if (value == null || value === "") return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match == null || count < 1 || index >= count) {
    throw new Error(
      `${SHARD_ENV}=${value}: expected k/n with 0 <= k < n (e.g. 0/4), ` +
        "or unset it to run every test",
    );
  }
  return { index, count };
}

/**
 * The line a shard prints once, by which the runner knows that the file
 * shared its tests rather than running them all.
 */
export function shardLine(shard: Shard): string {
  return `${SHARD_ENV}=${shard.index}/${shard.count}: this process runs ` +
    `share ${shard.index + 1} of ${shard.count} of the file's tests`;
}

/**
 * About how many seconds of a sharded file one process takes: enough that
 * a shard's start (a few seconds: the file's imports and what it reads
 * before registering its tests) is small beside it.
 */
export const SHARD_SECONDS = 60;

/** At most this many shards of a file. */
export const MAX_SHARDS = 6;

/** Seconds by file path, as recorded. */
export type Durations = Readonly<Record<string, number>>;

/** Where the recorded durations are kept. */
export const DURATIONS_URL = new URL("./test_durations.json", import.meta.url);

/**
 * The recorded durations in `text` (the JSON of {@link DURATIONS_URL}):
 * an object of path to seconds.
 *
 * @throws When an entry is not a number of seconds.
 */
export function parseDurations(text: string): Durations {
  const data = JSON.parse(text) as Record<string, unknown>;
  for (const [path, seconds] of Object.entries(data)) {
    if (typeof seconds !== "number" || !(seconds >= 0)) {
      throw new Error(
        `lib/cli/test_durations.json: ${path}: ${JSON.stringify(seconds)} is ` +
          "not a number of seconds; write the list again with " +
          "deno task test --record-durations",
      );
    }
  }
  return data as Durations;
}

/** The list as it is written: paths sorted, seconds to a tenth. */
export function formatDurations(durations: Durations): string {
  const sorted = Object.fromEntries(
    Object.entries(durations)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, seconds]) => [path, Math.round(seconds * 10) / 10]),
  );
  return JSON.stringify(sorted, null, 2) + "\n";
}

/**
 * How long `path` took in the recorded run: under its path, or else under
 * the one recorded path of its file name (a file moved to another folder);
 * `undefined` when neither is known.
 */
export function recordedSeconds(
  path: string,
  durations: Durations,
): number | undefined {
  if (Object.hasOwn(durations, path)) return durations[path];
  const name = basename(path);
  const same = Object.keys(durations).filter((p) => basename(p) === name);
  return same.length === 1 ? durations[same[0]] : undefined;
}

/** How many shards a sharded file of `seconds` runs as. */
export function shardCount(seconds: number | undefined): number {
  if (seconds == null) return 2;
  return Math.max(1, Math.min(MAX_SHARDS, Math.ceil(seconds / SHARD_SECONDS)));
}

/** A test file as the plan sees it. */
export interface TestFile {
  /** Its path, relative to the project's root. */
  readonly path: string;
  /** Its size in bytes, the guess at its length when none is recorded. */
  readonly size: number;
  /** Whether it shares its tests through `shardedTest`. */
  readonly sharded: boolean;
}

/** One `deno test` process of the plan: a file, or a shard of one. */
export interface TestRun {
  /** The file. */
  readonly path: string;
  /** Its shard, when the file is shared between processes. */
  readonly shard?: Shard;
  /** How long it should take, from the recorded durations. */
  readonly seconds?: number;
}

/**
 * The processes to run, in order: the files with no recorded duration
 * first (largest first), then the rest longest first; a sharded file as
 * {@link shardCount} runs, each with its part of the file's duration.
 *
 * @param files The files to run.
 * @param durations The recorded durations.
 */
export function planRuns(
  files: readonly TestFile[],
  durations: Durations,
): TestRun[] {
  const runs: (TestRun & { size: number })[] = [];
  for (const file of files) {
    const seconds = recordedSeconds(file.path, durations);
    const count = file.sharded ? shardCount(seconds) : 1;
    for (let index = 0; index < count; index++) {
      runs.push({
        path: file.path,
        size: file.size,
        ...(count > 1 ? { shard: { index, count } } : {}),
        ...(seconds == null ? {} : { seconds: seconds / count }),
      });
    }
  }
  const unknown = Number.POSITIVE_INFINITY;
  return runs
    .sort((a, b) =>
      (b.seconds ?? unknown) - (a.seconds ?? unknown) ||
      (a.seconds == null ? b.size - a.size : 0) ||
      a.path.localeCompare(b.path) ||
      (a.shard?.index ?? 0) - (b.shard?.index ?? 0)
    )
    .map(({ size: _, ...run }) => run);
}

/** `drivers/drivers.test.ts`, or `drivers/drivers.test.ts (shard 2/4)`. */
export function runName(run: TestRun): string {
  return run.shard == null
    ? run.path
    : `${run.path} (shard ${run.shard.index + 1}/${run.shard.count})`;
}
