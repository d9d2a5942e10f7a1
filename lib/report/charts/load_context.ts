/**
 * What the steady-load charts share: the configurations of the document's
 * steady-load rows (labelled without what the row measured, so that
 * `redis rate 8/s` and `redis idle` are both `redis`) with a colour each, and
 * a subtitle that says how the load was offered.
 *
 * @module
 */
import { configurationLabel, rateText, rowKind } from "../label.ts";
import { unique } from "./format.ts";
import { paletteColor } from "./theme.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
} from "../../results/mod.ts";

/** The steady-load rows of a document and what their charts share. */
export interface LoadContext {
  /** The document drawn. */
  readonly document: ResultsDocument;
  /** Rate rows that got far enough to have figures (not failed, skipped). */
  readonly rates: readonly ConfigurationResult[];
  /** Idle rows that got far enough to have figures. */
  readonly idle: readonly ConfigurationResult[];
  /** Max-rate rows that got far enough to have figures. */
  readonly searches: readonly ConfigurationResult[];
  /** A colour for every configuration, in document order. */
  readonly colors: { readonly domain: string[]; readonly range: string[] };
  /** The suite's parameters and arrivals, under the rate charts' titles. */
  readonly subtitle: string;
  /** The suite's parameters alone, under the idle chart's title. */
  readonly setup: string;
}

/** Whether a row has figures to draw. */
function measured(result: ConfigurationResult): boolean {
  return result.status !== "failed" && result.status !== "skipped";
}

/** Reads the steady-load charts' context from the document. */
export function loadContext(document: ResultsDocument): LoadContext {
  const rates = document.results.filter((r) =>
    rowKind(r) === "rate" && measured(r)
  );
  const idle = document.results.filter((r) =>
    rowKind(r) === "idle" && measured(r)
  );
  const searches = document.results.filter((r) =>
    rowKind(r) === "max-rate" && measured(r)
  );
  const domain = unique(
    [...rates, ...idle, ...searches].map(configurationLabel),
  );
  const { params } = document;
  const load = params.load;
  const setup = [
    `${params.recipients} recipients per activity`,
    `RSA-${params.rsaBits}`,
    `fanout ${params.fanout}`,
  ];
  // Without rate runs, the rate charts draw the max-rate probes.
  const arrivals = load == null
    ? null
    : rates.length === 0 && load.maxRate != null
    ? `max-rate probes: fixed arrivals over ${
      rateText(load.maxRate.probeSeconds ?? load.durationSeconds)
    } s`
    : `${load.arrivals === "poisson" ? "Poisson" : "fixed"} arrivals over ${
      rateText(load.durationSeconds)
    } s`;
  const parts = arrivals == null ? setup : [arrivals, ...setup];
  return {
    document,
    rates,
    idle,
    searches,
    colors: { domain, range: domain.map((_, i) => paletteColor(i)) },
    subtitle: parts.join(" · "),
    setup: setup.join(" · "),
  };
}
