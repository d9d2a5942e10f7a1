/**
 * The "Queue depth" section: a row per configuration that sampled its
 * depth, "not in the installed version" for a queue without `getDepth()`,
 * and nothing at all when no configuration sampled.
 */
import assert from "node:assert/strict";
import { depthSection } from "./depth_table.ts";
import type { ResultsDocument } from "../results/types.ts";
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
