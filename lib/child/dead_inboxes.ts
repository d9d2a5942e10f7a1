/**
 * The sender's side of dead inboxes (`--inbox-dead-rate`): the recipients
 * the inbox draws as dead get their inbox on the dead inboxes' origin, a
 * remote host of its own.
 *
 * @module
 */
import type { BenchRecipient } from "./federation.ts";

/** Where the dead recipients' inboxes are. */
export interface DeadInboxSpec {
  /** Origin of the dead inboxes, e.g. `http://127.0.0.1:40124`. */
  readonly origin: string;
  /** The dead recipients' numbers. */
  readonly recipients: readonly number[];
}

/**
 * The recipients with the dead ones' inboxes moved to `dead.origin` (the
 * same path); the list itself when there are none.
 */
export function addressDeadInboxes(
  recipients: BenchRecipient[],
  dead: DeadInboxSpec | undefined,
): BenchRecipient[] {
  if (dead == null || dead.recipients.length === 0) return recipients;
  const moved = new Set(dead.recipients);
  return recipients.map((recipient, n) =>
    moved.has(n)
      ? {
        ...recipient,
        inboxId: new URL(recipient.inboxId.pathname, dead.origin),
      }
      : recipient
  );
}
