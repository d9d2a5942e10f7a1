/**
 * One test file's tests shared between the test runner's processes.  A
 * file whose tests take longer than one process should spend on one file
 * (the round trips of every driver: minutes) registers each of them with
 * {@link shardedTest} instead of `Deno.test`.  `deno task test` then runs
 * it as several `deno test` processes (`lib/cli/test_plan.ts`), each with
 * `TEST_SHARD=k/n` in its environment, and each registers its share of
 * the file's tests (dealt in turn, a group of tests that share a server
 * together): together they run every test once, and both of the runner's
 * processes take a part.  Without the variable (the file run
 * on its own, `deno test FILE`) every test is registered, as `Deno.test`
 * would.
 *
 * Every test of such a file goes through {@link shardedTest}: a `Deno.test`
 * beside them would run in each shard.
 *
 * @module
 */
import {
  parseShard,
  type Shard,
  SHARD_ENV,
  shardLine,
} from "../cli/test_plan.ts";

let dealt = 0;
let shard: Shard | undefined | null = null;
const groups = new Map<string, number>();

/**
 * `Deno.test(definition)` when this process's shard (`TEST_SHARD`) takes
 * the test; otherwise nothing.  Tests are dealt to the shards in the order
 * they are registered, one each in turn, which is the same in every shard
 * when the file registers them from the same data in the same order.  The
 * tests of one `group` (those that share a server) all go where its first
 * went, so that the server starts in one process rather than in each.  The
 * first call in a shard prints which it is, by which the runner knows the
 * file shared its tests rather than running them all.
 *
 * @param definition The test, as `Deno.test` takes it.
 * @param group What the test shares with others, if anything.
 * @returns Whether this process registered the test.
 */
export function shardedTest(
  definition: Deno.TestDefinition,
  group?: string,
): boolean {
  if (shard === null) {
    shard = parseShard(Deno.env.get(SHARD_ENV));
    if (shard != null) console.log(shardLine(shard));
  }
  let turn = group == null ? undefined : groups.get(group);
  if (turn == null) {
    turn = dealt++;
    if (group != null) groups.set(group, turn);
  }
  if (shard != null && turn % shard.count !== shard.index) return false;
  Deno.test(definition);
  return true;
}
