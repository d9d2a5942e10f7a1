/**
 * The fresh-machine check behind `deno task fresh-check`
 * (`lib/cli/fresh_check.ts`): the README's two commands, run in a container
 * that holds Debian 12 (bookworm, `debootstrap --variant=minbase`) and the
 * host's Node.js and npm, and nothing else (no git, no Redis, no
 * PostgreSQL, no Deno), on a clone of this project at its HEAD.
 *
 * Each module has one job: the README's commands (`readme.ts`), the root
 * file system (`rootfs.ts`) and the image made from it (`image.ts`), the
 * clone (`clone.ts`), the containers (`container.ts`) and the caches in
 * their home (`cache_sizes.ts`), what `deno task test` printed
 * (`test_output.ts`) and why a test was ignored (`ignore_source.ts`), the
 * bench's results (`bench_results.ts`) and the report (`check_report.ts`); the
 * names and paths they share are in `layout.ts`, the check's error in
 * `error.ts`.  The parts that need no Docker are pure and tested beside
 * their modules; the rest has a time limit on every wait and removes every
 * container on every way out.
 *
 * @module
 */
export {
  type BenchRow,
  type BenchSummary,
  fetchedServers,
  readBenchResults,
} from "./bench_results.ts";
export { type CacheSizes, cacheSizes } from "./cache_sizes.ts";
export { cloneProject, type CloneRecord } from "./clone.ts";
export {
  type CommandOutcome,
  type ContainerRun,
  ContainerRunner,
  dockerVersion,
  removeStaleContainers,
  type RunOptions,
} from "./container.ts";
export { FreshCheckError } from "./error.ts";
export { withIgnoreConditions } from "./ignore_source.ts";
export { ensureImage, type ImageOptions, type ImageRecord } from "./image.ts";
export { CONTAINER_USER } from "./layout.ts";
export { type ReadmeCommands, readmeCommands } from "./readme.ts";
export {
  type BenchReport,
  commandPassed,
  type CommandReport,
  type FreshCheckReport,
  renderMarkdown,
  type TestCommandReport,
} from "./check_report.ts";
export { parseTestOutput, type TestReport } from "./test_output.ts";
