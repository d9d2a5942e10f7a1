// The registry registers the backends' URL variables and default ports.
import "../../drivers/mod.ts";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import postgres from "postgres";
import {
  findBinary,
  freePort,
  hasBinaries,
  missingBinaries,
  redactSecrets,
  redactUrl,
  registerSecrets,
  type ServiceDefinition,
  ServiceManager,
} from "./mod.ts";
import { postgresService, probePostgres } from "../../drivers/postgres/mod.ts";
import {
  probeRedis,
  redisService,
  startRedis,
} from "../../drivers/redis/mod.ts";
import {
  descendants,
  exists,
  isAlive,
  rejectsWithin,
  serversMissing,
  withEnv,
  withSilentServer,
} from "../testing/mod.ts";
import { sleep } from "../system/sleep.ts";

const SERVICE_ENVS = {
  REDIS_URL: undefined,
  POSTGRES_URL: undefined,
  AMQP_URL: undefined,
  MYSQL_URL: undefined,
};

Deno.test("redactUrl() hides passwords", () => {
  assert.equal(
    redactUrl("postgres://u:secret@127.0.0.1:1/x"),
    "postgres://u:***@127.0.0.1:1/x",
  );
  assert.equal(redactUrl("redis://:pw@h:6379/0"), "redis://:***@h:6379/0");
  assert.equal(
    redactUrl("amqp://user:p%40ss@host/vhost?x=1"),
    "amqp://user:***@host/vhost?x=1",
  );
  // An unencoded "@" in the password: the last "@" ends the user info.
  assert.equal(redactUrl("mysql://u:a@b@host/db"), "mysql://u:***@host/db");
  // Nothing to hide.
  assert.equal(redactUrl("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
  assert.equal(redactUrl("redis://user@host"), "redis://user@host");
  assert.equal(redactUrl("redis://user:@host"), "redis://user:@host");
  assert.equal(redactUrl("http://h/p?a=b:c@d"), "http://h/p?a=b:c@d");
  // Not URLs at all.
  assert.equal(redactUrl(""), "");
  assert.equal(redactUrl("not a url: x@y"), "not a url: x@y");
  assert.equal(redactUrl("://:x@"), "://:x@");
});

Deno.test("redactSecrets() hides env URL passwords and registered secrets", async () => {
  await withEnv({
    ...SERVICE_ENVS,
    REDIS_URL: "redis://:r3dis-pw@localhost:6379",
    POSTGRES_URL: "postgres://bench:pg%2Fpass@db:5432/bench",
    MYSQL_URL: "mysql://root@db/bench",
  }, () => {
    registerSecrets("amqp://guest:rabbit-secret@mq:5672", "bare-token-123");
    registerSecrets("redis://no-password-here:6379", "ab");
    const text = [
      "error: WRONGPASS r3dis-pw rejected",
      "connecting to postgres://bench:pg%2Fpass@db:5432/bench",
      "decoded pg/pass leaked",
      "amqp said rabbit-secret; token bare-token-123",
      "some other://x:inline-pw@host and redis://no-password-here:6379",
      "ab stays, so does mysql://root@db/bench",
    ].join("\n");
    const redacted = redactSecrets(text);
    for (
      const secret of [
        "r3dis-pw",
        "pg%2Fpass",
        "pg/pass",
        "rabbit-secret",
        "bare-token-123",
        "inline-pw",
      ]
    ) {
      assert.ok(!redacted.includes(secret), `${secret} in ${redacted}`);
    }
    assert.match(redacted, /postgres:\/\/bench:\*\*\*@db:5432\/bench/);
    assert.match(redacted, /redis:\/\/no-password-here:6379/);
    assert.match(redacted, /^ab stays, so does mysql:\/\/root@db\/bench$/m);
  });
});

Deno.test("freePort() and binary lookup", () => {
  const port = freePort();
  assert.ok(port > 0 && port < 65536);
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  listener.close();
  assert.ok(findBinary("sh")?.endsWith("/sh"));
  assert.equal(findBinary("no-such-binary-fqb"), undefined);
  assert.ok(hasBinaries(["sh"]));
  assert.ok(!hasBinaries(["sh", "no-such-binary-fqb"]));
  assert.deepEqual(missingBinaries(["sh", "no-such-binary-fqb"]), [
    "no-such-binary-fqb",
  ]);
});

Deno.test("a server's folders off PATH are searched after PATH, for it only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const name = "fqb-binary-off-path";
    await Deno.writeTextFile(`${dir}/${name}`, "#!/bin/sh\n", { mode: 0o755 });
    assert.equal(findBinary(name), undefined);
    assert.equal(findBinary(name, [`${dir}/none`, dir]), `${dir}/${name}`);
    assert.ok(findBinary("sh", [dir])?.endsWith("/sh"));
    assert.deepEqual(missingBinaries([name, "sh"], [dir]), []);
    assert.ok(!hasBinaries([name]));
    const manager = new ServiceManager();
    const def: ServiceDefinition = {
      ...redisService,
      name: "off-path",
      urlEnv: "FQB_NO_SUCH_URL",
      binaries: [name],
      fetcher: undefined,
    };
    assert.equal(manager.availability(def).available, false);
    assert.equal(
      manager.availability({ ...def, binaryFolders: () => [dir] }).available,
      true,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ServiceManager.availability()", async () => {
  const manager = new ServiceManager();
  const missing: ServiceDefinition = {
    ...redisService,
    name: "fake",
    urlEnv: "FQB_FAKE_URL",
    binaries: ["no-such-binary-fqb"],
    installHint: "apt-get install fake",
    fetcher: undefined,
  };
  await withEnv({ FQB_FAKE_URL: undefined }, () => {
    assert.deepEqual(manager.availability(missing), {
      available: false,
      reason:
        "no-such-binary-fqb not found; install it (apt-get install fake) or set FQB_FAKE_URL",
    });
  });
  await withEnv({ FQB_FAKE_URL: "redis://127.0.0.1:1" }, () => {
    assert.deepEqual(manager.availability(missing), {
      available: true,
      note: "uses $FQB_FAKE_URL",
    });
  });
});

Deno.test("probes of unreachable servers fail fast without secrets", async () => {
  const redisError = await rejectsWithin(
    probeRedis("redis://:secret@127.0.0.1:1", 2000),
    2500,
  );
  assert.match(redisError.message, /^cannot reach Redis at redis:\/\/:\*\*\*@/);
  assert.match(redisError.message, /ECONNREFUSED/);
  assert.ok(!redisError.message.includes("secret"));

  const pgError = await rejectsWithin(
    probePostgres("postgres://u:secret@127.0.0.1:1/x", 2000),
    2500,
  );
  assert.match(
    pgError.message,
    /^cannot reach PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
  );
  assert.match(pgError.message, /ECONNREFUSED/);
  assert.ok(!pgError.message.includes("secret"));
});

Deno.test("probes of silent servers give up at the timeout", async () => {
  // Accepts connections and never answers.
  await withSilentServer(async (port) => {
    const redisError = await rejectsWithin(
      probeRedis(`redis://:secret@127.0.0.1:${port}`, 700),
      1500,
    );
    assert.match(redisError.message, /^cannot reach Redis/);
    assert.ok(!redisError.message.includes("secret"));
    const pgError = await rejectsWithin(
      probePostgres(`postgres://u:secret@127.0.0.1:${port}/x`, 700),
      1500,
    );
    assert.match(pgError.message, /^cannot reach PostgreSQL/);
    assert.ok(!pgError.message.includes("secret"));
  });
});

Deno.test("acquire() reports an unusable user-given URL", async () => {
  await withEnv({ REDIS_URL: "redis://:hunter22@127.0.0.1:1" }, async () => {
    const manager = new ServiceManager();
    const error = await rejectsWithin(manager.acquire(redisService), 11_000);
    assert.match(
      error.message,
      /^\$REDIS_URL is not usable: cannot reach Redis at redis:\/\/:\*\*\*@127/,
    );
    assert.match(error.message, /ECONNREFUSED/);
    assert.ok(!error.message.includes("hunter22"));
    assert.deepEqual(manager.startedPids(), []);
    await manager.stopAll();
  });
});

Deno.test({
  name: "startRedis() fails cleanly when the port is taken",
  ignore: serversMissing(redisService) != null,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const error = await rejectsWithin(startRedis({ dir, port }), 11_000);
      assert.match(error.message, /^redis-server failed to start: exited/);
      assert.match(error.message, /redis\.log/);
    } finally {
      listener.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ServiceManager starts, shares and stops throwaway servers",
  ignore: serversMissing(redisService) != null ||
    serversMissing(postgresService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      try {
        const availability = manager.availability(redisService);
        assert.ok(availability.available);
        assert.match(availability.note ?? "", /throwaway redis-server/);
        const [redis, redisAgain, pg] = await Promise.all([
          manager.acquire(redisService),
          manager.acquire(redisService),
          manager.acquire(postgresService),
        ]);
        assert.equal(redisAgain, redis, "concurrent acquires share a server");
        assert.equal(await manager.acquire(redisService), redis);
        for (const service of [redis, pg]) {
          assert.ok(service.startedByBench);
          assert.ok(service.version.length > 0);
          assert.ok(service.pid != null && isAlive(service.pid));
        }
        assert.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
        assert.match(
          pg.url,
          /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/,
        );
        assert.match(pg.version, /^\d+/);
        assert.deepEqual(
          manager.startedPids().sort(),
          [redis.pid!, pg.pid!].sort(),
        );
        const dirs = manager.tempDirs();
        assert.equal(dirs.length, 2);
        for (const dir of dirs) assert.ok(await exists(dir));

        const client = new Redis(redis.url, { lazyConnect: true });
        try {
          await client.connect();
          await client.set("fqb:test", "hello");
          assert.equal(await client.get("fqb:test"), "hello");
        } finally {
          await client.quit();
        }

        const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
        try {
          await sql`create table t (id int primary key, body text)`;
          await sql`insert into t values (1, 'hello'), (2, 'world')`;
          const rows = await sql`select body from t order by id`;
          assert.deepEqual(rows.map((row) => row.body), ["hello", "world"]);
        } finally {
          await sql.end();
        }

        const postmasterChildren = descendants(pg.pid!);
        assert.ok(postmasterChildren.length > 0);

        await manager.stopAll();
        for (const pid of [redis.pid!, pg.pid!, ...postmasterChildren]) {
          assert.ok(!isAlive(pid), `process ${pid} is still alive`);
          assert.throws(() => Deno.kill(pid, "SIGCONT"));
        }
        for (const dir of dirs) assert.ok(!(await exists(dir)), dir);
        assert.deepEqual(manager.startedPids(), []);
        assert.deepEqual(manager.tempDirs(), []);
        await manager.stopAll(); // Idempotent.
      } finally {
        await manager.stopAll();
      }
    });
  },
});

Deno.test({
  name: "stopAll() tolerates a server that already died",
  ignore: serversMissing(redisService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      try {
        const { pid } = await manager.acquire(redisService);
        const [dir] = manager.tempDirs();
        Deno.kill(pid!, "SIGKILL");
        await manager.stopAll();
        assert.ok(!isAlive(pid!));
        assert.ok(!(await exists(dir)));
      } finally {
        await manager.stopAll();
      }
    });
  },
});

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
  name: "acquire() honours its caller's signal",
  ignore: serversMissing(redisService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      try {
        const controller = new AbortController();
        controller.abort(new Error("caller gave up"));
        await assert.rejects(
          manager.acquire(redisService, controller.signal),
          /caller gave up/,
        );
      } finally {
        await manager.stopAll();
      }
    });
  },
});

Deno.test({
  name: "startRedis() passes extra arguments (persistence modes)",
  ignore: serversMissing(redisService) != null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const server = await startRedis({
        dir,
        port: freePort(),
        extraArgs: ["--appendonly", "yes", "--appendfsync", "always"],
      });
      try {
        const client = new Redis(server.url, { lazyConnect: true });
        try {
          await client.connect();
          assert.deepEqual(await client.config("GET", "appendfsync"), [
            "appendfsync",
            "always",
          ]);
          assert.deepEqual(await client.config("GET", "save"), ["save", ""]);
        } finally {
          await client.quit();
        }
      } finally {
        await server.stop();
        await server.stop(); // Idempotent.
      }
      assert.ok(!isAlive(server.pid));
      assert.match(await Deno.readTextFile(`${dir}/redis.log`), /Ready/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
