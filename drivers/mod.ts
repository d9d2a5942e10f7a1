/**
 * The driver registry: every built-in queue driver, and loading of a user's
 * own driver modules.  Each backend has a folder here (`redis/`, …: its
 * drivers, variants, stand-in and throwaway server, its face `mod.ts`);
 * adding a driver is a module in its backend's folder and one line in
 * {@link builtinDrivers}.  What lists backends derives from that list:
 * `--list`, the help's server variables, and the facts `lib/services/`
 * gets when this module loads ({@link backendFacts}: the URL variables
 * whose passwords are hidden, the URL schemes' default ports, the packages
 * the app installs on Node.js and Bun).
 *
 * @module
 */
import { registerBackends } from "../lib/services/backend_facts.ts";
import { backendFacts } from "./backends.ts";
import type { Driver } from "./driver.ts";
import {
  amqpConfirmDriver,
  amqpDefaultsDriver,
  amqpDriver,
  amqpOrderedDriver,
  amqpStandInDriver,
} from "./amqp/mod.ts";
import {
  denoKvDriver,
  denoKvFifoDriver,
  denoKvSingleDriver,
  denoKvSingleFifoDriver,
  denoKvSingleStandInDriver,
  denoKvStandInDriver,
} from "./deno_kv/mod.ts";
import { inProcessDriver } from "./in_process/mod.ts";
import { mysqlDriver, mysqlPoll200msDriver } from "./mysql/mod.ts";
import { noneDriver } from "./none/mod.ts";
import {
  postgres187Driver,
  postgresDriver,
  postgresIndexedDriver,
} from "./postgres/mod.ts";
import {
  redis187Driver,
  redisAofDriver,
  redisDriver,
  redisLimit1Driver,
  redisRdbDriver,
} from "./redis/mod.ts";
import {
  sqliteDriver,
  sqliteLockInDequeueDriver,
  sqlitePoll1sDriver,
} from "./sqlite/mod.ts";

export type {
  DepthReport,
  DocsRow,
  Driver,
  DriverCore,
  DriverDocs,
  DriverLifecycle,
  DriverPackaging,
  DriverService,
  DriverTraits,
  Json,
  OpenedQueue,
  OrderingSupport,
  PrepareContext,
  PreparedQueue,
  SuiteTier,
} from "./driver.ts";
export type { RuntimeName } from "../lib/results/mod.ts";
export type { BackendFacts } from "../lib/services/backend_facts.ts";
export { backendFacts, backendServices, fetchedServers } from "./backends.ts";
export { redactSecrets } from "../lib/services/secrets.ts";
export type {
  Availability,
  ServiceDefinition,
  StartedServer,
  StartOptions,
} from "../lib/services/service_types.ts";
export type {
  FetchedLayout,
  ServerFetcher,
  ServerTools,
} from "../lib/services/fetched.ts";
export type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
export {
  amqpConfirmDriver,
  amqpDefaultsDriver,
  amqpDriver,
  amqpOrderedDriver,
  amqpStandInDriver,
  denoKvDriver,
  denoKvFifoDriver,
  denoKvSingleDriver,
  denoKvSingleFifoDriver,
  denoKvSingleStandInDriver,
  denoKvStandInDriver,
  inProcessDriver,
  mysqlDriver,
  mysqlPoll200msDriver,
  noneDriver,
  postgres187Driver,
  postgresDriver,
  postgresIndexedDriver,
  redis187Driver,
  redisAofDriver,
  redisDriver,
  redisLimit1Driver,
  redisRdbDriver,
  sqliteDriver,
  sqliteLockInDequeueDriver,
  sqlitePoll1sDriver,
};

/** Every built-in driver, in the order of the default suite. */
export const builtinDrivers: readonly Driver[] = [
  noneDriver,
  inProcessDriver,
  denoKvDriver,
  denoKvSingleDriver,
  denoKvFifoDriver,
  denoKvSingleFifoDriver,
  denoKvStandInDriver,
  denoKvSingleStandInDriver,
  redisDriver,
  redis187Driver,
  redisRdbDriver,
  redisAofDriver,
  redisLimit1Driver,
  postgresDriver,
  postgres187Driver,
  postgresIndexedDriver,
  amqpDriver,
  amqpDefaultsDriver,
  amqpStandInDriver,
  amqpConfirmDriver,
  amqpOrderedDriver,
  sqliteDriver,
  sqlitePoll1sDriver,
  sqliteLockInDequeueDriver,
  mysqlDriver,
  mysqlPoll200msDriver,
];

// The lower layers learn the backends from the registry, never by name.
registerBackends(backendFacts(builtinDrivers));

/**
 * The drivers `deno task bench` runs when `--drivers` is not given: the
 * original benchmark's queues (`Driver.suite` `"default"`): none,
 * in-process, Deno KV consumed by the sending process, Redis and
 * PostgreSQL, each at every `--parallel` level.
 */
export const defaultSuite: readonly string[] = builtinDrivers
  .filter((driver) => driver.suite === "default")
  .map((driver) => driver.name);

/**
 * The drivers `--drivers all` runs: the default suite and every other queue
 * a Fedify user can deploy (AMQP, SQLite, MySQL, Deno KV with a worker in
 * another process), but not the drivers that answer a narrower question
 * (`Driver.suite` `"named"`): the Redis persistence variants
 * (`--drivers redis,redis-rdb,redis-aof`) and the ablations, which change one
 * thing each
 * (`--drivers redis,redis-limit1,postgres,postgres-indexed,amqp,amqp-confirm`).
 */
export const allSuite: readonly string[] = builtinDrivers
  .filter((driver) => driver.suite !== "named")
  .map((driver) => driver.name);

/**
 * The name in `--drivers` that adds the baseline rows (direct signed POSTs,
 * no queue); `--drivers all` adds them too.
 */
export const BASELINE = "baseline";

/** The name in `--drivers` that stands for {@link allSuite} and the baseline. */
export const ALL = "all";

/** What a `--drivers` list selects. */
export interface Selection {
  /** The drivers, in the order given (the registry's for a suite). */
  readonly drivers: readonly Driver[];
  /** Whether the baseline rows run. */
  readonly baseline: boolean;
}

/**
 * The drivers and baseline a `--drivers` list names: without names the
 * {@link defaultSuite} and every user driver; {@link ALL} for
 * {@link allSuite}, the baseline and every user driver; {@link BASELINE}
 * for the baseline rows; any other name for that driver.
 * @param names The `--drivers` list, empty when not given.
 * @param drivers Every driver, built-in ones first ({@link loadDrivers}).
 * @throws {TypeError} On a name that is no driver, naming the known ones.
 */
export function selectDrivers(
  names: readonly string[],
  drivers: readonly Driver[],
): Selection {
  const user = drivers.slice(builtinDrivers.length).map((d) => d.name);
  const expanded = names.length === 0
    ? [...defaultSuite, ...user]
    : names.flatMap((name) =>
      name === ALL ? [...allSuite, BASELINE, ...user] : [name]
    );
  const selected: Driver[] = [];
  for (const name of new Set(expanded)) {
    if (name === BASELINE) continue;
    const driver = findDriver(drivers, name);
    if (driver == null) {
      throw new TypeError(
        `unknown driver "${name}"; known drivers: ${
          drivers.map((d) => d.name).join(", ")
        }, and ${BASELINE} (direct POSTs) or ${ALL} (see --list)`,
      );
    }
    selected.push(driver);
  }
  return { drivers: selected, baseline: expanded.includes(BASELINE) };
}

function isDriver(value: unknown): value is Driver {
  return typeof value === "object" && value != null &&
    typeof (value as Driver).name === "string" &&
    typeof (value as Driver).description === "string" &&
    typeof (value as Driver).crossProcess === "boolean";
}

/**
 * Imports driver modules (their default export is a {@link Driver} or an array
 * of them) and returns the built-in drivers followed by theirs.
 * @param modules Module specifiers or file URLs.
 * @throws {TypeError} When a module exports no driver or a name is taken.
 */
export async function loadDrivers(
  modules: readonly string[] = [],
): Promise<Driver[]> {
  const drivers = [...builtinDrivers];
  for (const specifier of modules) {
    // The user's own module (`--driver-module`, or a driver's `module`),
    // known only at run time.  `deno publish` warns that it cannot analyze
    // this import; that is expected and harmless: the specifier is an
    // absolute URL (a driver's `import.meta.url`, or a file URL that
    // bench.ts makes of a `--driver-module` path), so it needs no import map.
    const module = await import(specifier);
    const exported = module.default;
    const list = Array.isArray(exported) ? exported : [exported];
    if (list.length < 1 || !list.every(isDriver)) {
      throw new TypeError(
        `${specifier} must default-export a Driver or an array of Drivers`,
      );
    }
    for (const driver of list) {
      if (drivers.some((d) => d.name === driver.name)) {
        throw new TypeError(
          `${specifier}: a driver named "${driver.name}" already exists`,
        );
      }
      drivers.push(driver);
    }
  }
  return drivers;
}

/** Finds a driver by name, or returns `undefined`. */
export function findDriver(
  drivers: readonly Driver[],
  name: string,
): Driver | undefined {
  return drivers.find((driver) => driver.name === name);
}
