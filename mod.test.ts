/**
 * `runBenchmark()`'s `outDir`: the library's face writes the results and the
 * report there itself, since the run stage writes nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runBenchmark } from "./mod.ts";

Deno.test({
  name: "runBenchmark with outDir writes latest.json, latest.md and the logs",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const outDir = await Deno.makeTempDir({ prefix: "mod-test-" });
    try {
      const document = await runBenchmark({
        drivers: ["in-process"],
        total: 2,
        recipients: 6,
        parallel: [1],
        calibrate: false,
        outDir,
      });
      assert.deepEqual(document.results.map((r) => r.status), ["ok"]);
      const written = JSON.parse(
        await Deno.readTextFile(join(outDir, "latest.json")),
      );
      assert.deepEqual(written, JSON.parse(JSON.stringify(document)));
      assert.match(
        await Deno.readTextFile(join(outDir, "latest.md")),
        /in-process/,
      );
      assert.ok((await Deno.stat(join(outDir, "logs"))).isDirectory);
      assert.match(
        await Deno.readTextFile(join(outDir, "report.html")),
        /<td>in-process<\/td>/,
      );
    } finally {
      await Deno.remove(outDir, { recursive: true });
    }
  },
});
