import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { renderResultsHtml } from "./mod.ts";
import {
  stoppedDocument,
  syntheticDocument,
} from "../../testing/chart_fixtures.ts";

Deno.test("report.html: self-contained, its scripts allowed by hash, nothing else", async () => {
  const document = syntheticDocument();
  const html = await renderResultsHtml({
    ...document,
    // A value that would close a script block if not escaped.
    startedAt: "</script><script>alert(1)</script>",
  });
  const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/
    .exec(html)![1];
  assert.match(policy, /^default-src 'none'; /);
  assert.doesNotMatch(policy, /unsafe-eval|https?:|\*/);
  const scripts = [...html.matchAll(/<script>([^]*?)<\/script>/g)].map((m) =>
    m[1]
  );
  assert.equal(scripts.length, 4, "vega, vega-lite, vega-embed, the page's");
  for (const script of scripts) {
    const hash = createHash("sha256").update(script).digest("base64");
    assert.ok(policy.includes(`'sha256-${hash}'`));
  }
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/);
  const data =
    /<script type="application\/json" id="report-data">([^]*?)<\/script>/
      .exec(html)![1];
  assert.equal(
    JSON.parse(data).startedAt,
    "</script><script>alert(1)</script>",
  );
});

Deno.test("report.html: a row's reason and estimate are its tooltips and notes, not its text", async () => {
  const document = stoppedDocument();
  const html = await renderResultsHtml(document);
  const body = /<tbody>([^]*?)<\/tbody>/.exec(html)![1];
  // What the rows show: their text without the tags and their attributes.
  const shown = body.replace(/<[^>]*>/g, "");
  const notes = /<div id="notes">([^]*?)<\/div>/.exec(html)?.[1] ?? "";
  for (const r of document.results) {
    const long = [r.reason, r.estimate?.basis]
      .filter((text): text is string => text != null);
    for (const text of long) {
      assert.ok(!shown.includes(text), `${r.id}'s row shows "${text}"`);
      assert.ok(
        body.includes(text) && notes.includes(text),
        `${r.id}: "${text}" in a tooltip and in the notes`,
      );
    }
  }
  assert.doesNotMatch(html, /white-space:\s*normal/, "no cell wraps");
});
