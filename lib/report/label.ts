/**
 * The display label of a configuration, shared by the Markdown report and
 * the charts so that a configuration reads the same in the table, the notes
 * and the legends.
 *
 * @module
 */
import { BASELINE_DRIVER } from "../results/types.ts";

/**
 * A display label: `redis ×4`, with the swept axes' values when a suite
 * sweeps fanout or key size: `redis ×4 fanout=skip RSA-4096`, and the
 * parallel wrapper when it is not Fedify's: `redis ×4 awaiting`.
 */
export function label(
  result: {
    driver: string;
    parallelism: number;
    fanout?: string;
    rsaBits?: number;
    parallelImpl?: string;
  },
): string {
  let text = result.parallelism > 1
    ? `${result.driver} ×${result.parallelism}`
    : result.driver;
  if (result.parallelImpl != null && result.parallelImpl !== "fedify") {
    text += ` ${result.parallelImpl}`;
  }
  if (result.fanout != null && result.driver !== BASELINE_DRIVER) {
    text += ` fanout=${result.fanout}`;
  }
  if (result.rsaBits != null) text += ` RSA-${result.rsaBits}`;
  return text;
}
