/**
 * The preload plugin of the app's processes on Bun, loaded with
 * `--preload` before the script (`lib/services/app_runtimes.ts`): as it
 * loads a module of the Fedify source tree (`FEDIFY_SOURCE`), it points the
 * module's mapped subpath imports (`#sqlite`) where `deno.json` maps them
 * (`app_imports.ts`' `rewriteSubpathImports`).  Bare package names resolve
 * through NODE_PATH, which the bench sets; nothing else is touched.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import process from "node:process";
import {
  APP_IMPORTS_ENV,
  parseAppImports,
  rewriteSubpathImports,
} from "./app_imports.ts";

/** The part of Bun's global this plugin uses. */
interface BunPlugins {
  plugin(plugin: {
    name: string;
    setup(build: {
      onLoad(
        options: { filter: RegExp },
        load: (args: { path: string }) => Promise<{
          contents: string;
          loader: "ts";
        }>,
      ): void;
    }): void;
  }): void;
  file(path: string): { text(): Promise<string> };
}

const imports = parseAppImports(process.env[APP_IMPORTS_ENV]);
const tree = process.env.FEDIFY_SOURCE;
if (tree != null && tree !== "") {
  const bun = (globalThis as unknown as { Bun: BunPlugins }).Bun;
  const root = realpathSync(tree).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  bun.plugin({
    name: "fedify-source-subpath-imports",
    setup(build) {
      build.onLoad(
        { filter: new RegExp(`^${root}/packages/[^/]+/src/.*\\.ts$`) },
        async ({ path }) => ({
          contents: rewriteSubpathImports(
            imports,
            await bun.file(path).text(),
          ),
          loader: "ts",
        }),
      );
    },
  });
}
