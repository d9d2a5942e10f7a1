/**
 * Redis (`@fedify/redis`): the drivers (persistence modes, the registry's
 * 1.8.7), the `LIMIT 1` ablation, and the throwaway server with its
 * fetcher (`REDIS_URL` when given).
 *
 * @module
 */
export {
  redis187Driver,
  redisAofDriver,
  redisDriver,
  redisRdbDriver,
} from "./redis.ts";
export { redisLimit1Driver } from "./redis_limit1.ts";
export {
  probeRedis,
  REDIS_PERSISTENCE,
  redisAofService,
  type RedisPersistence,
  redisPersistenceArgs,
  redisRdbService,
  redisService,
  startRedis,
  type StartRedisOptions,
} from "./redis_server.ts";
export { redisFetcher } from "./redis_fetch.ts";
