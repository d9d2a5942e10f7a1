/**
 * The image's root file system on the host, kept in the check's cache
 * folder between checks: debootstrap's minimal Debian ({@link SUITE}) from
 * apt's own mirror, the host's Node.js and npm copied in, the container's
 * user, the host's `resolv.conf`, and a stamp (`ROOTFS.json`) that records
 * what went in, so that a later check adds only what changed.
 *
 * @module
 */
import { join } from "node:path";
import { findBinary } from "../services/binaries.ts";
import { FreshCheckError, must } from "./error.ts";
import { CONTAINER_HOME, CONTAINER_USER, SUITE } from "./layout.ts";
import { exists } from "../system/fs.ts";

/** The host's Node.js, copied into the root file system. */
export const HOST_NODE = "/usr/bin/node";

/** The host's npm, copied into the root file system. */
export const HOST_NPM = "/usr/lib/node_modules/npm";

/**
 * The Debian mirror apt uses on this host for `suite`: the `URIs` of the
 * first deb822 stanza (`/etc/apt/sources.list.d/debian.sources`) whose
 * `Suites` holds it, else the first `deb URL suite` line of
 * `/etc/apt/sources.list`; `null` when neither names one.
 *
 * @param sources The two files' texts, `null` when absent.
 * @param suite The release, e.g. `bookworm`.
 */
export function debianMirror(
  sources: { readonly deb822: string | null; readonly list: string | null },
  suite: string = SUITE,
): string | null {
  for (const stanza of (sources.deb822 ?? "").split(/\n\s*\n/)) {
    const field = (name: string) =>
      new RegExp(`^${name}:\\s*(.+)$`, "mi").exec(stanza)?.[1].trim();
    const types = field("Types")?.split(/\s+/) ?? ["deb"];
    const suites = field("Suites")?.split(/\s+/) ?? [];
    const uri = field("URIs")?.split(/\s+/)[0];
    if (uri != null && types.includes("deb") && suites.includes(suite)) {
      return uri;
    }
  }
  for (const line of (sources.list ?? "").split("\n")) {
    const words = line.replace(/#.*$/, "").trim()
      .replace(/\[[^\]]*\]\s*/, "").split(/\s+/);
    if (words[0] === "deb" && words[2] === suite) return words[1];
  }
  return null;
}

/** The versions of the host's Node.js and npm. */
export interface HostNode {
  /** `node --version`, e.g. `v20.20.2`. */
  readonly nodeVersion: string;
  /** npm's `package.json` version. */
  readonly npmVersion: string;
}

/** Options for {@link fillRootfs}. */
export interface RootfsOptions {
  /** The Debian mirror; apt's own on this host by default. */
  readonly mirror?: string;
  /** The time limit of debootstrap, and of the import, in ms. */
  readonly timeoutMs: number;
  /** Stops it. */
  readonly signal: AbortSignal;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

/** What {@link fillRootfs} did. */
export interface RootfsRecord {
  /**
   * `built`: debootstrap ran; `imported`: the kept root file system was
   * brought up to date.
   */
  readonly how: "imported" | "built";
  /** The Debian mirror debootstrap used, when it ran. */
  readonly mirror?: string;
}

/** What a root file system's stamp records. */
interface RootfsStamp {
  readonly suite?: string;
  readonly mirror?: string;
  readonly nodeVersion?: string;
  readonly npmVersion?: string;
  readonly at?: string;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

/** The stamp file beside a root file system. */
function stampPath(rootfs: string): string {
  return `${rootfs}.json`;
}

/** The root file system's folder in the check's cache folder. */
export function rootfsDir(cacheDir: string): string {
  return join(cacheDir, `rootfs-${SUITE}`);
}

/** Removes a root file system and its stamp; never throws. */
export async function removeRootfs(rootfs: string): Promise<void> {
  await Deno.remove(rootfs, { recursive: true }).catch(() => {});
  await Deno.remove(stampPath(rootfs)).catch(() => {});
}

/**
 * The versions of the host's Node.js and npm, which the image copies.
 *
 * @throws {FreshCheckError} When either is missing or Node.js does not run.
 */
export async function hostNode(): Promise<HostNode> {
  if (!await exists(HOST_NODE) || !await exists(HOST_NPM)) {
    throw new FreshCheckError(
      `the image copies the host's Node.js, and ${HOST_NODE} or ${HOST_NPM} ` +
        "is missing: apt-get install -y nodejs npm",
    );
  }
  const nodeVersion = await must(HOST_NODE, ["--version"], {
    timeoutMs: 30_000,
    what: "the host's Node.js",
    fix: `check that ${HOST_NODE} runs`,
  });
  const npmVersion = JSON.parse(
    await Deno.readTextFile(join(HOST_NPM, "package.json")),
  ).version as string;
  return { nodeVersion, npmVersion };
}

/**
 * Makes the root file system `rootfs`, or brings the kept one up to date:
 * debootstrap when there is none (or no stamp), the host's Node.js and npm
 * when the stamp records other versions, then the user
 * {@link CONTAINER_USER}, the host's `/etc/resolv.conf` and a new stamp.
 *
 * @param rootfs Its folder ({@link rootfsDir}).
 * @param host The host's Node.js and npm ({@link hostNode}).
 * @param options Mirror, time limit, abort signal, progress lines.
 * @throws {FreshCheckError} Naming what failed and the fix.
 */
export async function fillRootfs(
  rootfs: string,
  host: HostNode,
  options: RootfsOptions,
): Promise<RootfsRecord> {
  let how: RootfsRecord["how"] = "imported";
  let mirror: string | undefined;
  const stamp = JSON.parse(
    await readOrNull(stampPath(rootfs)) ?? "null",
  ) as RootfsStamp | null;
  if (stamp == null || !await exists(rootfs)) {
    how = "built";
    mirror = await chooseMirror(options);
    // A folder without its stamp is an unfinished one: start it anew.
    await removeRootfs(rootfs);
    await debootstrap(rootfs, mirror, options);
  }
  if (
    stamp?.nodeVersion !== host.nodeVersion ||
    stamp?.npmVersion !== host.npmVersion
  ) {
    await addNode(rootfs, options.signal);
  }
  await addUser(rootfs);
  await copyResolvConf(rootfs);
  await writeStamp(rootfs, {
    suite: SUITE,
    mirror: mirror ?? stamp?.mirror,
    nodeVersion: host.nodeVersion,
    npmVersion: host.npmVersion,
    at: new Date().toISOString(),
  });
  return { how, ...(mirror == null ? {} : { mirror }) };
}

/** `--mirror`, else apt's ({@link debianMirror}). */
async function chooseMirror(options: RootfsOptions): Promise<string> {
  const mirror = options.mirror ?? debianMirror({
    deb822: await readOrNull("/etc/apt/sources.list.d/debian.sources"),
    list: await readOrNull("/etc/apt/sources.list"),
  }) ?? undefined;
  if (mirror == null) {
    throw new FreshCheckError(
      `apt's sources name no Debian mirror for ${SUITE}: give one with ` +
        "--mirror http://deb.debian.org/debian",
    );
  }
  return mirror;
}

/** debootstrap into `ROOTFS.partial`, renamed to `rootfs` once complete. */
async function debootstrap(
  rootfs: string,
  mirror: string,
  options: RootfsOptions,
): Promise<void> {
  const binary = findBinary("debootstrap");
  if (binary == null) {
    throw new FreshCheckError(
      "debootstrap is not installed: apt-get install -y debootstrap (as root)",
    );
  }
  if (Deno.uid() !== 0) {
    throw new FreshCheckError(
      "debootstrap needs root: run the check as root once to build the " +
        "image (later runs reuse it)",
    );
  }
  const partial = `${rootfs}.partial`;
  await Deno.remove(partial, { recursive: true }).catch(() => {});
  await Deno.mkdir(partial, { recursive: true });
  options.log(
    `debootstrap --variant=minbase ${SUITE} ${partial} ${mirror} ` +
      "(about a minute)",
  );
  await must(
    binary,
    ["--variant=minbase", SUITE, partial, mirror],
    {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      what: "debootstrap failed",
      fix: "check the mirror (--mirror) and the network, then run again",
    },
  );
  // apt's downloaded packages are not part of a fresh machine's disk.
  for (
    const entry of Deno.readDirSync(join(partial, "var/cache/apt/archives"))
  ) {
    if (entry.name.endsWith(".deb")) {
      await Deno.remove(join(partial, "var/cache/apt/archives", entry.name));
    }
  }
  await Deno.rename(partial, rootfs);
}

/** Copies the host's Node.js and npm in, with the `npm` and `npx` links. */
async function addNode(rootfs: string, signal: AbortSignal): Promise<void> {
  await Deno.copyFile(HOST_NODE, join(rootfs, "usr/bin/node"));
  const npm = join(rootfs, "usr/lib/node_modules/npm");
  await Deno.remove(npm, { recursive: true }).catch(() => {});
  await Deno.mkdir(join(rootfs, "usr/lib/node_modules"), { recursive: true });
  await must("cp", ["-a", HOST_NPM, npm], {
    timeoutMs: 120_000,
    signal,
    what: "copying npm into the root file system failed",
    fix: "check the disk space of the cache folder (--cache)",
  });
  for (const tool of ["npm", "npx"]) {
    const link = join(rootfs, "usr/bin", tool);
    await Deno.remove(link).catch(() => {});
    await Deno.symlink(`../lib/node_modules/npm/bin/${tool}-cli.js`, link);
  }
}

/** Adds {@link CONTAINER_USER} to passwd and group, once. */
async function addUser(rootfs: string): Promise<void> {
  const { name, uid, gid } = CONTAINER_USER;
  const add = async (file: string, line: string) => {
    const path = join(rootfs, "etc", file);
    const text = await Deno.readTextFile(path);
    if (!text.split("\n").some((l) => l.startsWith(`${name}:`))) {
      await Deno.writeTextFile(path, text.replace(/\n?$/, "\n") + line + "\n");
    }
  };
  await add("passwd", `${name}:x:${uid}:${gid}::${CONTAINER_HOME}:/bin/sh`);
  await add("group", `${name}:x:${gid}:`);
  await Deno.mkdir(join(rootfs, CONTAINER_HOME.slice(1)), { recursive: true });
  await Deno.chown(join(rootfs, CONTAINER_HOME.slice(1)), uid, gid);
}

/**
 * The host's `/etc/resolv.conf` into the root file system; its text, when
 * the copy fails (a dangling link in the way).
 */
async function copyResolvConf(rootfs: string): Promise<void> {
  await Deno.copyFile("/etc/resolv.conf", join(rootfs, "etc/resolv.conf"))
    .catch(async () => {
      await Deno.remove(join(rootfs, "etc/resolv.conf")).catch(() => {});
      await Deno.writeTextFile(
        join(rootfs, "etc/resolv.conf"),
        await Deno.readTextFile("/etc/resolv.conf"),
      );
    });
}

/** Writes the stamp beside the root file system. */
async function writeStamp(rootfs: string, stamp: RootfsStamp): Promise<void> {
  await Deno.writeTextFile(
    stampPath(rootfs),
    JSON.stringify(stamp, null, 2) + "\n",
  );
}
