import assert from "node:assert/strict";
import { join } from "node:path";
import { withRelativeSource, withRelativeSourceArgs } from "./fedify_source.ts";

Deno.test("the recorded command line names the source tree relative to the working folder", () => {
  const inside = join(Deno.cwd(), "..", "shared", "fedify");
  assert.deepEqual(
    withRelativeSourceArgs([
      "--drivers",
      "redis",
      "--fedify-source",
      inside,
      `--fedify-source=${inside}`,
      "--out",
      "results/x",
    ]),
    [
      "--drivers",
      "redis",
      "--fedify-source",
      join("..", "shared", "fedify"),
      `--fedify-source=${join("..", "shared", "fedify")}`,
      "--out",
      "results/x",
    ],
  );
  // A relative value, and other flags' absolute values, stay as given.
  assert.deepEqual(
    withRelativeSourceArgs(["--fedify-source", "../f", "--out", "/tmp/x"]),
    ["--fedify-source", "../f", "--out", "/tmp/x"],
  );
  assert.deepEqual(
    withRelativeSource({ FEDIFY_SOURCE: Deno.cwd(), TOTAL: "3" }),
    { FEDIFY_SOURCE: ".", TOTAL: "3" },
  );
  assert.deepEqual(withRelativeSource({ TOTAL: "3" }), { TOTAL: "3" });
});
