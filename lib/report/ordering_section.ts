/**
 * The report's ordering section, for suites that ran the ordered workload
 * (`--workload cud`): per configuration, the ordering key it sent with,
 * whether it keeps a key's order, the order violations the inbox counted,
 * and what the key cost in throughput and latency against the same
 * configuration without a key.
 *
 * @module
 */
import { cell, figureCell, integer, latency, perSecond } from "./cells.ts";
import { columnTable, numberColumn, textColumn } from "./columns.ts";
import { configurationLabel } from "./label.ts";
import type { Section } from "./load_tables.ts";
import { tableLabel } from "./notes.ts";
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";

/** The configuration of a row, its ordering key aside. */
function sameConfiguration(
  a: ConfigurationResult,
  b: ConfigurationResult,
): boolean {
  return a.driver === b.driver && a.parallelism === b.parallelism &&
    (a.parallelImpl ?? "fedify") === (b.parallelImpl ?? "fedify") &&
    a.fanout === b.fanout && a.rsaBits === b.rsaBits &&
    a.senders === b.senders;
}

/**
 * Deliveries/s with the key as a share of the same configuration's without
 * one: `0.62×`; a dash for rows without a key or without a partner.
 */
function costCell(
  row: ConfigurationResult,
  rows: readonly ConfigurationResult[],
): string {
  if (row.ordering?.key !== "object") return "—";
  const without = rows.find((r) =>
    r.ordering?.key === "none" && sameConfiguration(r, row)
  );
  const base = without?.deliveriesPerSecond;
  const mine = row.deliveriesPerSecond;
  if (base == null || mine == null || base <= 0) return "—";
  return `${(mine / base).toFixed(2)}×`;
}

/**
 * The ordering section, or none when no row ran the ordered workload.
 * Rows whose configuration does not keep a key's order say why in a
 * numbered note ("not supported by the installed version …"), never "yes".
 */
export function orderingSections(document: ResultsDocument): Section[] {
  const rows = document.results.filter((r) => r.ordering != null);
  if (rows.length === 0) return [];
  const reasons: string[] = [];
  const keeps = (row: ConfigurationResult): string => {
    const ordering = row.ordering!;
    if (ordering.supported) return "yes";
    const note = ordering.note ?? "not declared";
    let n = reasons.indexOf(note);
    if (n < 0) n = reasons.push(note) - 1;
    return `no (${n + 1})`;
  };
  // The key has its own column, and an axis all rows share says nothing.
  const varies = (pick: (r: ConfigurationResult) => unknown) =>
    new Set(rows.map(pick)).size > 1;
  const fanout = varies((r) => r.fanout);
  const rsaBits = varies((r) => r.rsaBits);
  const name = (r: ConfigurationResult) =>
    configurationLabel({
      ...r,
      orderingKey: undefined,
      fanout: fanout ? r.fanout : undefined,
      rsaBits: rsaBits ? r.rsaBits : undefined,
    });
  const table = columnTable([
    textColumn<ConfigurationResult>(
      "Configuration",
      (r) => tableLabel(r, name(r)),
    ),
    textColumn<ConfigurationResult>("Key", (r) => r.ordering!.key),
    textColumn<ConfigurationResult>("Honours orderingKey", keeps),
    numberColumn<ConfigurationResult>(
      "Violations",
      (r) => {
        const v = r.ordering!.violations;
        return v == null ? "—" : integer.format(v);
      },
    ),
    numberColumn<ConfigurationResult>(
      "Deliveries/s",
      (r) => cell(r, "deliveriesPerSecond", r.deliveriesPerSecond, perSecond),
    ),
    numberColumn<ConfigurationResult>(
      "vs no key",
      (r) => costCell(r, rows),
    ),
    numberColumn<ConfigurationResult>(
      "p50 latency",
      (r) => figureCell(r.latencyMs?.p50, latency),
    ),
    numberColumn<ConfigurationResult>(
      "p99 latency",
      (r) => figureCell(r.latencyMs?.p99, latency),
    ),
    textColumn<ConfigurationResult>("Status", (r) => r.status),
  ], rows);
  const broken = rows.filter(brokeKeyItKeeps);
  const brokenNote = broken.length === 0 ? [] : [
    `Order broke with keys although the queue implements them: ${
      broken.map((r) =>
        `${name(r)} (${integer.format(r.ordering!.violations!)})`
      ).join(", ")
    }: a failure of that queue to keep a key's order, not a missing ` +
    "feature.",
  ];
  return [{
    title: "Ordering",
    table,
    notes: [
      ...orderingSummary(rows, name),
      ...reasons.map((reason, i) => `(${i + 1}) ${reason}.`),
      ...brokenNote,
    ],
    legend: [
      "- **Honours orderingKey**: whether the queue, as installed and " +
      "wrapped, implements the option (its driver declares it, from the " +
      "package's source); a numbered note says why not.  Whether order " +
      "held is the Violations column.",
      "- **Key**: `object` passes each note's id as `sendActivity`'s " +
      "`orderingKey`; `none` passes none.  Each note's Create, Update and " +
      "Delete are sent back to back.",
      "- **Violations**: first accepted arrivals of an activity at a " +
      "recipient after a later step of the same note had arrived there " +
      "(docs/methodology.md, Ordering).  Counted with either key, also " +
      "where the queue does not keep order.",
      "- **vs no key**: deliveries/s with the key ÷ the same " +
      "configuration's without.  With a key, Fedify enqueues a fanout's " +
      "outbox messages one `enqueue()` at a time instead of one " +
      "`enqueueMany()`, and a queue that keeps order holds back a key's " +
      "next message while one is handled (Deno KV's stand-in polls the " +
      "lock every 100 ms).",
    ],
  }];
}

/** Names with their figure: `mysql (2), sqlite (4)`. */
function listed(
  rows: readonly ConfigurationResult[],
  name: (r: ConfigurationResult) => string,
  figure?: (r: ConfigurationResult) => string,
): string {
  return rows.map((r) => figure == null ? name(r) : `${name(r)} (${figure(r)})`)
    .join(", ");
}

/**
 * Whether a row ran a queue: a driver without one (no queue at all, the
 * baseline) records `implementation: null`.  Older files without the field
 * count as queued.
 */
function queued(r: ConfigurationResult): boolean {
  return r.implementation !== null;
}

/**
 * Whether a row sent with a key through a queue that implements keys, and
 * order broke: a failure of that queue, not a missing feature.
 */
function brokeKeyItKeeps(r: ConfigurationResult): boolean {
  return r.ordering!.key === "object" && r.ordering!.supported && queued(r) &&
    (r.ordering!.violations ?? 0) > 0;
}

/**
 * The section read for the user, from its figures only: where order held
 * with a key and where it did not, which rows were declared unsupported,
 * how often order broke without a key, and what the key cost at most and
 * at least.
 */
export function orderingSummary(
  rows: readonly ConfigurationResult[],
  name: (r: ConfigurationResult) => string,
): string[] {
  const violations = (r: ConfigurationResult) =>
    integer.format(r.ordering!.violations ?? 0);
  const counted = rows.filter((r) => r.ordering!.violations != null);
  const keyed = counted.filter((r) => r.ordering!.key === "object");
  const kept = keyed.filter((r) => r.ordering!.supported);
  const honoured = kept.filter(queued);
  const held = kept.filter((r) => r.ordering!.violations === 0);
  const broke = keyed.filter(brokeKeyItKeeps);
  const brokeUnqueued = kept.filter((r) =>
    !queued(r) && r.ordering!.violations! > 0
  );
  const unsupported = keyed.filter((r) => !r.ordering!.supported);
  const sentences: string[] = [];
  if (keyed.length > 0) {
    sentences.push(
      (held.length > 0
        ? `With \`orderingKey\`, order held in ${listed(held, name)}`
        : "With `orderingKey`, order held in no configuration that " +
          "implements it") +
        (broke.length > 0
          ? `; it broke in ${listed(broke, name, violations)} although ` +
            "the queue implements keys"
          : "") +
        (brokeUnqueued.length > 0
          ? `; without a queue, it broke in ${
            listed(brokeUnqueued, name, violations)
          }`
          : "") +
        (unsupported.length > 0
          ? `; in ${
            listed(unsupported, name, violations)
          } the installed queue does not honour keys (see the numbered ` +
            "notes): those keyed rows measure it without ordering"
          : "") +
        ".",
    );
  }
  const plain = counted.filter((r) => r.ordering!.key === "none");
  if (plain.length > 0) {
    const broken = plain.filter((r) => r.ordering!.violations! > 0);
    sentences.push(
      broken.length === 0
        ? `Without a key, no configuration broke order (${plain.length} ran).`
        : `Without a key, order broke in ${broken.length} of ${plain.length} ` +
          `configurations: ${listed(broken, name, violations)}.`,
    );
  }
  const costs = honoured.flatMap((r) => {
    const cost = costCell(r, rows);
    return cost === "—" ? [] : [{ r, cost, value: parseFloat(cost) }];
  }).sort((a, b) => a.value - b.value);
  if (costs.length > 1) {
    const [low, high] = [costs[0], costs[costs.length - 1]];
    sentences.push(
      `Among queues that honour keys, the key cost most in ${
        name(low.r)
      } (${low.cost} the deliveries/s without one) and least in ${
        name(high.r)
      } (${high.cost}).`,
    );
  }
  return sentences.length === 0 ? [] : [sentences.join(" ")];
}
