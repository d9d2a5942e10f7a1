import assert from "node:assert/strict";
import { label } from "./label.ts";
import { loadSections, probeList } from "./load_tables.ts";
import { renderMarkdown, renderTable } from "./markdown.ts";
import { result, syntheticDocument } from "../testing/chart_fixtures.ts";
import { steadyDocument } from "../testing/load_fixtures.ts";
import type { ResultsDocument } from "../results/mod.ts";

/** The cells of the row whose label is `name` in the section `title`. */
function row(text: string, title: string, name: string): string[] {
  const section = text.split("## ").find((s) => s.startsWith(title));
  assert.ok(section != null, `no section ${title} in:\n${text}`);
  const line = section.split("\n").find((l) => l.startsWith(`| ${name} `));
  assert.ok(line != null, `no row for ${name} in:\n${section}`);
  return line.split("|").slice(1, -1).map((c) => c.trim());
}

Deno.test("label: what a steady-load row measured, burst rows unchanged", () => {
  const labels = steadyDocument().results.map(label);
  assert.deepEqual(labels, [
    "generator",
    "redis idle",
    "redis rate 8/s",
    "redis rate 64/s",
    "redis 8 senders",
    "redis max rate",
    "postgres ×4 idle",
    "postgres ×4 rate 8/s",
    "postgres ×4 rate 64/s",
    "postgres ×4 max rate",
  ]);
  assert.equal(
    label({ driver: "redis", parallelism: 4, parallelImpl: "awaiting" }),
    "redis ×4 awaiting",
  );
  assert.equal(
    label({ driver: "redis", parallelism: 1, senders: 1 }),
    "redis 1 sender",
  );
  // The app's runtime, when it is not Deno: rows of one suite stay apart.
  assert.equal(
    label({ driver: "redis", parallelism: 4, runtime: { name: "node" } }),
    "redis ×4 on node",
  );
  assert.equal(
    label({ driver: "redis", parallelism: 4, runtime: { name: "deno" } }),
    "redis ×4",
  );
  // A deployment other than the default (--cpus, --queue-rtt) too.
  assert.equal(
    label({
      driver: "redis",
      parallelism: 4,
      deployment: { cpus: 1, queueRttMs: 5 },
      load: { nominalRate: 8 },
    }),
    "redis ×4 1 cpu rtt 5 ms rate 8/s",
  );
  assert.equal(
    label({
      driver: "sqlite",
      parallelism: 1,
      deployment: { cpus: 2, queueRttMs: null },
    }),
    "sqlite 2 cpus",
  );
  assert.equal(
    label({
      driver: "redis",
      parallelism: 1,
      deployment: { cpus: null, queueRttMs: null },
    }),
    "redis",
  );
  assert.equal(
    label({
      driver: "sqlite",
      parallelism: 1,
      load: { nominalRate: 0.5 },
      rsaBits: 4096,
    }),
    "sqlite RSA-4096 rate 0.5/s",
  );
});

Deno.test("steady-load sections come in a fixed order, burst rows alone in the first table", () => {
  const document = steadyDocument();
  assert.deepEqual(loadSections(document).map((s) => s.title), [
    "Load generator",
    "Steady load",
    "Sustained rate",
    "Idle cost",
    "Concurrent senders",
  ]);
  const table = renderTable(document);
  const burst = table.slice(0, table.indexOf("## "));
  assert.match(burst, /\| redis 8 senders \| ok /);
  assert.doesNotMatch(burst, /rate|idle|generator|max rate/);
  assert.deepEqual(loadSections(syntheticDocument()), []);
});

Deno.test("the load generator's row: send loops, calls per second, call times", () => {
  const cells = row(
    renderTable(steadyDocument()),
    "Load generator",
    "generator",
  );
  assert.deepEqual(cells, [
    "generator",
    "16",
    "266/s",
    "54.0 ms",
    "195 ms",
    "ok",
  ]);
});

Deno.test("rate rows: offered, achieved ± noise with spread, verdict, latency from schedule", () => {
  const table = renderTable(steadyDocument());
  assert.deepEqual(row(table, "Steady load", "redis rate 8/s"), [
    "redis rate 8/s",
    "8.16/s",
    "81.6/s",
    "8.00/s ±0.24 (7.90–8.10)",
    "kept up",
    "3",
    "20.0 ms (19.8–20.3)",
    "80.0 ms (63.2–64.8)",
    "8.0 ms",
    "800 / 800",
    "ok",
  ]);
  const behind = row(table, "Steady load", "redis rate 64/s");
  assert.equal(behind[4], "fell behind");
  assert.equal(behind[5], "2,200");
  assert.equal(behind[7], "16.00 s");
  assert.equal(behind[9], "5,200 / 6,400 (81.3%)");
  assert.equal(behind[10], "incomplete");
  assert.match(
    table,
    /- \*\*redis rate 64\/s\*\* incomplete: 1,200 deliveries still missing/,
  );
});

Deno.test("max-rate rows: capacity, resolution, latency there and its verdict", () => {
  const document = steadyDocument();
  const table = renderTable(document);
  assert.deepEqual(row(table, "Sustained rate", "redis"), [
    "redis",
    "16.0/s",
    "160/s",
    "9.4%",
    "90.0 ms",
    "5.00 s",
    "within",
    "bracketed",
    "4✓ 16✓ 64✗ 17.5✗",
    "120.40 s",
  ]);
  // A file from before the capacity fields: no resolution, no verdict.
  const none = row(table, "Sustained rate", "postgres ×4");
  assert.deepEqual(none.slice(1, 5), ["< 4/s", "—", "—", "—"]);
  assert.equal(none[6], "—");
  assert.equal(none[7], "lowest rate failed");
  assert.equal(probeList(document.results.at(-1)!.maxRate!), "4✗");
});

Deno.test("max-rate rows of files without capacity fields still render", () => {
  const document = steadyDocument();
  const results = document.results.map((r) => {
    if (r.maxRate == null) return r;
    const {
      p99AtCapacityMs: _p99,
      latencyBoundMet: _met,
      resolution: _resolution,
      ...old
    } = r.maxRate;
    return { ...r, maxRate: old };
  });
  const table = renderTable({ ...document, results });
  const cells = row(table, "Sustained rate", "redis");
  // The capacity, and the p99 of the run it sits on; no resolution and no
  // verdict, which such files did not record.
  assert.deepEqual(cells.slice(1, 7), [
    "16.0/s",
    "160/s",
    "—",
    "80.0 ms",
    "5.00 s",
    "—",
  ]);
});

Deno.test("idle rows: CPU, RSS and wakeups per role, and the total", () => {
  const text = renderTable(steadyDocument());
  const section = text.slice(text.indexOf("## Idle cost"));
  const lines = section.split("\n").filter((l) => l.startsWith("| postgres"));
  const cells = lines.map((l) =>
    l.split("|").slice(2, -1).map((c) => c.trim())
  );
  assert.deepEqual(cells, [
    ["sender", "1.9%", "80.0 MiB", "19.5/s"],
    ["worker ×2", "6.5%", "160.0 MiB", "65.0/s"],
    // The server's wakeups are unknown, so the total's are too.
    ["server", "1.3%", "80.0 MiB", "—"],
    ["total", "9.8%", "320.0 MiB", "—"],
  ]);
});

Deno.test("senders rows: sendActivity percentiles and calls per second", () => {
  assert.deepEqual(
    row(renderTable(steadyDocument()), "Concurrent senders", "redis"),
    ["redis", "8", "12.0 ms", "48.0 ms", "40.0/s", "ok"],
  );
});

Deno.test("latest.md says how the capacity was searched", () => {
  const document = steadyDocument();
  const load = document.params.load!;
  const markdown = renderMarkdown({
    ...document,
    params: {
      ...document.params,
      load: {
        ...load,
        maxRate: { ...load.maxRate!, probeSeconds: 20, probeDrainSeconds: 10 },
      },
    },
  }, []);
  assert.match(
    markdown,
    /each configuration's capacity searched from 4 activities\/s \(probes of 20 s, up to 10 s to drain\), p99 there judged against 5 s, up to 300 s per configuration/,
  );
});

Deno.test("latest.md says how the load was offered and explains each section", () => {
  const markdown = renderMarkdown(steadyDocument(), [
    { name: "load-latency", title: "Latency against offered rate", svg: "" },
  ]);
  assert.match(
    markdown,
    /Steady load: rate runs at 8, 64 activities\/s \(× 10 recipients\), Poisson arrivals/,
  );
  for (
    const heading of [
      "## Load generator",
      "## Steady load",
      "## Sustained rate",
      "## Idle cost",
      "## Concurrent senders",
      "## Charts",
    ]
  ) {
    assert.ok(markdown.includes(`\n${heading}\n`), heading);
  }
  assert.match(markdown, /\*\*Verdict\*\*: \*fell behind\*/);
  assert.ok(
    markdown.indexOf("## Concurrent senders") < markdown.indexOf("## Charts"),
  );
});

Deno.test("a document of steady-load rows alone has no burst table", () => {
  const document = steadyDocument();
  const loadOnly: ResultsDocument = {
    ...document,
    results: document.results.filter((r) => !r.id.includes("senders")),
  };
  const table = renderTable(loadOnly);
  assert.ok(table.startsWith("## Load generator\n"), table);
  assert.doesNotMatch(renderMarkdown(loadOnly), /\*\*Send\*\*: the app's loop/);
});

Deno.test("stand-ins among steady-load rows get the footnote once", () => {
  const document = steadyDocument();
  const standIn = {
    specifier: "@fedify/denokv",
    resolved: "file:///x/drivers/standins/denokv.ts",
    official: false,
    version: null,
  };
  const table = renderTable({
    ...document,
    results: [
      ...document.results.filter((r) => !r.id.includes("senders")),
      {
        ...result("deno-kv", 1, "ok", {
          expected: 0,
          delivered: 0,
          missing: 0,
          implementation: standIn,
          idle: { seconds: 20, processes: [] },
        }),
        id: "deno-kv-idle",
      },
    ],
  });
  assert.equal(table.match(/\*\*†\*\* stand-in/g)?.length, 1);
  assert.match(table, /\| deno-kv † /);
});
