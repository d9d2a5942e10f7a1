/**
 * Where the servers' executables are: on `PATH`, or in folders off `PATH`
 * that a server's definition names (`ServiceDefinition.binaryFolders`).
 *
 * @module
 */
import { readEnv } from "../system/env.ts";

/**
 * Finds an executable on `PATH`, or else in `folders` (in their order).
 *
 * @param name The executable's name.
 * @param folders Where to look after `PATH`: a server's folders off it.
 * @returns Its full path, or `undefined` when it is nowhere to be found.
 */
export function findBinary(
  name: string,
  folders: readonly string[] = [],
): string | undefined {
  // Without env permission: only the fallback folders.
  const path = readEnv("PATH") ?? "";
  for (const folder of [...path.split(":"), ...folders]) {
    if (!folder) continue;
    const candidate = `${folder}/${name}`;
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) {
        return candidate;
      }
    } catch {
      // Not here.
    }
  }
  return undefined;
}
