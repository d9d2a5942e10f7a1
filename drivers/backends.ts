/**
 * What the lower layers need to know of the backends, derived from a list
 * of drivers (the registry's, `builtinDrivers`): the URL variables whose
 * passwords are secret, the default port of each URL scheme, and the npm
 * packages the queues import.  `lib/services/` names no backend; the
 * registry registers these facts with it when it loads.
 *
 * @module
 */
import type { BackendFacts } from "../lib/services/backend_facts.ts";
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
