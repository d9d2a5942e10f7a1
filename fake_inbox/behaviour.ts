/**
 * How the fake inbox misbehaves on purpose: answer latency, 5xx errors on
 * first attempts, recipients that are gone (410), dropped connections, and
 * signature verification.  Which deliveries fail is drawn once, up front,
 * from a seeded generator, so a run's counts are exact and repeatable.
 *
 * @module
 */

import type { InboxProfile } from "../lib/results/mod.ts";

/** Whether a profile needs connections dropped (a transport that can). */
export function needsDrops(profile: InboxProfile): boolean {
  return profile.dropRate > 0;
}

/** A small seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks exactly `round(share × size)` distinct indices below `size`. */
export function pick(
  size: number,
  share: number,
  random: () => number,
): Uint8Array {
  const chosen = new Uint8Array(size);
  const count = Math.round(Math.min(1, Math.max(0, share)) * size);
  // Partial Fisher–Yates over the index range.
  const indices = new Uint32Array(size);
  for (let i = 0; i < size; i++) indices[i] = i;
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (size - i));
    const t = indices[i];
    indices[i] = indices[j];
    indices[j] = t;
    chosen[indices[i]] = 1;
  }
  return chosen;
}

/** What the inbox does with one attempt. */
export type Verdict = "accept" | "error" | "gone" | "drop";

/** The failures of one run, drawn from a profile. */
export class Behaviour {
  readonly #profile: InboxProfile;
  readonly #recipients: number;
  readonly #gone: Uint8Array;
  readonly #errors: Uint8Array;
  readonly #drops: Uint8Array;
  readonly #random: () => number;
  /** How many pairs go to a gone recipient. */
  readonly goneDeliveries: number;

  /** Draws the failing deliveries of `total × recipients`. */
  constructor(profile: InboxProfile, total: number, recipients: number) {
    this.#profile = profile;
    this.#recipients = recipients;
    const random = seededRandom(profile.seed);
    this.#gone = pick(recipients, profile.goneRate, random);
    const size = total * recipients;
    this.#errors = pick(size, profile.errorRate, random);
    this.#drops = pick(size, profile.dropRate, random);
    this.#random = seededRandom(profile.seed ^ 0x5bd1e995);
    this.goneDeliveries = this.#gone.reduce((a, b) => a + b, 0) * total;
  }

  /** Whether the delivery `pair` goes to a recipient that is gone. */
  isGone(pair: number): boolean {
    return this.#gone[pair % this.#recipients] === 1;
  }

  /** What to do with attempt number `attempt` (1-based) of `pair`. */
  verdict(pair: number, attempt: number): Verdict {
    if (this.isGone(pair)) return "gone";
    if (attempt === 1 && this.#drops[pair] === 1) return "drop";
    if (attempt === 1 && this.#errors[pair] === 1) return "error";
    return "accept";
  }

  /** The delay before answering, ms (0 for an instant inbox). */
  delayMs(): number {
    const latency = this.#profile.latency;
    if (latency == null) return 0;
    return latency.minMs + this.#random() * (latency.maxMs - latency.minMs);
  }
}
