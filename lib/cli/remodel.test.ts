/**
 * `deno task remodel`: the current model applied to a results folder's
 * recorded rows; the file says so and the report is rendered.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "./remodel.ts";
import type { ResultsDocument } from "../results/mod.ts";

const here = new URL(".", import.meta.url).pathname;
const published = join(here, "../../results/stages-2048");

Deno.test("deno task remodel rewrites the model's fields, records it and renders the report", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-remodel-" });
  try {
    await Deno.copyFile(
      join(published, "latest.json"),
      join(dir, "latest.json"),
    );
    assert.equal(await main([dir]), 0);
    const document: ResultsDocument = JSON.parse(
      await Deno.readTextFile(join(dir, "latest.json")),
    );
    assert.equal(document.remodelled?.ids.length, 5);
    // mysql ×4 hands one message at a time to the slots: the pipeline,
    // after the wait before its first delivery.
    const mysql = document.results.find((r) => r.id === "mysql-x4")!;
    const { pipeline, dequeue, firstDeliverySeconds } = mysql.prediction!;
    assert.ok(pipeline! < dequeue!);
    const wait = mysql.totalSeconds! - mysql.receiveSeconds!;
    assert.equal(firstDeliverySeconds, Math.round(wait * 1000) / 1000);
    // (The recorded bound is rounded to 0.1/s.)
    const predicted = mysql.delivered / (wait + mysql.delivered / pipeline!);
    assert.ok(
      Math.abs(mysql.predictedDeliveriesPerSecond! - predicted) < 0.2,
      `${mysql.predictedDeliveriesPerSecond} against ${predicted}`,
    );
    assert.ok((await Deno.stat(join(dir, "latest.md"))).isFile);
    assert.equal(await main([]), 2);
    assert.equal(await main([join(dir, "nowhere")]), 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
