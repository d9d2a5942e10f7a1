/**
 * The plumbing of the queue servers the bench needs, naming no backend: a
 * server is given by URL (its definition's `urlEnv`) or started as a
 * throwaway instance on a free port; the backends themselves, with their
 * `ServiceDefinition`s, live in `drivers/<backend>/`, and the registry
 * (`drivers/mod.ts`) tells this folder their facts (`registerBackends`).
 *
 * @example
 * ```ts
 * const services = new ServiceManager();
 * try {
 *   const { url } = await services.acquire(definition); // e.g. a backend's
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
} from "./service_types.ts";
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
export { redactSecrets, registerSecrets } from "./secrets.ts";
export {
  type BackendFacts,
  registerBackends,
  registeredBackends,
} from "./backend_facts.ts";
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
export {
  benchCpuGroups,
  type CgroupVersion,
  CPU_PERIOD_MICROS,
  CPU_QUOTA_PROBE,
  type CpuHierarchy,
  CpuQuotaGroups,
  cpuQuotaLauncher,
  cpuQuotaMicros,
  type CpuQuotaProbe,
  type CpuQuotaRecord,
  cpuQuotaUnavailable,
  findCpuHierarchy,
  sweepStaleCpuGroups,
} from "./cpu_quota.ts";
export { UnreachableError, unreachableError } from "./unreachable.ts";
export {
  type LoggedProcess,
  spawnLogged,
  type SpawnLoggedOptions,
} from "../system/logged_process.ts";
export { type AppLauncher, prepareAppRuntime } from "./app_runtimes.ts";
