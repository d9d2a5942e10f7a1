import assert from "node:assert/strict";
import { join } from "node:path";
import { rerender } from "./report.ts";
import { steadyDocument } from "../testing/mod.ts";
import { ResultsFileError } from "../results/read.ts";

Deno.test("deno task report renders latest.md and charts again from latest.json", async () => {
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
    // The figures are the file's own: latest.json is unchanged.
    assert.equal(await Deno.readTextFile(join(dir, "latest.json")), json);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task report on a folder without results names the problem", async () => {
  await assert.rejects(() => rerender("/nonexistent-fqb"), ResultsFileError);
});

Deno.test("deno task report renders a dequeue-cost folder again from its JSON", async () => {
  const published = new URL("../../results/dequeue-cost/", import.meta.url);
  const dir = await Deno.makeTempDir({ prefix: "fqb-test-report-" });
  try {
    const json = await Deno.readTextFile(
      new URL("dequeue-cost.json", published),
    );
    await Deno.writeTextFile(join(dir, "dequeue-cost.json"), json);
    assert.deepEqual(await rerender(dir), [
      join(dir, "dequeue-cost.md"),
      join(dir, "dequeue-cost.svg"),
    ]);
    assert.equal(
      await Deno.readTextFile(join(dir, "dequeue-cost.md")),
      await Deno.readTextFile(new URL("dequeue-cost.md", published)),
    );
    assert.match(
      await Deno.readTextFile(join(dir, "dequeue-cost.svg")),
      /^<svg [^]*Time per dequeue against backlog/,
    );
    assert.equal(
      await Deno.readTextFile(join(dir, "dequeue-cost.json")),
      json,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task report on a folder of something else names the problem", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-test-report-" });
  try {
    await Deno.writeTextFile(join(dir, "dequeue-cost.json"), "{}");
    await assert.rejects(() => rerender(dir), /not a dequeue-cost file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
