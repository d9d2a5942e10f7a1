/**
 * Where the servers' executables are: on `PATH`, or in Debian's
 * PostgreSQL folders, which are off `PATH`.
 *
 * @module
 */
import { readEnv } from "../system/env.ts";

/**
 * Finds an executable on `PATH`, or else in the newest
 * `/usr/lib/postgresql/VERSION/bin` (where Debian keeps PostgreSQL's server
 * binaries, off `PATH`).
 *
 * @param name The executable's name.
 * @returns Its full path, or `undefined` when it is nowhere to be found.
 */
export function findBinary(name: string): string | undefined {
  // Without env permission: only the fallback folders.
  const path = readEnv("PATH") ?? "";
  for (const folder of [...path.split(":"), ...postgresBinFolders()]) {
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

function postgresBinFolders(): string[] {
  try {
    return [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => `/usr/lib/postgresql/${version}/bin`);
  } catch {
    return [];
  }
}
