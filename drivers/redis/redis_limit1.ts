/**
 * An ablation of the `redis` driver: `RedisMessageQueue` as the `redis`
 * driver runs it (2.3.5 from a Fedify source tree with `--fedify-source`,
 * the registry's 1.8.7 otherwise), unchanged, given an ioredis client whose
 * read of the ready set asks Redis for one message instead of all of them.
 *
 * To dequeue one message, the package reads every ready message with
 * `zrangebyscoreBuffer(queueKey, 0, now)` (an unbounded `ZRANGEBYSCORE`),
 * keeps the first it can take and removes it with `ZREM`.
 * {@link LimitOneRedis} turns exactly that call into
 * `ZRANGEBYSCORE queueKey 0 now LIMIT 0 1`, which returns the same first
 * message, so the queue behaves the same and only the cost of its read
 * changes; with 2.3.5's ordering keys, a first message whose key is locked
 * is skipped by the package and this read then returns no other, so the
 * ablation holds for messages without a key (the dequeue-cost
 * measurement's).  Every other command, and any call to
 * `zrangebyscoreBuffer` with other arguments, goes to ioredis as it is.
 *
 * Not in the default suite: run it beside `redis` with
 * `deno task bench --drivers redis,redis-limit1`.
 *
 * @module
 */
import { Redis } from "ioredis";
import type { Driver } from "../driver.ts";
import { connect, redisDriverFor } from "./redis.ts";

/**
 * An ioredis client whose `zrangebyscoreBuffer(key, min, max)`, called with
 * exactly those three arguments (as `RedisMessageQueue` 1.8.7 and 2.3.5
 * read their ready set), asks for the first match only (`LIMIT 0 1`).  It overrides
 * nothing else: every other method is ioredis's own.
 */
export class LimitOneRedis extends Redis {
  /**
   * `ZRANGEBYSCORE key min max LIMIT 0 1` (as Buffers) when given exactly
   * `key, min, max`; ioredis's own `zrangebyscoreBuffer` otherwise.
   */
  // deno-lint-ignore no-explicit-any
  override zrangebyscoreBuffer(...args: any[]): any {
    if (args.length === 3) {
      const [key, min, max] = args;
      return super.zrangebyscoreBuffer(key, min, max, "LIMIT", 0, 1);
    }
    // deno-lint-ignore no-explicit-any
    return (super.zrangebyscoreBuffer as (...args: any[]) => any)
      .apply(this, args);
  }
}

/**
 * Fedify's Redis queue as the `redis` driver runs it, but reading one ready
 * message per dequeue instead of the whole ready set.
 */
export const redisLimit1Driver: Driver = redisDriverFor({
  name: "redis-limit1",
  docs: {
    queue: "the same as `redis`, its ready-set read asking for one message " +
      "(`LIMIT 0 1`)",
    notes: "an ablation (run only when named): the package is untouched, the " +
      "ioredis client it is given adds the limit",
  },
  summary: "each dequeue reads one ready message (LIMIT 0 1, through a " +
    "wrapped client; an ablation, otherwise as redis)",
  suite: "named",
  client: (url) => connect(url, LimitOneRedis),
  readsBacklog: false,
});
