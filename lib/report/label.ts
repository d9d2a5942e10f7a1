/**
 * The display label of a configuration, shared by the Markdown report and
 * the charts so that a configuration reads the same in the table, the notes
 * and the legends; and what kind of row a result is (a burst, or one of the
 * steady-load measurements), which its label also says.
 *
 * @module
 */
import {
  BASELINE_DRIVER,
  GENERATOR_DRIVER,
  type IdleRecord,
  type LoadRecord,
  type MaxRateRecord,
} from "../results/mod.ts";

/** What {@link label} reads of a result. */
export interface Labelled {
  /** Driver name. */
  readonly driver: string;
  /** `ParallelMessageQueue` workers. */
  readonly parallelism: number;
  /** Fedify's fanout option, when the suite sweeps it. */
  readonly fanout?: string;
  /** The sender's key size, when the suite sweeps it. */
  readonly rsaBits?: number;
  /** The parallel wrapper. */
  readonly parallelImpl?: string;
  /** The ordering key, when the suite sweeps it. */
  readonly orderingKey?: string;
  /** Closed-loop send loops of a senders row. */
  readonly senders?: number;
  /** The open-loop schedule of a rate row. */
  readonly load?: Pick<LoadRecord, "nominalRate">;
  /** The search of a max-rate row. */
  readonly maxRate?: MaxRateRecord;
  /** The measurement of an idle row. */
  readonly idle?: IdleRecord;
  /** The runtime the app ran on (`--runtime`). */
  readonly runtime?: { readonly name: string };
  /** Where the app ran (`--cpus`, `--queue-rtt`, `--worker-hosts`). */
  readonly deployment?: {
    readonly cpus: number | null;
    readonly queueRttMs: number | null;
    readonly workerHosts?: number | null;
    readonly scale?: number;
    readonly placement?: "agents" | "local";
  };
}

/**
 * What a row of a results document measured: `burst` (every activity sent
 * at once, then drained; a senders row, by several send loops), `generator` (the load generator's own run), `idle`, `rate` (an
 * open-loop run) or `max-rate` (a max-rate search).
 */
export type RowKind = "burst" | "generator" | "idle" | "rate" | "max-rate";

/** The kind of a row; see {@link RowKind}. */
export function rowKind(result: Labelled): RowKind {
  if (result.driver === GENERATOR_DRIVER) return "generator";
  if (result.idle != null) return "idle";
  if (result.maxRate != null) return "max-rate";
  if (result.load != null) return "rate";
  return "burst";
}

/** A rate as labels print it: `8`, `0.5`, `1,000`. */
export function rateText(rate: number): string {
  return rate.toLocaleString("en-US", { maximumFractionDigits: 3 });
}

/**
 * The label of the configuration alone, whatever it measured: `redis ×4`,
 * with the swept axes' values when a suite sweeps fanout or key size:
 * `redis ×4 fanout=skip RSA-4096`, and the parallel wrapper when it is not
 * Fedify's: `redis ×4 awaiting`, the app's runtime when it is not Deno:
 * `redis ×4 on node`, and a deployment other than the default: `redis ×4 1
 * cpu rtt 5 ms 2 hosts` (`--cpus`, `--queue-rtt`, `--worker-hosts`), and
 * the workers of a scale-out: `redis 2 workers on agents` (`--scale`,
 * `--placement`).
 */
export function configurationLabel(result: Labelled): string {
  let text = result.parallelism > 1
    ? `${result.driver} ×${result.parallelism}`
    : result.driver;
  if (result.parallelImpl != null && result.parallelImpl !== "fedify") {
    text += ` ${result.parallelImpl}`;
  }
  if (
    result.fanout != null && result.driver !== BASELINE_DRIVER &&
    result.driver !== GENERATOR_DRIVER
  ) {
    text += ` fanout=${result.fanout}`;
  }
  if (result.rsaBits != null) text += ` RSA-${result.rsaBits}`;
  if (result.orderingKey != null) text += ` key=${result.orderingKey}`;
  if (result.runtime != null && result.runtime.name !== "deno") {
    text += ` on ${result.runtime.name}`;
  }
  const cpus = result.deployment?.cpus;
  if (cpus != null) text += ` ${cpus} cpu${cpus === 1 ? "" : "s"}`;
  const rtt = result.deployment?.queueRttMs;
  if (rtt != null) text += ` rtt ${rtt} ms`;
  const hosts = result.deployment?.workerHosts;
  if (hosts != null) text += ` ${hosts} host${hosts === 1 ? "" : "s"}`;
  const scale = result.deployment?.scale;
  if (scale != null) text += ` ${scale} worker${scale === 1 ? "" : "s"}`;
  const placement = result.deployment?.placement;
  if (placement != null) {
    text += placement === "agents" ? " on agents" : " local";
  }
  return text;
}

/**
 * A display label: the {@link configurationLabel}, followed by what the row
 * measured when it is not a burst by one send loop: `redis ×4 rate 8/s`,
 * `redis idle`, `redis max rate`, `redis 8 senders`; the load generator's
 * row is `generator`.
 */
export function label(result: Labelled): string {
  const text = configurationLabel(result);
  switch (rowKind(result)) {
    case "generator":
      return text;
    case "idle":
      return `${text} idle`;
    case "max-rate":
      return `${text} max rate`;
    case "rate":
      return `${text} rate ${rateText(result.load!.nominalRate)}/s`;
    case "burst": {
      const senders = result.senders;
      return senders == null
        ? text
        : `${text} ${senders} sender${senders === 1 ? "" : "s"}`;
    }
  }
}
