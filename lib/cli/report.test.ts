import assert from "node:assert/strict";
import { join } from "node:path";
import { rerender } from "./report.ts";
import { steadyDocument } from "../testing/mod.ts";
import { ResultsFileError } from "../results/read.ts";

Deno.test("deno task report renders latest.md, charts and report.html again from latest.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-test-report-" });
  try {
    const json = JSON.stringify(steadyDocument(), null, 2) + "\n";
    await Deno.writeTextFile(join(dir, "latest.json"), json);
    await rerender(dir);
    const markdown = await Deno.readTextFile(join(dir, "latest.md"));
    assert.match(markdown, /## Sustained rate/);
    assert.match(
      markdown,
      /10 recipients per activity \(TOTAL, .*applies only/,
    );
    assert.ok(
      (await Deno.stat(join(dir, "charts", "load-latency.svg"))).isFile,
    );
    assert.match(
      await Deno.readTextFile(join(dir, "report.html")),
      /Content-Security-Policy" content="default-src 'none'/,
    );
    // The figures are the file's own: latest.json is unchanged.
    assert.equal(await Deno.readTextFile(join(dir, "latest.json")), json);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task report on a folder without results names the problem", async () => {
  await assert.rejects(() => rerender("/nonexistent-fqb"), ResultsFileError);
});

for (const name of ["latest.json", "dequeue-cost.json"]) {
  Deno.test(`deno task report renders a dequeue-cost folder again from its ${name}`, async () => {
    const published = new URL("../../results/dequeue-cost/", import.meta.url);
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-report-" });
    try {
      const json = await Deno.readTextFile(new URL("latest.json", published));
      await Deno.writeTextFile(join(dir, name), json);
      assert.deepEqual(await rerender(dir), [
        join(dir, "latest.md"),
        join(dir, "charts", "dequeue-cost.svg"),
        join(dir, "report.html"),
      ]);
      assert.equal(
        await Deno.readTextFile(join(dir, "latest.md")),
        await Deno.readTextFile(new URL("latest.md", published)),
      );
      assert.match(
        await Deno.readTextFile(join(dir, "charts", "dequeue-cost.svg")),
        /^<svg [^]*Time per dequeue against backlog/,
      );
      assert.match(
        await Deno.readTextFile(join(dir, "report.html")),
        /<title>Dequeue cost against backlog<\/title>/,
      );
      assert.equal(await Deno.readTextFile(join(dir, name)), json);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("deno task report on a folder of something else names the problem", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-test-report-" });
  try {
    await Deno.writeTextFile(join(dir, "dequeue-cost.json"), '{"kind": "x"}');
    await assert.rejects(() => rerender(dir), ResultsFileError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
