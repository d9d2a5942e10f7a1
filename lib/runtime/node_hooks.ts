/**
 * The module hooks of the app's processes on Node.js, loaded with
 * `--import` before the script (`lib/services/app_runtimes.ts`): bare
 * imports resolve as `app_imports.ts` says; and a TypeScript module that
 * Node's type stripping refuses (syntax that needs code, such as the
 * parameter properties of the sqlite package's adapters) is transformed
 * with esbuild, installed beside the app's packages.  Every other module
 * runs as Node.js strips it.
 *
 * @module
 */
import { createRequire, registerHooks } from "node:module";
import * as nodeModule from "node:module";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { APP_IMPORTS_ENV, parseAppImports, redirect } from "./app_imports.ts";

const imports = parseAppImports(process.env[APP_IMPORTS_ENV]);

/** The part of esbuild this hook uses. */
interface Esbuild {
  transformSync(
    source: string,
    options: { loader: "ts"; format: "esm"; sourcefile: string },
  ): { code: string };
}

let esbuild: Esbuild | undefined;

/** Whether Node's type stripping takes `source` as it is. */
function strippable(source: string): boolean {
  const strip = (nodeModule as unknown as {
    stripTypeScriptTypes?: (code: string) => string;
  }).stripTypeScriptTypes;
  if (strip == null) return true;
  try {
    strip(source);
    return true;
  } catch {
    return false;
  }
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    const to = redirect(imports, specifier, context.parentURL);
    if (to == null) return nextResolve(specifier, context);
    if ("url" in to) return { url: to.url, shortCircuit: true };
    return nextResolve(specifier, { ...context, parentURL: to.parent });
  },
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (loaded.format !== "module-typescript" || !url.startsWith("file:")) {
      return loaded;
    }
    const source = loaded.source == null
      ? readFileSync(fileURLToPath(url), "utf8")
      : String(loaded.source);
    if (strippable(source)) return loaded;
    esbuild ??= createRequire(imports.parent)("esbuild") as Esbuild;
    const { code } = esbuild.transformSync(source, {
      loader: "ts",
      format: "esm",
      sourcefile: url,
    });
    return { format: "module", source: code, shortCircuit: true };
  },
});
