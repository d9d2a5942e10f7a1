import assert from "node:assert/strict";
import { redisService } from "../../drivers/redis/mod.ts";
import { serversMissing, SharedServers } from "./servers.ts";
import { runDeno, survivors } from "./mod.ts";

Deno.test({
  name:
    "SharedServers: one server for the tests counted, kept until the last of them, which stops it",
  ignore: serversMissing(redisService) != null,
  async fn() {
    const shared = new SharedServers();
    shared.expect(redisService);
    shared.expect(redisService);
    shared.expect(undefined);
    // A test with no server has nothing to keep or stop.
    assert.equal(shared.manager(undefined), shared.manager(undefined));
    assert.deepEqual(await shared.release(undefined), []);
    const first = await shared.manager(redisService).acquire(redisService);
    assert.ok(first.pid != null && first.startedByBench);
    // The first test's server is kept for the second, which gets it again.
    assert.deepEqual(await shared.release(redisService), [first.pid]);
    const second = await shared.manager(redisService).acquire(redisService);
    assert.equal(second.pid, first.pid);
    // The last test stops it.
    assert.deepEqual(await shared.release(redisService), []);
    assert.deepEqual(await survivors([first.pid]), []);
    // A later test (not counted) starts another.
    const manager = shared.manager(redisService);
    try {
      const third = await manager.acquire(redisService);
      assert.notEqual(third.pid, first.pid);
    } finally {
      await manager.stopAll();
    }
  },
});

Deno.test({
  name:
    "SharedServers: a server whose last test never runs (deno test --filter) ends with the process",
  ignore: serversMissing(redisService) != null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-shared-" });
    try {
      const file = `${dir}/shared.test.ts`;
      const here = (path: string) => new URL(path, import.meta.url).href;
      await Deno.writeTextFile(
        file,
        `import { SharedServers } from ${JSON.stringify(here("./servers.ts"))};
import { redisService } from ${
          JSON.stringify(here("../../drivers/redis/mod.ts"))
        };
const shared = new SharedServers();
for (const name of ["first", "second"]) {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const { pid } = await shared.manager(redisService).acquire(redisService);
      console.log("server pid", pid);
      await shared.release(redisService);
    },
  });
  shared.expect(redisService);
}
`,
      );
      const run = await runDeno(
        ["test", "--allow-all", "--filter", "first", file],
        { env: { BENCH_FETCH_SERVERS: "no" } },
      );
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const pid = Number(/server pid (\d+)/.exec(run.stdout)?.[1]);
      assert.ok(pid > 0, run.stdout);
      assert.deepEqual(await survivors([pid]), [], "the server outlived it");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
