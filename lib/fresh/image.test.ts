/** The image's name. */
import assert from "node:assert/strict";
import { imageName } from "./image.ts";

Deno.test("the image's name holds the Node.js version", () => {
  assert.equal(
    imageName("v20.20.2"),
    "fedify-queue-bench-fresh:bookworm-node20.20.2",
  );
});
