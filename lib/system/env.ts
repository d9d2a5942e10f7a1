/**
 * Reading the environment without failing: a variable that is unset, empty or
 * not readable (no `--allow-env`) reads as `undefined`.
 *
 * @module
 */

/**
 * Reads an environment variable.
 *
 * @param name The variable, e.g. `"REDIS_URL"`.
 * @returns Its value; `undefined` if unset, empty or denied.
 */
export function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}
