/**
 * `RedisMessageQueue` from `@fedify/redis` 1.8.7 on `ioredis`.  Each run uses
 * its own key prefix, deleted afterwards.
 *
 * @module
 */
import { RedisMessageQueue } from "@fedify/redis";
import { Redis } from "ioredis";
import type { Driver, Json } from "../lib/driver.ts";
import { redisService } from "../lib/services/redis.ts";
import { adaptLegacyQueue } from "./legacy.ts";

interface RedisConfig {
  readonly url: string;
  readonly prefix: string;
  readonly [key: string]: Json;
}

function connect(url: string): Redis {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
  redis.on("error", () => {/* surfaced by the failing command */});
  return redis;
}

/** Fedify's Redis queue (sorted set + pub/sub + lock key). */
export const redisDriver: Driver = {
  name: "redis",
  description: "@fedify/redis RedisMessageQueue (ioredis)",
  crossProcess: true,
  service: redisService,
  packages: ["@fedify/redis", "ioredis"],
  prepare({ runId, serviceUrl }) {
    if (serviceUrl == null) throw new Error("redis: no server URL");
    const config: RedisConfig = { url: serviceUrl, prefix: `fqb:${runId}:` };
    return Promise.resolve({
      config,
      async cleanup() {
        const redis = connect(serviceUrl);
        try {
          let cursor = "0";
          do {
            const [next, keys] = await redis.scan(
              cursor,
              "MATCH",
              `${config.prefix}*`,
              "COUNT",
              1000,
            );
            if (keys.length > 0) await redis.del(...keys);
            cursor = next;
          } while (cursor !== "0");
        } finally {
          redis.disconnect();
        }
      },
    });
  },
  open(config) {
    const { url, prefix } = config as RedisConfig;
    const queue = new RedisMessageQueue(() => connect(url), {
      queueKey: `${prefix}queue`,
      lockKey: `${prefix}lock`,
      channelKey: `${prefix}channel`,
    });
    return Promise.resolve({
      queue: adaptLegacyQueue(queue),
      close: () => Promise.resolve(queue[Symbol.dispose]()),
    });
  },
};
