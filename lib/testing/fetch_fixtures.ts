/**
 * Fixtures for the tests of a backend's fetcher (a server fetched without
 * a system install, downloaded for real into a cache folder of the test's
 * own): its programs taken off `PATH`, whether it can be fetched here, an
 * empty cache to fetch into, and the round of fetch, check, start and reuse
 * that each fetching backend's test runs with its own version and origin.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  FETCH_ENV,
  fetchServer,
  type ServiceDefinition,
  ServiceManager,
} from "../services/mod.ts";
import { CACHE_ENV } from "../system/cache_dir.ts";
import { SERVICE_ENVS, withEnv } from "./servers.ts";

/** The definition with its programs missing from `PATH`. */
export function offPath(def: ServiceDefinition): ServiceDefinition {
  return { ...def, binaries: def.binaries.map((name) => `${name}-fqb-absent`) };
}

/** Why `def`'s programs cannot be fetched here, or `undefined`. */
export function cannotFetch(def: ServiceDefinition): string | undefined {
  const plan = def.fetcher?.plan();
  if (plan == null || !("reason" in plan)) return undefined;
  console.warn(`skipping the fetch of ${def.name}: ${plan.reason}`);
  return plan.reason;
}

/** Runs `fn` with an empty cache folder, fetching on, no URL variables. */
export async function withEmptyCache(
  fn: (cache: string) => Promise<void>,
): Promise<void> {
  const cache = await Deno.makeTempDir({ prefix: "fqb-cache-test-" });
  // As root, PostgreSQL runs as another user, who must reach its programs.
  await Deno.chmod(cache, 0o755);
  try {
    await withEnv({
      [CACHE_ENV]: cache,
      [FETCH_ENV]: undefined,
      ...SERVICE_ENVS,
    }, () => fn(cache));
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
}

/**
 * The test of a fetching backend: `base`'s server missing from `PATH` is
 * fetched into an empty cache once, checked, started from there, and
 * reused by the next bench without a download.
 *
 * @param base The server's kind (with its fetcher).
 * @param version What the started server's version must match.
 * @param origin What the started server's origin must match.
 */
export async function assertFetchedOnce(
  base: ServiceDefinition,
  version: RegExp,
  origin: RegExp,
): Promise<void> {
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
}
