/**
 * `deno task remodel`: the current model applied to a results folder's
 * recorded rows; the file says so, the report is rendered, and a row of
 * several runs keeps what it recorded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { main, remodel } from "./remodel.ts";
import type { ResultsDocument } from "../results/types.ts";

const here = new URL(".", import.meta.url).pathname;
const published = join(here, "../../results/stages-2048");

Deno.test("a published row remodelled with the model it was made with keeps its figures", async () => {
  const document: ResultsDocument = JSON.parse(
    await Deno.readTextFile(join(published, "latest.json")),
  );
  const { document: again, ids } = remodel(document);
  // Every row with stages: `none`, with its CPU and event-loop bounds only,
  // and the four with a queue.
  assert.deepEqual(ids, [
    "none",
    "in-process-x4",
    "amqp-x4",
    "sqlite-x4",
    "mysql-x4",
  ]);
  const none = again.results.find((r) => r.id === "none")!;
  assert.equal(none.prediction!.consumer, null);
  assert.ok(none.prediction!.cpu! > 0);
  assert.ok(none.predictedDeliveriesPerSecond! > 0);
  for (const id of ids.filter((id) => id !== "none")) {
    const before = document.results.find((r) => r.id === id)!;
    const after = again.results.find((r) => r.id === id)!;
    // The bounds the file recorded come out the same from its figures.
    for (const bound of ["cpu", "eventLoop", "consumer", "dequeue"] as const) {
      assert.equal(after.prediction![bound], before.prediction![bound], id);
    }
  }
});

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
