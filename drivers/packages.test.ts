/**
 * Loading queue packages: from `deno.json`'s names with no absolute path in
 * what is recorded, from a Fedify source tree with its version and git
 * ref, and never silently from elsewhere when the tree is wrong.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FedifySource,
  followsSource,
  isRelease,
  loadQueuePackage,
  mappedImplementation,
  SOURCE_PACKAGES,
} from "./packages.ts";
import { withEnv } from "../lib/testing/mod.ts";
import { gitIn, toolMissing } from "../lib/testing/tools.ts";

/** Fedify's own source of the packages at 2.3.5, where this machine has it. */
const SHARED_SOURCE = fileURLToPath(
  new URL("../../shared/upstream/fedify-2.3.5", import.meta.url),
);
const hasShared = await Deno.stat(join(SHARED_SOURCE, "packages"))
  .then(() => true, () => false);

/** Makes a tree with one package whose `src/mod.ts` is `code`. */
async function fakeTree(
  name: string,
  code: string,
  version = "2.3.5",
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "fqb-fedify-source-" });
  const pkg = join(dir, "packages", name);
  await Deno.mkdir(join(pkg, "src"), { recursive: true });
  await Deno.writeTextFile(
    join(pkg, "deno.json"),
    JSON.stringify({ name: `@fedify/${name}`, version }),
  );
  await Deno.writeTextFile(join(pkg, "src", "mod.ts"), code);
  return dir;
}

Deno.test("deno.json's names are recorded as name@version or a project path, never a machine's path", () => {
  const redis = mappedImplementation("@fedify/redis");
  assert.deepEqual(
    [redis.resolved, redis.official, redis.version, redis.origin],
    ["@fedify/redis@1.8.7", true, "1.8.7", "registry"],
  );
  const denoKv = mappedImplementation("@fedify/denokv");
  assert.deepEqual(
    [denoKv.resolved, denoKv.official, denoKv.origin],
    ["drivers/deno_kv/denokv_standin.ts", false, "stand-in"],
  );
  assert.equal(mappedImplementation("@fedify/amqp").origin, "stand-in");
});

Deno.test("a package from a source tree records its version, its path in the tree and whether it is a release", async () => {
  const dir = await fakeTree(
    "redis",
    "export class RedisMessageQueue { from = 'tree'; }\n",
  );
  try {
    const source = new FedifySource(dir);
    const mapped = () => Promise.resolve({ RedisMessageQueue: class {} });
    const loaded = await loadQueuePackage("redis", mapped, undefined, source);
    assert.equal(
      new (loaded.module.RedisMessageQueue as new () => { from?: string })()
        .from,
      "tree",
    );
    assert.deepEqual(loaded.implementation, {
      specifier: "@fedify/redis",
      resolved: "packages/redis/src/mod.ts",
      official: true,
      version: "2.3.5",
      origin: "fedify-source",
      ref: {
        commit: null,
        tag: null,
        dirty: null,
        noCommitReason: "not a git checkout",
      },
    });
    // A variant that asks for deno.json's name gets it, tree or not.
    const kept = await loadQueuePackage("redis", mapped, "mapped", source);
    assert.equal(kept.implementation.origin, "registry");
    // Without git, a pre-release version is not a release.
    assert.equal(
      isRelease("2.4.0-dev.1", { commit: null, tag: null, dirty: null }),
      false,
    );

    if (
      toolMissing(
        "git",
        "a source tree's commit and tag are checked as not recorded " +
          '("git not found")',
        "apt-get install git",
      )
    ) {
      // A checkout whose commit this machine cannot read says so.
      await Deno.mkdir(join(dir, ".git"));
      assert.deepEqual(await new FedifySource(dir).ref(), {
        commit: null,
        tag: null,
        dirty: null,
        noCommitReason: "git not found",
      });
      return;
    }
    // At the release's tag, official; one commit later, not, and the
    // commit is recorded.
    await gitIn(dir, "init", "-q");
    await gitIn(dir, "add", ".");
    await gitIn(dir, "commit", "-q", "-m", "release");
    await gitIn(dir, "tag", "2.3.5");
    const tagged = await new FedifySource(dir).ref();
    assert.equal(tagged.tag, "2.3.5");
    assert.equal(isRelease("2.3.5", tagged), true);
    await Deno.writeTextFile(join(dir, "later.txt"), "x");
    await gitIn(dir, "add", ".");
    await gitIn(dir, "commit", "-q", "-m", "later");
    const later = await new FedifySource(dir).ref();
    assert.equal(later.tag, null);
    assert.match(later.commit ?? "", /^[0-9a-f]{40}$/);
    assert.equal(later.noCommitReason, undefined);
    assert.equal(isRelease("2.3.5", later), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing or broken package in the tree fails with its path, never falling back", async () => {
  const dir = await fakeTree(
    "postgres",
    'throw new Error("broken on purpose");\n',
  );
  try {
    const source = new FedifySource(dir);
    const mapped = () => Promise.resolve({});
    await assert.rejects(
      loadQueuePackage("postgres", mapped, undefined, source),
      (error: Error) => {
        assert.match(error.message, /packages\/postgres\/src\/mod\.ts/);
        assert.match(error.message, /broken on purpose/);
        return true;
      },
    );
    await assert.rejects(
      loadQueuePackage("redis", mapped, undefined, source),
      (error: Error) => {
        assert.ok(
          error.message.includes(join(dir, "packages", "redis")),
          error.message,
        );
        return true;
      },
    );
    await assert.rejects(
      source.check(["redis"]),
      /no packages\/redis\/src\/mod\.ts there/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FEDIFY_SOURCE decides which code a following driver runs", async () => {
  await withEnv({ FEDIFY_SOURCE: undefined }, () => {
    assert.equal(FedifySource.fromEnv(), null);
    assert.equal(followsSource("follow-source"), false);
  });
  await withEnv({ FEDIFY_SOURCE: "" }, () => {
    assert.equal(FedifySource.fromEnv(), null);
  });
  await withEnv({ FEDIFY_SOURCE: "/somewhere/fedify" }, () => {
    assert.equal(FedifySource.fromEnv()?.dir, "/somewhere/fedify");
    assert.equal(followsSource("follow-source"), true);
    assert.equal(followsSource("mapped"), false);
  });
});

Deno.test({
  name: "Fedify's 2.3.5 packages load from their source, #sqlite included",
  ignore: !hasShared,
  async fn() {
    const source = new FedifySource(SHARED_SOURCE);
    await source.check();
    const classes: Record<string, string> = {
      redis: "RedisMessageQueue",
      postgres: "PostgresMessageQueue",
      amqp: "AmqpMessageQueue",
      denokv: "DenoKvMessageQueue",
      sqlite: "SqliteMessageQueue",
    };
    for (const name of SOURCE_PACKAGES) {
      const loaded = await loadQueuePackage(
        name,
        () => Promise.resolve({}),
        undefined,
        source,
      );
      const module = loaded.module as Record<string, unknown>;
      assert.equal(typeof module[classes[name]], "function", name);
      assert.equal(loaded.implementation.version, "2.3.5");
      assert.equal(loaded.implementation.official, true);
    }
    const { module } = await loadQueuePackage(
      "sqlite",
      () => Promise.resolve({}),
      undefined,
      source,
    );
    const { DatabaseSync } = await import("node:sqlite");
    const Queue = (module as Record<string, unknown>).SqliteMessageQueue as {
      new (db: unknown): {
        initialize(): Promise<void> | void;
        getDepth(): Promise<{ queued: number }>;
        [Symbol.dispose](): void;
      };
    };
    const queue = new Queue(new DatabaseSync(":memory:"));
    try {
      await queue.initialize();
      assert.equal((await queue.getDepth()).queued, 0);
    } finally {
      queue[Symbol.dispose]();
    }
  },
});
