/**
 * A root file system that runs Deno and nothing else: the Deno binary at
 * {@link ROOTFS_DENO} and the shared libraries `ldd` lists for it at their
 * own paths, so that `docker import` of the folder makes an image whose
 * `deno` runs without a distribution underneath (the agent image, and the
 * swarm tests' stand-in image).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { runToEnd } from "./run_to_end.ts";

/** Where the binary goes inside the root file system. */
export const ROOTFS_DENO = "/usr/local/bin/deno";

/** The `PATH` inside such an image. */
export const ROOTFS_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The absolute paths of the shared libraries in `ldd`'s output (the
 * `=> /path` ones and the loader, a bare path); `linux-vdso` has none.
 *
 * @param lddOutput What `ldd BINARY` printed.
 */
export function sharedLibraries(lddOutput: string): string[] {
  const paths = new Set<string>();
  for (const line of lddOutput.split("\n")) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)/.exec(line);
    if (match != null) paths.add(match[1]);
  }
  return [...paths];
}

/**
 * Copies the Deno binary and its shared libraries into `root`, and makes
 * `/tmp`.
 *
 * @param root The root file system's folder (made if missing).
 * @param deno The binary; this process's own by default.
 * @throws {Error} When `ldd` fails, naming the fix.
 */
export async function fillDenoRootfs(
  root: string,
  deno: string = Deno.execPath(),
): Promise<void> {
  const ldd = await runToEnd("ldd", [deno], { timeoutMs: 30_000 });
  if (ldd.code !== 0) {
    throw new Error(
      `ldd ${deno} failed (${ldd.stderr.trim()}): a Deno image needs ldd ` +
        "(apt-get install -y libc-bin) and a dynamically linked deno",
    );
  }
  for (const file of sharedLibraries(ldd.stdout)) {
    const target = join(root, file);
    await Deno.mkdir(dirname(target), { recursive: true });
    await Deno.copyFile(await Deno.realPath(file), target);
  }
  const target = join(root, ROOTFS_DENO);
  await Deno.mkdir(dirname(target), { recursive: true });
  await Deno.copyFile(deno, target);
  await Deno.chmod(target, 0o755);
  await Deno.mkdir(join(root, "tmp"), { recursive: true });
  await Deno.chmod(join(root, "tmp"), 0o1777);
}
