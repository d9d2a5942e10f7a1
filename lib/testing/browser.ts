/**
 * Headless Chromium for browser tests: where it is (Debian's `chromium`
 * package, `.ci/run` installs it; `CHROMIUM` names another), and a launch
 * with the flags this machine needs (no sandbox as root, no background
 * network), a fresh profile removed on close.
 *
 * @module
 */
import puppeteer, { type Browser } from "puppeteer-core";

/** Where Chromium may be, in order. */
const CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

/** The Chromium binary, or `null` when none is installed. */
export function findChromium(): string | null {
  const wanted = Deno.env.get("CHROMIUM");
  for (const path of wanted == null ? CANDIDATES : [wanted]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not there */ }
  }
  return null;
}

/** A launched browser and how to close it (profile removed). */
export interface LaunchedBrowser {
  /** The browser. */
  readonly browser: Browser;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Launches headless Chromium from `path` with a fresh profile. */
export async function launchChromium(path: string): Promise<LaunchedBrowser> {
  const profile = await Deno.makeTempDir({ prefix: "fqb-chromium-" });
  try {
    const browser = await puppeteer.launch({
      executablePath: path,
      headless: true,
      userDataDir: profile,
      timeout: 30_000,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    return {
      browser,
      close: async () => {
        await browser.close().catch(() => {});
        await Deno.remove(profile, { recursive: true }).catch(() => {});
      },
    };
  } catch (error) {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
    throw error;
  }
}
