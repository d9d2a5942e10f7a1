/**
 * The ways this project waits: {@link sleep}, which an abort signal can cut
 * short, and {@link withTimeout}, which bounds a wait.
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

/**
 * Waits for `promise`, but rejects with `onTimeout()` after `ms`
 * milliseconds.  A later rejection of `promise` is swallowed.
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  promise.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
