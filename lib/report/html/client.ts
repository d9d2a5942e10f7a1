/**
 * The page's own script in `report.html`: embeds each chart with
 * vega-embed (which brings the tooltips, legends and zoom the specs ask
 * for), and sorts and filters the headline table, the one thing no library
 * on the page does; a filter also leaves only the rows' configurations in
 * the charts (their `shown` parameter).  Kept as the text of a classic script, inlined as is.
 *
 * The page exposes `window.report` for its browser test: `ready` (a promise
 * that settles once every chart is drawn), `filtered` (one that settles once
 * the charts show the latest filter's rows), `views` (the Vega views, by
 * chart name) and `errors` (charts that failed to embed).
 *
 * @module
 */

/** The script's text. */
export const CLIENT_SCRIPT = `"use strict";
(() => {
  const read = (id) => JSON.parse(document.getElementById(id).textContent);
  const charts = read("report-charts");
  const report = { views: {}, errors: [] };
  window.report = report;
  report.ready = Promise.all(charts.map((chart) =>
    vegaEmbed(document.querySelector("#chart-" + chart.name + " .view"),
      chart.spec, {
        renderer: "svg",
        ast: true,
        actions: { export: true, source: false, compiled: false, editor: false },
      })
      .then((result) => { report.views[chart.name] = result.view; })
      .catch((error) => {
        report.errors.push(chart.name + ": " + error);
        console.error("chart " + chart.name + ": " + error);
      })
  ));

  const table = document.getElementById("headline");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const key = (row, column) => {
    const cell = row.cells[column];
    const value = cell.dataset.value;
    return value === undefined ? cell.textContent : value === "" ? null : Number(value);
  };
  table.querySelectorAll("thead th button").forEach((button, column) => {
    button.addEventListener("click", () => {
      const th = button.parentElement;
      const ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach((other) => other.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const sign = ascending ? 1 : -1;
      const sorted = rows.slice().sort((a, b) => {
        const x = key(a, column), y = key(b, column);
        if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
        return sign * (typeof x === "number" ? x - y : String(x).localeCompare(String(y)));
      });
      body.append(...sorted);
    });
  });

  const selects = Array.from(document.querySelectorAll("select[data-filter]"));
  const shown = document.getElementById("shown");
  const filter = () => {
    let count = 0;
    const labels = new Set();
    for (const row of rows) {
      row.hidden = !selects.every((s) => s.value === "" || row.dataset[s.dataset.filter] === s.value);
      if (row.hidden) continue;
      count++;
      for (const label of JSON.parse(row.dataset.labels)) labels.add(label);
    }
    shown.textContent = count + " of " + rows.length + " rows";
    // The charts show the configurations of the rows shown.
    const list = count === rows.length ? null : Array.from(labels);
    report.filtered = report.ready.then(() =>
      Promise.all(Object.values(report.views).map((view) => {
        try {
          return view.signal("shown", list).runAsync();
        } catch (_) {
          return null; // a chart of no configuration
        }
      }))
    );
  };
  selects.forEach((s) => s.addEventListener("change", filter));
  filter();
})();
`;
