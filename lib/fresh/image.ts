/**
 * The check's Docker image: made once from the root file system
 * (`rootfs.ts`) with `tar | docker import`, labelled {@link LABEL}, named
 * after the host's Node.js version, and reused by every later check
 * ({@link ensureImage}).
 *
 * @module
 */
import { runToEnd } from "../system/run_to_end.ts";
import { DockerError, dockerImport as importFolder } from "../system/docker.ts";
import { FreshCheckError } from "./error.ts";
import { CONTAINER_PATH, LABEL, LABEL_VALUE, SUITE } from "./layout.ts";
import {
  fillRootfs,
  hostNode,
  removeRootfs,
  rootfsDir,
  type RootfsOptions,
} from "./rootfs.ts";

/** The image's name for a Node.js version (`v20.20.2`). */
export function imageName(nodeVersion: string): string {
  return `fedify-queue-bench-fresh:${SUITE}-node${
    nodeVersion.replace(/^v/, "")
  }`;
}

/** What {@link ensureImage} did. */
export interface ImageRecord {
  /** The image's name. */
  readonly name: string;
  /** The image's id. */
  readonly id: string;
  /**
   * `reused`: the image was there; `imported`: made from the cached root
   * file system; `built`: debootstrap ran.
   */
  readonly how: "reused" | "imported" | "built";
  /** The root file system's folder (kept for reuse). */
  readonly rootfs: string;
  /** The Debian mirror debootstrap used, when it ran. */
  readonly mirror?: string;
  /** The Node.js version inside (the host's). */
  readonly nodeVersion: string;
  /** The npm version inside (the host's). */
  readonly npmVersion: string;
  /** Seconds it took. */
  readonly seconds: number;
}

/** Options for {@link ensureImage}. */
export interface ImageOptions extends RootfsOptions {
  /** The check's cache folder: `rootfs-bookworm/` goes in it. */
  readonly cacheDir: string;
  /** Make the root file system and the image again. */
  readonly rebuild: boolean;
}

/** The image's id, or `null` when there is no image of that name. */
async function imageId(name: string): Promise<string | null> {
  const result = await runToEnd(
    "docker",
    ["image", "inspect", "--format", "{{.Id}}", name],
    { timeoutMs: 30_000 },
  );
  return result.code === 0 ? result.stdout.trim() : null;
}

/**
 * Makes the check's image, or reuses it: debootstrap's minimal bookworm in
 * `CACHE/rootfs-bookworm` (kept), the host's `/usr/bin/node` and
 * `/usr/lib/node_modules/npm` copied in with `npm` and `npx` links, its
 * `/etc/resolv.conf`, and a user `fresh` (`fillRootfs` in `rootfs.ts`);
 * then `tar -C DIR -c . | docker import`, labelled {@link LABEL}.  The
 * image's name holds the Node.js version, so another Node.js makes another
 * image.
 *
 * @throws {FreshCheckError} Naming what failed and the fix.
 */
export async function ensureImage(options: ImageOptions): Promise<ImageRecord> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const host = await hostNode();
  const name = imageName(host.nodeVersion);
  const rootfs = rootfsDir(options.cacheDir);
  if (options.rebuild) {
    options.log(`--rebuild: removing ${name} and ${rootfs}`);
    await runToEnd("docker", ["image", "rm", "--force", name], {
      timeoutMs: 60_000,
    });
    await removeRootfs(rootfs);
  } else {
    const id = await imageId(name);
    if (id != null) {
      return { name, id, how: "reused", rootfs, ...host, seconds: seconds() };
    }
  }
  const { how, mirror } = await fillRootfs(rootfs, host, options);
  options.log(`importing ${rootfs} as the image ${name}`);
  await dockerImport(rootfs, name, options);
  const id = await imageId(name);
  if (id == null) {
    throw new FreshCheckError(
      `docker import reported no error, yet there is no image ${name}: ` +
        "run again with --rebuild",
    );
  }
  return {
    name,
    id,
    how,
    rootfs,
    ...(mirror == null ? {} : { mirror }),
    ...host,
    seconds: seconds(),
  };
}

/** `tar -C rootfs -c . | docker import`, labelled, with the `PATH`. */
async function dockerImport(
  rootfs: string,
  name: string,
  options: ImageOptions,
): Promise<void> {
  try {
    await importFolder(rootfs, name, {
      changes: [`LABEL ${LABEL}=${LABEL_VALUE}`, `ENV PATH=${CONTAINER_PATH}`],
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  } catch (error) {
    if (!(error instanceof DockerError)) throw error;
    throw new FreshCheckError(`${error.message}\nrun again with --rebuild`);
  }
}
