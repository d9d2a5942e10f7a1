/**
 * Passwords in server URLs: hiding them (`redactUrl`), reading them
 * (`urlPassword`) and removing them from a driver's error message
 * (`stripPassword`).  URLs need not be valid.
 *
 * @module
 */
import { splitUrl } from "./url_authority.ts";

/**
 * Splits a URL's authority into user info and the rest, without requiring
 * the URL to be valid.  Returns `undefined` when there is no password.
 */
function splitPassword(
  url: string,
): { before: string; password: string; after: string } | undefined {
  const parts = splitUrl(url);
  if (parts == null || parts.userinfo === "") return undefined;
  const userinfo = parts.userinfo.slice(0, -1);
  const colon = userinfo.indexOf(":");
  if (colon < 0 || colon === userinfo.length - 1) return undefined;
  return {
    before: parts.scheme + userinfo.slice(0, colon + 1),
    password: userinfo.slice(colon + 1),
    after: "@" + parts.host + parts.rest,
  };
}

/**
 * Replaces the password of a URL with `***`.  Strings that are not URLs, or
 * URLs without a password, are returned unchanged.
 *
 * @param url A URL, possibly invalid.
 * @returns The URL without its password.
 */
export function redactUrl(url: string): string {
  const parts = splitPassword(url);
  return parts == null ? url : `${parts.before}***${parts.after}`;
}

/**
 * Returns the password of a URL as written (possibly percent-encoded), or
 * `undefined` when it has none.
 *
 * @param url A URL, possibly invalid.
 */
export function urlPassword(url: string): string | undefined {
  return splitPassword(url)?.password;
}

/**
 * Removes the password of `url` from `text`, in both its written and its
 * percent-decoded forms.  Used to clean a driver's error message before it is
 * put into our own.
 */
export function stripPassword(text: string, url: string): string {
  const password = urlPassword(url);
  if (password == null) return text;
  let result = text.replaceAll(password, "***");
  try {
    const decoded = decodeURIComponent(password);
    if (decoded !== password) result = result.replaceAll(decoded, "***");
  } catch {
    // Malformed percent-encoding: the written form is all there is.
  }
  return result;
}
