/**
 * Small file-system questions the bench asks in several places.
 *
 * @module
 */

/**
 * Whether something (a file, a folder, a link, even a broken one) is at
 * `path`.  Never throws.
 *
 * @param path The path.
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
