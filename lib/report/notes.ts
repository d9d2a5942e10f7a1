/**
 * The notes under the report's tables: what a row's figures alone do not
 * say (crashes and restarts, why it is not `ok` and the estimate of a row
 * stopped before its end, stray requests, duplicate
 * arrivals, Fedify's log, the deployment's proxies and round trips, outlying
 * runs) and the footnote on stand-ins.
 *
 * @module
 */
import { integer } from "./cells.ts";
import { label } from "./label.ts";
import type {
  ConfigurationResult,
  CrashRecord,
  ProxyTraffic,
  RestartRecord,
} from "../results/mod.ts";

/** One line on a crash the run inflicted. */
function crashNote(result: ConfigurationResult, crash: CrashRecord): string {
  const what = crash.target === "worker"
    ? "consuming process killed with SIGKILL and a fresh one started"
    : "queue server killed with SIGKILL and restarted on the same data";
  return `- **${label(result)}**: ${what} at ${
    crash.atSeconds.toFixed(2)
  } s, ` +
    `after ${integer.format(crash.deliveredBefore)} deliveries`;
}

/** One line on a worker that exited on its own and was started again. */
function restartNote(
  result: ConfigurationResult,
  restart: RestartRecord,
): string {
  return `- **${label(result)}**: at ${restart.atSeconds.toFixed(2)} s, ` +
    `after ${integer.format(restart.deliveredBefore)} deliveries, the ` +
    `${restart.exit}; a fresh worker was started, as a supervisor would`;
}

/** Up to two decimals: `2.5`, `0.33`, `—` when unknown. */
const twoDecimals = new Intl.NumberFormat("en-US", {
  maximumFractionDigits: 2,
});

/** A delay as the notes write it: `2.5 ms`, `—` when unknown. */
function ms(value: number | null): string {
  return value == null ? "—" : `${twoDecimals.format(value)} ms`;
}

/**
 * The notes on a row's deployment (`--cpus`, `--queue-rtt`,
 * `--worker-hosts`): the delay
 * each proxy added and its busiest second, the round trips per delivery, a
 * flag that does not apply and why, fewer worker hosts than asked (no more
 * than the workers), and a server left unpinned.
 */
export function deploymentNotes(r: ConfigurationResult): string[] {
  const out: string[] = [];
  const proxy = r.proxy;
  if (proxy != null) {
    const traffic = (name: string, t: ProxyTraffic) =>
      `${name} ${ms(t.addedDelayMs.median)} (p99 ${
        ms(t.addedDelayMs.p99)
      }, busiest ${integer.format(t.busiestChunksPerSecond)} chunks/s)`;
    const carried = [
      traffic("sender", proxy.sender),
      ...(proxy.workers == null ? [] : [traffic("workers", proxy.workers)]),
    ];
    const trips = r.roundTripsPerDelivery;
    const per = (value: number | null | undefined) =>
      value == null ? "—" : twoDecimals.format(value);
    out.push(
      `- **${label(r)}**: the delay proxies added, one way, for ` +
        `${ms(proxy.oneWayMs)} asked: ${carried.join("; ")}` +
        (trips == null
          ? ""
          : `; round trips per delivery: enqueue ${
            per(trips.enqueue)
          }, dequeue ${per(trips.dequeue)}`),
    );
  }
  for (const [field, why] of Object.entries(r.deployment?.notApplied ?? {})) {
    const flag = field === "queueRttMs"
      ? "--queue-rtt"
      : field === "workerHosts"
      ? "--worker-hosts"
      : field;
    out.push(`- **${label(r)}**: ${flag} does not apply: ${why}`);
  }
  const hosts = r.deployment?.workerHosts;
  const used = r.deployment?.hostAddresses?.length;
  if (hosts != null && used != null && used < hosts) {
    out.push(
      `- **${label(r)}**: --worker-hosts ${hosts}: ${used} host` +
        `${used === 1 ? "" : "s"} made, one per worker process`,
    );
  }
  const note = r.deployment?.pinning?.serverNote;
  if (note != null && r.server != null) {
    out.push(`- **${label(r)}**: --cpus: ${note}`);
  }
  return out;
}

/** The notes on one row, as Markdown list items, in a fixed order. */
export function rowNotes(r: ConfigurationResult): string[] {
  const out: string[] = [];
  for (const crash of r.crashes ?? []) out.push(crashNote(r, crash));
  for (const restart of r.restarts ?? []) out.push(restartNote(r, restart));
  if (r.status !== "ok") {
    out.push(`- **${label(r)}** ${r.status}: ${r.reason ?? "no reason"}`);
  }
  if (r.estimate != null) {
    const e = r.estimate;
    const s = (value: number) => `${integer.format(Math.round(value))} s`;
    out.push(
      `- **${label(r)}** estimated total (an estimate, not a measurement): ` +
        `${s(e.totalSeconds)}, between ${s(e.lowSeconds)} and ` +
        `${s(e.highSeconds)}; ${e.basis}`,
    );
  }
  if (r.status !== "skipped" && (r.unexpected > 0 || r.sendErrors > 0)) {
    out.push(
      `- **${label(r)}**: ${r.unexpected} unexpected inbox requests, ` +
        `${r.sendErrors} failed sends`,
    );
  }
  if (r.duplicatesPerActivity != null) {
    out.push(
      `- **${label(r)}**: duplicate arrivals per activity, largest first: ` +
        r.duplicatesPerActivity.map((n) => integer.format(n)).join(", "),
    );
  }
  if (r.log != null && r.log.warnings + r.log.errors > 0) {
    out.push(
      `- **${label(r)}**: Fedify logged ${
        integer.format(r.log.warnings)
      } warnings and ${integer.format(r.log.errors)} errors` +
        (r.log.path == null ? "" : ` (\`${r.log.path}\`)`),
    );
  }
  out.push(...deploymentNotes(r));
  for (const o of r.outliers ?? []) {
    out.push(
      `- **${label(r)}**: run ${o.run + 1} is an outlier in ${o.metric} ` +
        `(${o.value.toFixed(2)} against a median of ${o.median.toFixed(2)})`,
    );
  }
  return out;
}

/**
 * Whether a result measured a stand-in rather than the package itself.  A
 * Fedify source tree at a commit that is not a release is the package's
 * own code (not official, but no stand-in); files from before `origin`
 * existed count every unofficial implementation as a stand-in, as they
 * had no other kind.
 */
export function isStandIn(result: ConfigurationResult): boolean {
  const implementation = result.implementation;
  if (implementation == null) return false;
  return implementation.origin == null
    ? implementation.official === false
    : implementation.origin === "stand-in";
}

/** A row's label in a table: with `†` when it measured a stand-in. */
export function tableLabel(
  result: ConfigurationResult,
  text = label(result),
): string {
  return text + (isStandIn(result) ? " †" : "");
}

/**
 * The footnote on the `†` of stand-ins among `results`, naming the packages
 * they stand in for; `null` when none of them is one.
 */
export function standInNote(
  results: readonly ConfigurationResult[],
): string | null {
  const standIns = results.filter(isStandIn);
  if (standIns.length === 0) return null;
  const specifiers = [
    ...new Set(standIns.map((r) => `\`${r.implementation!.specifier}\``)),
  ];
  return `- **†** stand-in: the project's own implementation of ${
    specifiers.join(", ")
  } (the official package is not on this registry); see the fidelity ` +
    "table in docs/methodology.md for how it differs";
}
