/**
 * `remodel`: the current model applied to a results document's recorded
 * rows gives back the bounds a published file recorded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { remodel } from "./remodel_rows.ts";
import type { ResultsDocument } from "../results/mod.ts";

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
