/**
 * The one way this project takes the message of something thrown: an
 * error's message (the messages of an `AggregateError`'s errors, a system
 * error's code when it has no message), or the string form of anything
 * else.  It sits at the bottom of the layers so that every folder can use it.
 *
 * @module
 */

/** The message of an error, or the string form of anything else thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(errorMessage))].join("; ");
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || (typeof code === "string" ? code : "");
    return message || error.name;
  }
  return String(error);
}
