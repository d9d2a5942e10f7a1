/**
 * The sizes of the download caches in the container user's home (npm's,
 * Deno's and the bench's), read before and after each command, so that the
 * report shows what a command downloaded and what a second check reused.
 *
 * @module
 */
import { join } from "node:path";

/** The sizes of the cache folders inside the container's home, in bytes. */
export type CacheSizes = Readonly<Record<string, number>>;

/** The folders of the home that hold downloads, as {@link cacheSizes} names them. */
export const CACHE_FOLDERS: readonly string[] = [
  ".npm",
  ".cache/deno",
  ".cache/fedify-queue-bench",
];

/** The bytes of every file under `path` (links not followed); 0 if absent. */
export async function folderBytes(path: string): Promise<number> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory) return info.size;
  let total = 0;
  for await (const entry of Deno.readDir(path)) {
    total += await folderBytes(join(path, entry.name));
  }
  return total;
}

/** The size of each of {@link CACHE_FOLDERS} under the home folder `home`. */
export async function cacheSizes(home: string): Promise<CacheSizes> {
  const sizes: Record<string, number> = {};
  for (const folder of CACHE_FOLDERS) {
    sizes[folder] = await folderBytes(join(home, folder));
  }
  return sizes;
}
