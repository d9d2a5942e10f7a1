/**
 * The libraries Node.js from npm needs: found on the machine, or fetched
 * for real from the distribution's packages into a cache of the test's own.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { librariesMissing, nodeLibraryEnv } from "./node_libraries.ts";
import { debianFetchUnavailable, libraryPath } from "./debian_packages.ts";
import { CACHE_ENV } from "../system/cache_dir.ts";
import { withEnv } from "../testing/mod.ts";
import { missingBecause } from "../testing/tools.ts";

const noApt = Deno.build.os !== "linux" ||
  missingBecause(
    "the fetch of a library's package",
    debianFetchUnavailable("libatomic1"),
  );

Deno.test("a library the loader finds is not missing; one it cannot find is", () => {
  if (Deno.build.os !== "linux") return;
  assert.deepEqual(
    librariesMissing(["libc.so.6", "libfqb-absent.so.1"]),
    ["libfqb-absent.so.1"],
  );
});

Deno.test("a machine that has every library needs no environment", async () => {
  assert.deepEqual(await nodeLibraryEnv(undefined, {}), {});
});

Deno.test({
  name: "a missing library's package is fetched into the cache once, and " +
    "its library folder goes on LD_LIBRARY_PATH",
  ignore: noApt,
  async fn() {
    const cache = await Deno.makeTempDir({ prefix: "fqb-libs-test-" });
    try {
      await withEnv({ [CACHE_ENV]: cache }, async () => {
        // libatomic1 holds libatomic.so.1; asking for it under a name the
        // machine cannot have makes it missing wherever this runs.
        const env = await nodeLibraryEnv(undefined, {
          "libfqb-absent.so.1": "libatomic1",
        }).catch((error: Error) => error);
        assert.ok(env instanceof Error);
        assert.match(
          env.message,
          /^libatomic1 fetched into .*\/libs\/libatomic1-\w+ holds no libfqb-absent\.so\.1; delete that folder/,
        );
        const root = join(cache, "libs", `libatomic1-${Deno.build.arch}`);
        const fetched = await nodeLibraryEnv(undefined, {
          "libfqb-absent.so.1": "libatomic1",
          "libatomic.so.1": "libatomic1",
        }).catch((error: Error) => error);
        // The second call found the folder: no download, the same verdict.
        assert.ok(fetched instanceof Error);
        const libs = (await Array.fromAsync(walk(join(root, "root"))))
          .filter((path) => path.endsWith("/libatomic.so.1"));
        assert.equal(libs.length, 1, "libatomic.so.1 was unpacked");
        assert.ok(
          libraryPath(join(root, "root")).split(":").includes(dirname(libs[0])),
          "its folder goes on LD_LIBRARY_PATH",
        );
      });
    } finally {
      await Deno.remove(cache, { recursive: true });
    }
  },
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else yield path;
  }
}
