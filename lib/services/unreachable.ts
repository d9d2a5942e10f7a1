/**
 * The error of a server that cannot be reached or used, with its URL's
 * password hidden in the message.
 *
 * @module
 */
import { errorMessage } from "../results/error_message.ts";
import { redactUrl, stripPassword } from "./url_password.ts";

/** A server could not be reached or used; the message says why. */
export class UnreachableError extends Error {
  /**
   * An error whose message names the server and what to do.
   * @param message Names the redacted URL and the cause.
   */
  constructor(message: string) {
    super(message);
    this.name = "UnreachableError";
  }
}

/**
 * The error of a probe that cannot reach its server or use it:
 * `cannot reach NAME at URL (CAUSE)`.  The URL's password is hidden in both
 * the URL and the cause's message; the cause itself is not attached, since
 * it may hold the password.
 *
 * @param server The server's name for a reader, e.g. `PostgreSQL`.
 * @param url The URL the probe used, possibly with a password.
 * @param cause What went wrong: an error, or words such as
 *   `no answer within 2000 ms`.
 */
export function unreachableError(
  server: string,
  url: string,
  cause: unknown,
): UnreachableError {
  return new UnreachableError(
    `cannot reach ${server} at ${redactUrl(url)} (${
      stripPassword(errorMessage(cause), url)
    })`,
  );
}
