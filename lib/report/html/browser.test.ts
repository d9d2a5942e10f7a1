/**
 * `report.html` and the SVG charts in a real browser (headless Chromium,
 * driven by puppeteer-core): the page loads with no console error and no
 * network request; every chart draws the series its data has; a click on a
 * legend entry hides that series and a second shows it again; hovering a
 * mark shows its values; the headline chart has a mark for every
 * configuration that is not skipped, an estimate's labelled as one; the
 * table's figures are the JSON's, no row of it is taller than two lines, it
 * sorts and it filters; and no text of a chart, interactive or static SVG,
 * overlaps another, sticks out of the chart or is cut short.  Skipped,
 * saying why, where no Chromium is installed.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { renderDequeueCostHtml, renderResultsHtml } from "./mod.ts";
import { chartContext } from "../charts/context.ts";
import { renderCharts } from "../charts/mod.ts";
import { sendReceiveChart } from "../charts/send_receive.ts";
import { renderDequeueCostChart } from "../dequeue_cost_report.ts";
import { readDequeueCostDocument } from "../../results/dequeue_cost_record.ts";
import { readResultsDocument } from "../../results/read.ts";
import type { ResultsDocument } from "../../results/mod.ts";
import { findChromium, launchChromium } from "../../testing/browser.ts";
import { steadyDocument } from "../../testing/mod.ts";
import {
  featureDocument,
  stoppedDocument,
} from "../../testing/chart_fixtures.ts";

// The page's globals, as the functions that run in the browser see them
// (no DOM types here: they would clash with Deno's in the test run).
// deno-lint-ignore no-explicit-any
type El = any;
declare const document: El;
declare function getComputedStyle(element: El): {
  opacity: string;
  display: string;
  lineHeight: string;
  fontSize: string;
  paddingTop: string;
  paddingBottom: string;
  borderTopWidth: string;
  borderBottomWidth: string;
};

const chromium = findChromium();
if (chromium == null) {
  console.warn(
    "browser tests skipped: no Chromium found (apt-get install chromium, " +
      "or set CHROMIUM to a Chromium or Chrome binary)",
  );
}

const RESULTS = new URL("../../../results/", import.meta.url);

/** The documents whose pages are checked: every kind of results folder. */
async function documents(): Promise<
  [string, ResultsDocument | "dequeue-cost"][]
> {
  return [
    [
      "suite",
      await readResultsDocument(new URL("latest.json", RESULTS).pathname),
    ],
    ["steady", steadyDocument()],
    ["features", featureDocument()],
    ["stopped", stoppedDocument()],
    ["dequeue-cost", "dequeue-cost"],
  ];
}

/** What went wrong while a page loaded: console errors and requests. */
interface Watch {
  readonly errors: string[];
  readonly requests: string[];
}

/** Opens `url` in a new page, recording console errors and every request. */
async function open(page: Page, url: string): Promise<Watch> {
  const watch: Watch = { errors: [], requests: [] };
  page.on("console", (message) => {
    if (message.type() === "error") watch.errors.push(message.text());
  });
  page.on("pageerror", (error) => watch.errors.push(String(error)));
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    if (request.url() === url) {
      request.continue();
    } else {
      watch.requests.push(request.url());
      request.abort();
    }
  });
  await page.goto(url, { waitUntil: "load", timeout: 20_000 });
  return watch;
}

/** Boxes of the texts of `root`'s SVG that overlap or leave the SVG. */
function textDefects(selector: string): string[] {
  const defects: string[] = [];
  for (const svg of document.querySelectorAll(selector)) {
    const frame = svg.getBoundingClientRect();
    const boxes = [...svg.querySelectorAll("text")]
      .filter((t) => (t.textContent ?? "").trim() !== "")
      .filter((t) => {
        let node: El | null = t;
        while (node != null && node !== svg) {
          const style = getComputedStyle(node);
          if (style.opacity === "0" || style.display === "none") return false;
          node = node.parentElement;
        }
        return true;
      })
      .map((t) => ({
        text: t.textContent!.trim(),
        box: t.getBoundingClientRect(),
      }));
    const name = svg.closest("figure")?.id ?? document.title;
    for (const { text, box } of boxes) {
      // Vega shortens a label past its limit, and a legend past its count.
      if (text.endsWith("…") || text.startsWith("…")) {
        defects.push(`${name}: "${text}" is cut short`);
      }
      if (
        box.left < frame.left - 1 || box.right > frame.right + 1 ||
        box.top < frame.top - 1 || box.bottom > frame.bottom + 1
      ) defects.push(`${name}: "${text}" sticks out of the chart`);
    }
    // Glyph boxes include the line's leading; a real collision covers more.
    const slack = 2;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].box, b = boxes[j].box;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > slack && y > slack) {
          defects.push(
            `${name}: "${boxes[i].text}" overlaps "${boxes[j].text}"`,
          );
        }
      }
    }
  }
  return defects;
}

/** The distinct values of `field` among the drawn marks of a chart. */
function drawnSeries(name: string, field: string): string[] {
  const report = (globalThis as unknown as {
    report: { views: Record<string, { scenegraph(): { root: unknown } }> };
  }).report;
  const seen = new Set<string>();
  const walk = (node: unknown, inLegend: boolean) => {
    if (typeof node !== "object" || node == null) return;
    const n = node as {
      role?: string;
      items?: unknown[];
      datum?: Record<string, unknown>;
      opacity?: number;
    };
    const legend = inLegend || n.role === "legend";
    if (!legend && n.datum != null && n.datum[field] != null) {
      seen.add(String(n.datum[field]));
    }
    for (const item of n.items ?? []) walk(item, legend);
  };
  walk(report.views[name].scenegraph().root, false);
  return [...seen].sort();
}

/**
 * The marks a chart draws for each configuration, outside its legend: the
 * type of each visible one (`rect` only for one wider than a whisker's tick,
 * `thin` for a narrower one), and a text's words (`text:failed`).
 */
function marksByConfiguration(name: string): Record<string, string[]> {
  const report = (globalThis as unknown as {
    report: { views: Record<string, { scenegraph(): { root: unknown } }> };
  }).report;
  const marks: Record<string, string[]> = {};
  const walk = (node: unknown, type: string | null, inLegend: boolean) => {
    if (typeof node !== "object" || node == null) return;
    const n = node as {
      role?: string;
      marktype?: string;
      items?: unknown[];
      datum?: Record<string, unknown>;
      text?: unknown;
      bounds?: { x1: number; x2: number };
    };
    const legend = inLegend || n.role === "legend";
    const configuration = n.datum?.configuration;
    // An item (not a mark) of a mark, drawn for a configuration.
    if (
      !legend && n.marktype == null && type != null && configuration != null
    ) {
      const words = String(n.text ?? "").trim();
      const width = (n.bounds?.x2 ?? 0) - (n.bounds?.x1 ?? 0);
      if (type === "text" ? words !== "" : width > 0) {
        (marks[String(configuration)] ??= []).push(
          type === "text"
            ? `text:${words}`
            : type === "rect" && width <= 2
            ? "thin"
            : type,
        );
      }
    }
    for (const item of n.items ?? []) walk(item, n.marktype ?? type, legend);
  };
  walk(report.views[name].scenegraph().root, null, false);
  return marks;
}

/**
 * Rows of the headline table taller than two lines of text: the row's
 * height less its cells' padding and border, against the largest computed
 * line height among its cells.
 */
function tallRows(rows: El[]): string[] {
  return rows.flatMap((tr) => {
    const height = tr.getBoundingClientRect().height;
    const lines = Math.min(
      ...[...tr.cells].map((td: El) => {
        const style = getComputedStyle(td);
        const lineHeight = parseFloat(style.lineHeight) ||
          1.2 * parseFloat(style.fontSize);
        const content = height - parseFloat(style.paddingTop) -
          parseFloat(style.paddingBottom) - parseFloat(style.borderTopWidth) -
          parseFloat(style.borderBottomWidth);
        return content / lineHeight;
      }),
    );
    return lines > 2
      ? [
        `row ${tr.dataset.index}: ${Math.round(height)} px, ${
          lines.toFixed(1)
        } lines`,
      ]
      : [];
  });
}

Deno.test({
  name: "report.html in headless Chromium",
  ignore: chromium == null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-html-" });
    const launched = await launchChromium(chromium!);
    try {
      await t.step(
        "the text check finds overlapping and clipped labels",
        async () => {
          const page = await launched.browser.newPage();
          await page.setContent(
            `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50">` +
              `<text x="10" y="20" font-size="12">one label</text>` +
              `<text x="14" y="22" font-size="12">another</text>` +
              `<text x="170" y="40" font-size="12">clipped</text>` +
              `<text x="10" y="45" font-size="12">…8 entries</text></svg>`,
          );
          const defects = await page.evaluate(textDefects, "svg");
          await page.close();
          assert.deepEqual(
            defects.sort(),
            [
              `: "clipped" sticks out of the chart`,
              `: "…8 entries" is cut short`,
              `: "one label" overlaps "another"`,
            ].sort(),
          );
        },
      );
      for (const [kind, doc] of await documents()) {
        const folder = join(dir, kind);
        await Deno.mkdir(join(folder, "charts"), { recursive: true });
        let html: string;
        let data: unknown;
        if (doc === "dequeue-cost") {
          const cost = await readDequeueCostDocument(
            new URL("dequeue-cost/latest.json", RESULTS).pathname,
          );
          html = await renderDequeueCostHtml(cost);
          data = cost;
          const svg = await renderDequeueCostChart(cost);
          await Deno.writeTextFile(
            join(folder, "charts", "dequeue-cost.svg"),
            svg!,
          );
        } else {
          html = await renderResultsHtml(doc);
          data = doc;
          for (const chart of await renderCharts(doc)) {
            await Deno.writeTextFile(
              join(folder, "charts", `${chart.name}.svg`),
              chart.svg,
            );
          }
        }
        await Deno.writeTextFile(join(folder, "report.html"), html);
        const url = `file://${join(folder, "report.html")}`;
        const page = await launched.browser.newPage();
        await page.setViewport({ width: 1280, height: 900 });

        await t.step(
          `${kind}: loads with no console error and no request`,
          async () => {
            const watch = await open(page, url);
            const errors = await page.evaluate(async () => {
              const report = (globalThis as unknown as {
                report: { ready: Promise<unknown>; errors: string[] };
              }).report;
              await report.ready;
              return report.errors;
            });
            assert.deepEqual(errors, []);
            assert.deepEqual(watch.errors, [], "console errors");
            assert.deepEqual(watch.requests, [], "network requests");
          },
        );

        await t.step(
          `${kind}: no table row is taller than two lines`,
          async () => {
            const tall = await page.$$eval("#headline tbody tr", tallRows);
            assert.deepEqual(tall, []);
          },
        );

        const headline = doc === "dequeue-cost"
          ? null
          : sendReceiveChart(chartContext(doc));
        if (doc !== "dequeue-cost" && headline != null) {
          await t.step(
            `${kind}: every configuration has a mark in the headline chart`,
            async () => {
              const entries = chartContext(doc).entries
                .filter(({ result }) => result.status !== "skipped");
              const marks = await page.evaluate(
                marksByConfiguration,
                headline.name,
              );
              assert.deepEqual(
                Object.keys(marks).sort(),
                entries.map((e) => e.label).sort(),
              );
              for (const { result, label } of entries) {
                const shown = marks[label];
                if (result.sendSeconds != null) {
                  assert.ok(shown.includes("rect"), `${label}: a bar`);
                }
                if (result.estimate == null) continue;
                assert.ok(
                  shown.filter((m) => m === "rect").length >=
                    (result.sendSeconds == null ? 1 : 2),
                  `${label}: a bar for its estimate, in ${shown}`,
                );
                assert.ok(
                  shown.some((m) => /^text:~.* \(estimate\)$/.test(m)),
                  `${label}: labelled an estimate, in ${shown}`,
                );
              }
            },
          );
        }

        const charts = await page.$$eval(
          "figure[id^=chart-]",
          (figures) =>
            figures.map((f) => ({
              name: f.id.slice("chart-".length),
              series: Number(f.getAttribute("data-series")),
              field: f.getAttribute("data-series-field"),
              zoom: f.hasAttribute("data-zoom"),
            })),
        );
        assert.ok(charts.length > 0, "the page has charts");

        await t.step(
          `${kind}: every chart draws one series per value of its data`,
          async () => {
            for (const chart of charts) {
              const drawn = await page.evaluate(
                drawnSeries,
                chart.name,
                chart.field ?? "configuration",
              );
              assert.equal(drawn.length, chart.series, chart.name);
            }
          },
        );

        await t.step(
          `${kind}: a legend click hides a series, a second shows it`,
          async () => {
            for (const chart of charts.filter((c) => c.field != null)) {
              const labels = await page.$$(
                `#chart-${chart.name} .role-legend-label text`,
              );
              assert.ok(labels.length > 0, `${chart.name} has a legend`);
              const before = await page.evaluate(
                drawnSeries,
                chart.name,
                chart.field!,
              );
              const hidden = await labels[0].evaluate((l) => l.textContent);
              await labels[0].click();
              const after = await page.evaluate(
                drawnSeries,
                chart.name,
                chart.field!,
              );
              assert.deepEqual(
                after,
                before.filter((s) => s !== hidden),
                chart.name,
              );
              await labels[0].click();
              assert.deepEqual(
                await page.evaluate(drawnSeries, chart.name, chart.field!),
                before,
              );
            }
          },
        );

        await t.step(`${kind}: hovering a mark shows its values`, async () => {
          for (const chart of charts) {
            // A mark can lie under another or on an edge, so the first few
            // marks with a visible box are tried, each scrolled into view
            // just before it is hovered, until one shows its tooltip.
            let shown: string | null = null;
            let tried = 0;
            for (
              let index = 0;
              index < 40 && tried < 8 && shown == null;
              index++
            ) {
              const point = await page.evaluate(
                (name, index) => {
                  const mark = document.querySelectorAll(
                    `#chart-${name} .role-mark:is(.mark-rect, .mark-symbol) path`,
                  )[index];
                  if (mark == null) return undefined;
                  mark.scrollIntoView({ block: "center" });
                  const box = mark.getBoundingClientRect();
                  return box.width > 0 && box.height > 0
                    ? {
                      x: box.left + box.width / 2,
                      y: box.top + box.height / 2,
                    }
                    : null;
                },
                chart.name,
                index,
              );
              if (point === undefined) break;
              if (point == null) continue;
              tried++;
              await page.mouse.move(0, 0);
              await page.mouse.move(point.x, point.y);
              shown = await page.waitForFunction(
                () => {
                  const tip = document.querySelector(
                    "#vg-tooltip-element.visible",
                  );
                  return tip?.textContent ?? false;
                },
                { timeout: 2_000 },
              ).then((tip) => tip.jsonValue().then(String), () => null);
            }
            assert.ok(tried > 0, `${chart.name} has a mark to hover`);
            assert.ok(shown != null, `${chart.name}: no tooltip on hover`);
            assert.match(shown, /\d/, chart.name);
          }
        });

        await t.step(
          `${kind}: the wheel zooms the charts over time`,
          async () => {
            const width = (name: string) =>
              page.evaluate((name) => {
                const view = (globalThis as unknown as {
                  report: { views: Record<string, { scale(n: string): El }> };
                }).report.views[name];
                const [low, high] = view.scale("x").domain();
                return high - low;
              }, name);
            for (const chart of charts.filter((c) => c.zoom)) {
              const before = await width(chart.name);
              const plot = await page.evaluate((name) => {
                const svg = document.querySelector(`#chart-${name} .view svg`);
                svg.scrollIntoView({ block: "center" });
                const box = svg.getBoundingClientRect();
                return {
                  x: box.left + box.width / 2,
                  y: box.top + box.height / 3,
                };
              }, chart.name);
              await page.mouse.move(plot.x, plot.y);
              await page.mouse.wheel({ deltaY: -400 });
              await page.waitForFunction(
                (name, before) => {
                  const view = (globalThis as unknown as {
                    report: { views: Record<string, { scale(n: string): El }> };
                  }).report.views[name];
                  const [low, high] = view.scale("x").domain();
                  return high - low < before;
                },
                { timeout: 5_000 },
                chart.name,
                before,
              );
            }
          },
        );

        await t.step(
          `${kind}: the table's figures are the JSON's`,
          async () => {
            const rows = await page.$$eval(
              "#headline tbody tr",
              (trs) =>
                trs.map((tr) => ({
                  index: Number(tr.getAttribute("data-index")),
                  cells: [...tr.querySelectorAll("td[data-key]")].map((td) => ({
                    key: td.getAttribute("data-key")!,
                    value: td.getAttribute("data-value")!,
                    text: td.textContent!,
                  })),
                })),
            );
            const list = await page.$eval(
              "#headline",
              (t) => t.getAttribute("data-list")!,
            );
            const items =
              (data as Record<string, Record<string, unknown>[]>)[list];
            assert.equal(rows.length, items.length);
            for (const row of rows) {
              const skipped = items[row.index].status === "skipped";
              for (const cell of row.cells) {
                let expected: unknown = items[row.index];
                for (const part of cell.key.split(".")) {
                  expected = (expected as Record<string, unknown> | null)
                    ?.[part];
                }
                // A skipped row shows no figure, whatever its zero counts.
                if (expected == null || (skipped && cell.value === "")) {
                  assert.equal(cell.value, "", cell.key);
                  assert.equal(cell.text, "—", cell.key);
                  continue;
                }
                assert.equal(Number(cell.value), expected, cell.key);
                // An estimate reads `~2,247 s`.
                const shown = /^-?[\d,]+(\.(\d+))?/.exec(
                  cell.text.replace(/^~/, ""),
                );
                assert.ok(shown != null, `${cell.key}: ${cell.text}`);
                const digits = shown[2]?.length ?? 0;
                const scale =
                  /Ms\b|Ms\./.test(cell.key) && / s\b/.test(cell.text)
                    ? 1000
                    : 1;
                assert.ok(
                  Math.abs(
                    Number(shown[0].replace(/,/g, "")) -
                      Number(expected) / scale,
                  ) <=
                    0.5 * 10 ** -digits + 1e-9,
                  `${cell.key}: ${cell.text} against ${expected}`,
                );
              }
            }
          },
        );

        await t.step(
          `${kind}: the table sorts; its filters filter it and the charts`,
          async () => {
            const column = await page.$$eval(
              "#headline thead th",
              (ths) => ths.findIndex((th) => th.textContent === "Status"),
            );
            await page.click(
              `#headline thead th:nth-child(${column + 1}) button`,
            );
            const statuses = await page.$$eval(
              `#headline tbody td:nth-child(${column + 1})`,
              (tds) => tds.map((td) => td.textContent!),
            );
            assert.deepEqual(
              statuses,
              [...statuses].sort((a, b) => a.localeCompare(b)),
            );
            const driver = await page.$eval(
              "select[data-filter=driver] option:nth-child(2)",
              (o) => (o as El).value,
            );
            await page.select("select[data-filter=driver]", driver);
            const shown = await page.$$eval(
              "#headline tbody tr:not([hidden])",
              (trs) => trs.map((tr) => tr.getAttribute("data-driver")),
            );
            assert.ok(shown.length > 0);
            assert.ok(shown.every((d) => d === driver), String(shown));
            // The charts show only the configurations of the rows shown.
            const allowed = new Set(
              await page.$$eval(
                "#headline tbody tr:not([hidden])",
                (trs) => trs.flatMap((tr) => JSON.parse(tr.dataset.labels)),
              ),
            );
            const fields = (c: typeof charts[number]) =>
              c.field ?? "configuration";
            await page.evaluate(() =>
              (globalThis as unknown as {
                report: { filtered: Promise<unknown> };
              })
                .report.filtered
            );
            let filtered = 0;
            for (const chart of charts) {
              const drawn: string[] = await page.evaluate(
                drawnSeries,
                chart.name,
                fields(chart),
              );
              if (drawn.length < chart.series) filtered++;
              for (const series of drawn) {
                assert.ok(allowed.has(series), `${chart.name}: ${series}`);
              }
            }
            assert.ok(filtered > 0 || charts.every((c) => c.series <= 1));
            await page.select("select[data-filter=driver]", "");
            await page.evaluate(() =>
              (globalThis as unknown as {
                report: { filtered: Promise<unknown> };
              })
                .report.filtered
            );
            for (const chart of charts) {
              assert.equal(
                (await page.evaluate(drawnSeries, chart.name, fields(chart)))
                  .length,
                chart.series,
                chart.name,
              );
            }
          },
        );

        await t.step(
          `${kind}: no chart's text overlaps or is clipped`,
          async () => {
            await page.mouse.move(0, 0);
            const defects = await page.evaluate(
              textDefects,
              "figure .view svg",
            );
            assert.deepEqual(defects, []);
            for await (const entry of Deno.readDir(join(folder, "charts"))) {
              const svgPage = await launched.browser.newPage();
              try {
                await svgPage.goto(
                  `file://${join(folder, "charts", entry.name)}`,
                );
                assert.deepEqual(
                  await svgPage.evaluate(textDefects, "svg"),
                  [],
                  entry.name,
                );
              } finally {
                await svgPage.close();
              }
            }
          },
        );
        await page.close();
      }
    } finally {
      await launched.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
