/**
 * The "Queue depth" section: a row per configuration that sampled its
 * depth, "not in the installed version" for a queue without `getDepth()`,
 * and nothing at all when no configuration sampled.
 */
import assert from "node:assert/strict";
import { depthSection, depthSummary } from "./depth_table.ts";
import type { ResultsDocument } from "../results/mod.ts";
import { steadyDocument } from "../testing/load_fixtures.ts";

Deno.test("the depth section lists each sampled configuration", () => {
  const document = structuredClone(steadyDocument()) as ResultsDocument;
  assert.equal(depthSection(document), "");
  const [first, second] = document.results;
  const results = [
    {
      ...first,
      depth: {
        supported: true,
        samples: 40,
        maxAbsError: 12,
        meanAbsError: 1.5,
        peakTrueDepth: 2400,
      },
    },
    { ...second, depth: { supported: false } },
  ];
  const text = depthSection({ ...document, results });
  const rows = text.split("\n").filter((line) =>
    line.startsWith("| ") && !line.startsWith("| -")
  );
  assert.equal(rows.length, 3, text);
  assert.match(rows[1], /\| yes +\| +40 \| +12 \| +1\.50 \| +2,400 \|$/);
  assert.match(
    rows[2],
    /\| not in the installed version \| +— \| +— \| +— \| +— \|$/,
  );
});

Deno.test("the depth section is read for the user from its figures", () => {
  const [first, second] = steadyDocument().results;
  const exact = { supported: true, samples: 9, maxAbsError: 0 };
  const summary = depthSummary([
    { ...first, depth: exact },
    {
      ...first,
      driver: "mysql",
      depth: { ...exact, maxAbsError: 3, peakTrueDepth: 150 },
    },
    { ...second, depth: { supported: false } },
  ]);
  assert.match(summary, /agreed with the bench's count at every sample in /);
  assert.match(
    summary,
    /It was off in mysql[^(]*\(at most 3 of a peak 150\)\./,
  );
  assert.match(summary, /have no `getDepth\(\)` in the installed version/);
});
