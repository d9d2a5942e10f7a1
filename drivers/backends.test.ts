/**
 * What lists backends derives from the registry: a fixture backend added
 * with one line to a registry's drivers shows in `--list`, in the
 * redaction of its URL variable's password, in the default port of its
 * URL scheme, in `--help` (its URL variable, the server fetched), in the
 * packages the app installs, in the servers the test runner makes ready,
 * and in the table of drivers that `deno task docs` writes into
 * docs/library.md; and the built-in registry gives exactly the lists that
 * were written by hand before.
 */
import assert from "node:assert/strict";
import { benchHelp } from "../lib/cli/params.ts";
import { dequeueCostHelp } from "../lib/cli/dequeue_cost.ts";
import { driversTable } from "../lib/cli/docs.ts";
import { driverList } from "../lib/cli/list.ts";
import { appPackages } from "../lib/services/app_runtimes.ts";
import {
  redactSecrets,
  registerBackends,
  ServiceManager,
  urlEndpoint,
} from "../lib/services/mod.ts";
import { withEnv } from "../lib/testing/servers.ts";
import {
  backendFacts,
  backendServices,
  builtinDrivers,
  type Driver,
  fetchedServers,
  postgresDriver,
  redisDriver,
} from "./mod.ts";

/** A backend of its own: a driver whose service no machine has. */
const fixtureDriver: Driver = {
  name: "fixture-queue",
  description: "a fixture backend, registered by a test",
  crossProcess: true,
  queueSpecifier: "@fedify/fixture-queue",
  packages: ["@fedify/fixture-queue", "fixture-queue-client"],
  service: {
    name: "fixture-server",
    title: "FixtureQ",
    urlEnv: "FIXTURE_QUEUE_URL",
    ports: { fixtureq: 4242 },
    binaries: ["fixture-queue-server-that-no-machine-has"],
    installHint: "nothing to install: a test's fixture",
    fetcher: {
      what: "nothing: a test's fixture",
      plan: () => ({ reason: "a fixture fetches nothing" }),
      fill: () => Promise.reject(new Error("a fixture fetches nothing")),
      layout: (dir) => ({ binDir: dir }),
      version: ["fixture-queue-server-that-no-machine-has", "--version"],
    },
    start: () => Promise.reject(new Error("a fixture starts no server")),
    probe: () => Promise.reject(new Error("a fixture has no server")),
  },
};

Deno.test("a fixture backend added with one registry line shows in every list", async () => {
  const registry = [...builtinDrivers, fixtureDriver];
  registerBackends(backendFacts(registry));
  try {
    // --list
    const listed = await driverList(registry, new ServiceManager());
    assert.ok(
      listed.some((line) => line.startsWith("fixture-queue ")),
      listed.join("\n"),
    );
    // The redaction of its URL variable's password.
    await withEnv({ FIXTURE_QUEUE_URL: "fixtureq://u:fixture-pw@q/1" }, () => {
      assert.equal(
        redactSecrets("auth failed for fixture-pw"),
        "auth failed for ***",
      );
    });
    // Its URL scheme's default port (--queue-rtt, --worker-hosts).
    assert.deepEqual(urlEndpoint("fixtureq://u@q.example/1"), {
      hostname: "q.example",
      port: 4242,
    });
    // --help
    assert.match(
      benchHelp(registry),
      /Servers: REDIS_URL, POSTGRES_URL, AMQP_URL, MYSQL_URL and FIXTURE_QUEUE_URL are\nused when set;\n/,
    );
    assert.match(
      benchHelp(registry),
      /\sfetches Redis, PostgreSQL and\sFixtureQ\sonce into its cache folder\s/,
    );
    // The servers the test runner makes ready, one per backend.
    assert.deepEqual(backendServices(registry).map((service) => service.name), [
      "redis",
      "postgres",
      "rabbitmq",
      "mariadb",
      "fixture-server",
    ]);
    // The packages the app installs on Node.js and Bun.
    const packages = appPackages({ npm: {}, local: {} });
    assert.ok(packages.includes("@fedify/fixture-queue"), `${packages}`);
    assert.ok(packages.includes("fixture-queue-client"), `${packages}`);
    // The table of drivers in docs/library.md.
    assert.match(
      driversTable(registry),
      /\n\| `fixture-queue` +\| a fixture backend, registered by a test +\| +\|$/,
    );
  } finally {
    registerBackends(backendFacts(builtinDrivers));
  }
  // Gone again with the line.
  assert.equal(urlEndpoint("fixtureq://u@q.example/1"), undefined);
  assert.doesNotMatch(benchHelp(builtinDrivers), /FIXTURE_QUEUE_URL/);
  assert.doesNotMatch(driversTable(builtinDrivers), /fixture-queue/);
  assert.doesNotMatch(benchHelp(builtinDrivers), /FixtureQ/);
});

Deno.test("the built-in registry's facts are the lists once written by hand", () => {
  const facts = backendFacts(builtinDrivers);
  assert.deepEqual(facts.secretUrlEnvs, [
    "REDIS_URL",
    "POSTGRES_URL",
    "AMQP_URL",
    "MYSQL_URL",
  ]);
  assert.deepEqual(facts.defaultPorts, {
    redis: 6379,
    rediss: 6379,
    postgres: 5432,
    postgresql: 5432,
    amqp: 5672,
    amqps: 5671,
    mysql: 3306,
    mariadb: 3306,
  });
  assert.deepEqual(fetchedServers(builtinDrivers), ["Redis", "PostgreSQL"]);
});

Deno.test("dequeue-cost's help names its default drivers' servers, then … for the others", () => {
  const footer = (drivers: readonly Driver[]) =>
    dequeueCostHelp(drivers).split("\n").at(-1);
  assert.equal(
    footer(builtinDrivers),
    "Servers come from REDIS_URL, POSTGRES_URL, … or are throwaway ones, " +
      "as in deno task bench.",
  );
  assert.equal(
    footer([redisDriver, postgresDriver]),
    "Servers come from REDIS_URL, POSTGRES_URL or are throwaway ones, " +
      "as in deno task bench.",
  );
  assert.equal(
    footer([redisDriver, postgresDriver, fixtureDriver]),
    footer(builtinDrivers),
  );
});
