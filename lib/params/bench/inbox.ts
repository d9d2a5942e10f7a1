/**
 * How the fake inbox behaves on purpose: latency, errors, gone recipients, dropped connections, signature checks.
 *
 * @module
 */
import type { InboxProfile } from "../../results/mod.ts";
import { latency, share } from "../kinds.ts";
import { optional, toggle, value } from "../spec.ts";

/**
 * The inbox that answers 202 at once to everything: the one home of the
 * inbox parameters' defaults, which the table below and the fake inbox
 * both read, and of the seed the results record beside them.
 */
export const INSTANT_INBOX: Required<InboxProfile> = {
  latency: null,
  errorRate: 0,
  goneRate: 0,
  dropRate: 0,
  deadRate: 0,
  verifySignatures: false,
  seed: 1,
};

/** The section of `--help` and the docs these belong to. */
export const INBOX_SECTION = "Inbox behaviour";
const SECTION = INBOX_SECTION;

/** Inbox behaviour: the parameters. */
export const INBOX_PARAMS = [
  optional({
    name: "inboxLatency",
    flag: "inbox-latency",
    kind: latency(),
    help: "answer delay: 100ms, or a uniform range like 50-300ms",
    section: SECTION,
    affects: "measurement",
    record: { path: "inbox.latency" },
  }),
  value({
    name: "inboxErrorRate",
    flag: "inbox-error-rate",
    kind: share(),
    default: INSTANT_INBOX.errorRate,
    help: "share of deliveries answered 503 on their first attempt",
    section: SECTION,
    affects: "measurement",
    record: { path: "inbox.errorRate" },
  }),
  value({
    name: "inboxGoneRate",
    flag: "inbox-gone-rate",
    kind: share(),
    default: INSTANT_INBOX.goneRate,
    help: "share of recipients whose inbox answers 410 Gone",
    section: SECTION,
    affects: "measurement",
    record: { path: "inbox.goneRate" },
  }),
  value({
    name: "inboxDropRate",
    flag: "inbox-drop-rate",
    kind: share(),
    default: INSTANT_INBOX.dropRate,
    help: "share of deliveries whose first attempt is dropped",
    section: SECTION,
    affects: "measurement",
    record: { path: "inbox.dropRate" },
  }),
  value({
    name: "inboxDeadRate",
    flag: "inbox-dead-rate",
    kind: share(),
    default: INSTANT_INBOX.deadRate,
    help: "share of recipients whose inbox fails every request (503), on " +
      "a host of their own; retries and the circuit breaker fill the queue " +
      "with delayed messages, and the run ends when the healthy deliveries " +
      "are in",
    section: SECTION,
    affects: "measurement",
    record: { path: "inbox.deadRate", when: "not-default" },
  }),
  toggle({
    name: "inboxVerify",
    flag: "inbox-verify",
    default: INSTANT_INBOX.verifySignatures,
    help: "verify every HTTP signature (fetches the sender's key)",
    section: SECTION,
    affects: "measurement",
    record: { path: "inbox.verifySignatures" },
  }),
] as const;
