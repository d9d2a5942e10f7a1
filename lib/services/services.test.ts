/**
 * The plumbing of the queue servers: passwords hidden from URLs and text,
 * free ports and programs found, whether a server can be had, and a
 * manager that stops servers already dead and honours its caller's signal.
 * Where a test needs a real server it takes the registry's first (the first
 * built-in driver's with one); each backend's own tests are in its folder
 * of `drivers/`.
 */
// The registry registers the backends' URL variables and default ports.
import { builtinDrivers } from "../../drivers/mod.ts";
import assert from "node:assert/strict";
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
import {
  exists,
  isAlive,
  serversMissing,
  SERVICE_ENVS,
  withEnv,
} from "../testing/mod.ts";

/** The registry's first server: the first built-in driver's that has one. */
const firstService: ServiceDefinition = builtinDrivers.find((driver) =>
  driver.service != null
)!.service!;

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
      ...firstService,
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
    ...firstService,
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

Deno.test({
  name: "stopAll() tolerates a server that already died",
  ignore: serversMissing(firstService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      try {
        const { pid } = await manager.acquire(firstService);
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
  name: "acquire() honours its caller's signal",
  ignore: serversMissing(firstService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      try {
        const controller = new AbortController();
        controller.abort(new Error("caller gave up"));
        await assert.rejects(
          manager.acquire(firstService, controller.signal),
          /caller gave up/,
        );
      } finally {
        await manager.stopAll();
      }
    });
  },
});
