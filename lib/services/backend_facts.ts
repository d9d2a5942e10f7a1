/**
 * What this folder's plumbing needs to know of the backends (the URL
 * variables whose passwords are secret, the default port of each URL
 * scheme, the npm packages the app's queues import), as the driver
 * registry (`drivers/mod.ts`) registers it.  The plumbing names no backend:
 * a backend declares these once, in its driver and its service definition,
 * and everything that lists backends reads them from here.
 *
 * @module
 */

/** The facts of the registered backends. */
export interface BackendFacts {
  /**
   * The environment variables that give a server's URL (`urlEnv` of each
   * service definition), whose passwords `redactSecrets` hides.
   */
  readonly secretUrlEnvs: readonly string[];
  /** The port a client assumes when a URL of a scheme names none. */
  readonly defaultPorts: Readonly<Record<string, number>>;
  /**
   * The npm packages the queues import in the app's processes, by the
   * names `deno.json` maps (those it maps to this project's modules are
   * left out when installing).
   */
  readonly appPackages: readonly string[];
}

let registered: BackendFacts | undefined;

/**
 * Registers the backends' facts, replacing those registered before.  The
 * driver registry does so when it loads, so every process that has the
 * registry in its module graph has them.
 *
 * @param facts The facts, from the registry's drivers.
 */
export function registerBackends(facts: BackendFacts): void {
  registered = facts;
}

/**
 * The registered backends' facts.
 *
 * @throws {Error} When none were registered: import the registry
 *   (`drivers/mod.ts`) before using what depends on them.
 */
export function registeredBackends(): BackendFacts {
  if (registered == null) {
    throw new Error(
      "no backends registered: import the driver registry " +
        "(drivers/mod.ts) before redacting secrets, reading URL ports or " +
        "installing the app's packages",
    );
  }
  return registered;
}
