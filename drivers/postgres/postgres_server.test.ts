/**
 * PostgreSQL's throwaway server: a start stopped halfway (initdb or what
 * follows it) cleans up, and a crash keeps the committed rows and drops the
 * uncommitted ones.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { ServiceManager } from "../../lib/services/mod.ts";
import { postgresService } from "./mod.ts";
import {
  descendants,
  exists,
  serversMissing,
  SERVICE_ENVS,
  withEnv,
} from "../../lib/testing/mod.ts";
import { canStart, crashAndCheck } from "../../lib/testing/crash_fixtures.ts";
import { sleep } from "../../lib/system/sleep.ts";

Deno.test({
  name: "stopAll() during a start aborts it and cleans up",
  ignore: serversMissing(postgresService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      const acquiring = manager.acquire(postgresService);
      acquiring.catch(() => {});
      // Let the start get going: its data folder exists, and initdb (or
      // what follows it) runs.
      const deadline = Date.now() + 30_000;
      while (
        (manager.tempDirs().length === 0 ||
          descendants(Deno.pid).length === 0) &&
        Date.now() < deadline
      ) {
        await sleep(10);
      }
      const [dir] = manager.tempDirs();
      assert.ok(dir != null, "the start made no data folder");
      await manager.stopAll();
      await assert.rejects(acquiring);
      assert.ok(!(await exists(dir)));
      assert.deepEqual(manager.startedPids(), []);
    });
  },
});

Deno.test({
  name: "crash(): PostgreSQL keeps committed rows, drops uncommitted ones",
  ignore: !canStart(postgresService),
  async fn() {
    let open: postgres.Sql | undefined;
    try {
      await crashAndCheck("postgres", postgresService, async (url) => {
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          await sql`create table t (id int primary key, body text)`;
          await sql`insert into t values (1, 'committed')`;
        } finally {
          await sql.end();
        }
        // A transaction left open across the crash.
        open = postgres(url, { max: 1, onnotice: () => {} });
        const reserved = await open.reserve();
        await reserved`begin`;
        await reserved`insert into t values (2, 'uncommitted')`;
      }, async (url, dir) => {
        const log = await Deno.readTextFile(`${dir}/postgres.log`);
        assert.match(log, /not properly shut down; automatic recovery/);
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          const rows = await sql`select id, body from t order by id`;
          assert.deepEqual(rows.map((r) => [r.id, r.body]), [
            [1, "committed"],
          ]);
        } finally {
          await sql.end();
        }
      });
    } finally {
      await open?.end({ timeout: 0 }).catch(() => {});
    }
  },
});
