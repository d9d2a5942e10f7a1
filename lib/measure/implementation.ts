/**
 * Which implementation of a queue package ran: the bare specifier a driver
 * imports its `MessageQueue` class from (for example `@fedify/redis`), what
 * that specifier resolved to in the process that opened the queue, and
 * whether that is the official package from a registry or the project's own
 * stand-in.  `deno.json` decides the mapping, so swapping a stand-in for the
 * official package is one line there, and every result says which ran.
 *
 * @module
 */
import type { Implementation } from "../results/mod.ts";

/** Escapes a string for use inside a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Describes what `specifier` resolved to.  A registry package is recognised
 * by the shapes Deno resolves npm and JSR packages to: an `npm:` or `jsr:`
 * specifier, a path in Deno's npm cache (`…/npm/<registry>/<name>/<version>/…`),
 * a `node_modules/<name>/` folder, or a `https://jsr.io/<name>/<version>/` URL.
 * The package name must be the specifier's own, so a fork mapped under the
 * official name does not count as official.
 */
export function describeImplementation(
  specifier: string,
  resolved: string,
): Implementation {
  const name = packageName(specifier);
  const n = escape(name);
  const patterns = [
    new RegExp(`^(?:npm|jsr):/?${n}@([^/]+)`),
    new RegExp(`/npm/[^/]+/${n}/([^/]+)/`),
    new RegExp(`^https://jsr\\.io/${n}/([^/]+)/`),
    new RegExp(
      `/node_modules/\\.deno/${
        escape(name.replace("/", "+"))
      }@([^/]+)/node_modules/${n}/`,
    ),
    new RegExp(`/node_modules/${n}/()`),
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(resolved);
    if (match != null) {
      return {
        specifier,
        resolved,
        official: true,
        version: match[1] === "" ? null : match[1],
      };
    }
  }
  return { specifier, resolved, official: false, version: null };
}

/** The package part of a bare specifier: `@scope/name` or `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}
