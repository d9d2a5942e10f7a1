/**
 * Path helpers.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Turns a module path given on the command line into a URL string; URLs
 * (`file:`, `npm:`, `https:`) pass through.
 */
export function toFileUrl(specifier: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !isAbsolute(specifier)) {
    return specifier;
  }
  return pathToFileURL(resolve(specifier)).href;
}
