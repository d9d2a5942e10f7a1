/**
 * The one way this project waits: {@link sleep}, which an abort signal can cut
 * short.
 *
 * @module
 */

/**
 * Resolves after `ms` milliseconds; rejects with the signal's reason as soon
 * as `signal` aborts (at once if it already has).  A zero or negative `ms`
 * still yields to the event loop once.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
