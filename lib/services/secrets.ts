/**
 * Secrets kept out of logs, error messages and reports: the passwords of the
 * registered backends' URL variables (`registerBackends`), anything
 * registered here, and the password of any URL in the text.
 *
 * @module
 */
import { readEnv } from "../system/env.ts";
import { registeredBackends } from "./backend_facts.ts";
import { urlPassword } from "./url_password.ts";

/**
 * Secrets shorter than this are not replaced as bare strings (replacing every
 * `"ab"` in a report would wreck it); they are still hidden wherever they
 * appear as a URL's password.
 */
const MIN_SECRET_LENGTH = 3;

const registeredSecrets = new Set<string>();

/** Adds a secret and, if it is percent-encoded, its decoded form. */
function addSecret(into: Set<string>, secret: string): void {
  if (secret.length < MIN_SECRET_LENGTH) return;
  into.add(secret);
  try {
    const decoded = decodeURIComponent(secret);
    if (decoded.length >= MIN_SECRET_LENGTH) into.add(decoded);
  } catch {
    // Not percent-encoded.
  }
}

/**
 * Registers secrets for {@link redactSecrets} to remove from now on.  A value
 * that looks like a URL (`scheme://…`) registers only its password, if any;
 * any other value is registered as it is.
 *
 * @param values URLs or bare secrets.
 */
export function registerSecrets(...values: readonly string[]): void {
  for (const value of values) {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(value)) {
      const password = urlPassword(value);
      if (password != null) addSecret(registeredSecrets, password);
    } else {
      addSecret(registeredSecrets, value);
    }
  }
}

const URL_WITH_PASSWORD =
  /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/?#@"'<>]*):([^\s/?#@"'<>]+)@/g;

/**
 * Removes secrets from arbitrary text (logs, error messages, reports): the
 * password of the URL in each registered backend's URL variable
 * (`BackendFacts.secretUrlEnvs`), everything given to
 * {@link registerSecrets}, and the password of any
 * `scheme://user:password@` URL in the text.  Each becomes `***`.
 *
 * @param text Any text.
 * @returns The text without those secrets.
 */
export function redactSecrets(text: string): string {
  const secrets = new Set(registeredSecrets);
  for (const name of registeredBackends().secretUrlEnvs) {
    const url = readEnv(name);
    const password = url == null ? undefined : urlPassword(url);
    if (password != null) addSecret(secrets, password);
  }
  let result = text.replace(URL_WITH_PASSWORD, "$1:***@");
  // Longest first, so a secret that contains another goes whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    result = result.replaceAll(secret, "***");
  }
  return result;
}
