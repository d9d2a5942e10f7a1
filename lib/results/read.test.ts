import assert from "node:assert/strict";
import { join } from "node:path";
import {
  readResultsDocument,
  ResultsFileError,
  validateResultsDocument,
} from "./read.ts";
import { config, doc } from "../testing/comparison_fixtures.ts";

Deno.test("validateResultsDocument: rejects wrong shapes", () => {
  assert.throws(
    () => validateResultsDocument([], "a.json"),
    (e) =>
      e instanceof ResultsFileError && /a\.json: not a results/.test(e.message),
  );
  assert.throws(
    () => validateResultsDocument({ ...doc([]), schemaVersion: 3 }, "b.json"),
    /b\.json: unsupported schemaVersion 3 \(expected 1 or 2; a newer file needs a newer fedify-queue-bench\)/,
  );
  assert.throws(
    () => validateResultsDocument({ schemaVersion: 1, results: [] }, "c"),
    /c: missing "params"/,
  );
  assert.throws(
    () => validateResultsDocument({ ...doc([]), results: [{ id: "x" }] }, "d"),
    /d: results\[0\]/,
  );
  const good = doc([config("x", 1, 1, 1)]);
  assert.equal(validateResultsDocument(good, "e"), good);
  // Both versions read: older files (1) and those written now (2).
  for (const version of [1, 2]) {
    const versioned = { ...good, schemaVersion: version };
    assert.equal(validateResultsDocument(versioned, "f"), versioned);
  }
});

Deno.test("readResultsDocument: a good file, and errors naming the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-read-test-" });
  try {
    const good = doc([config("x", 1, 1, 1)]);
    await Deno.writeTextFile(join(dir, "good.json"), JSON.stringify(good));
    assert.deepEqual(await readResultsDocument(join(dir, "good.json")), good);

    const missing = join(dir, "nope.json");
    const notFound = await readResultsDocument(missing).then(
      () => assert.fail("expected a rejection"),
      (error: unknown) => error,
    );
    assert.ok(notFound instanceof ResultsFileError);
    assert.equal(notFound.missing, true);
    assert.equal(notFound.message, `${missing}: cannot read (no such file)`);

    await Deno.writeTextFile(join(dir, "bad.json"), "{ not json");
    const invalid = await readResultsDocument(join(dir, "bad.json")).then(
      () => assert.fail("expected a rejection"),
      (error: unknown) => error,
    );
    assert.ok(invalid instanceof ResultsFileError);
    assert.equal(invalid.missing, false);
    assert.match(invalid.message, /bad\.json: invalid JSON \(/);

    await Deno.writeTextFile(
      join(dir, "v3.json"),
      JSON.stringify({ ...good, schemaVersion: 3 }),
    );
    await assert.rejects(
      readResultsDocument(join(dir, "v3.json")),
      (e) =>
        e instanceof ResultsFileError && !e.missing &&
        /v3\.json: unsupported schemaVersion 3/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
