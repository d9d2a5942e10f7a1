/**
 * What the lower layers need to know of the backends, derived from a list
 * of drivers (the registry's, `builtinDrivers`): the URL variables whose
 * passwords are secret, the default port of each URL scheme, and the npm
 * packages the queues import.  `lib/services/` names no backend; the
 * registry registers these facts with it when it loads.  Also the backends'
 * servers themselves, which the test runner makes ready, and those the
 * bench can fetch, which its help names.
 *
 * @module
 */
import type { BackendFacts } from "../lib/services/backend_facts.ts";
import type { ServiceDefinition } from "../lib/services/service_types.ts";
import type { Driver } from "./driver.ts";

/**
 * The facts of the backends behind `drivers`, each list in the drivers'
 * order without repeats: the `urlEnv` and `ports` of their services, and
 * their queue's package (`queueSpecifier`) with the packages they record
 * (`packages`).
 *
 * @param drivers The registry's drivers.
 */
export function backendFacts(drivers: readonly Driver[]): BackendFacts {
  const services = drivers.flatMap((driver) =>
    driver.service == null ? [] : [driver.service]
  );
  const defaultPorts: Record<string, number> = {};
  for (const service of services) Object.assign(defaultPorts, service.ports);
  return {
    secretUrlEnvs: [...new Set(services.map((service) => service.urlEnv))],
    defaultPorts,
    appPackages: [
      ...new Set(drivers.flatMap((driver) => [
        ...(driver.queueSpecifier == null ? [] : [driver.queueSpecifier]),
        ...(driver.packages ?? []),
      ])),
    ],
  };
}

/**
 * The servers behind `drivers`, one per backend (per URL variable: the
 * first driver's service, so `redis` rather than a persistence mode's), in
 * the drivers' order.
 *
 * @param drivers The registry's drivers.
 */
export function backendServices(
  drivers: readonly Driver[],
): ServiceDefinition[] {
  const services = new Map<string, ServiceDefinition>();
  for (const { service } of drivers) {
    if (service != null && !services.has(service.urlEnv)) {
      services.set(service.urlEnv, service);
    }
  }
  return [...services.values()];
}

/**
 * The servers behind `drivers` that the bench fetches where the machine
 * has none installed (those with a `fetcher`), by their names in prose
 * (`title`), in the drivers' order.
 *
 * @param drivers The registry's drivers.
 */
export function fetchedServers(drivers: readonly Driver[]): string[] {
  return backendServices(drivers)
    .filter((service) => service.fetcher != null)
    .map((service) => service.title ?? service.name);
}
