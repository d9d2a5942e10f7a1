/**
 * Secrets kept out of logs, error messages and reports: the passwords of the
 * built-in services' URL variables, anything registered, and the password of
 * any URL in the text.
 *
 * @module
 */
import { readEnv } from "../system/env.ts";
import { mariadbService } from "./mariadb.ts";
import { postgresService } from "./postgres.ts";
import { rabbitmqService } from "./rabbitmq.ts";
import { redisService } from "./redis.ts";
import { urlPassword } from "./url_password.ts";

/**
 * Environment variables whose URL passwords {@link redactSecrets} hides: the
 * `urlEnv` of every built-in service (`REDIS_URL`, `POSTGRES_URL`,
 * `AMQP_URL`, `MYSQL_URL`).
 */
export const SECRET_URL_ENVS: readonly string[] = [
  ...new Set(
    [redisService, postgresService, rabbitmqService, mariadbService]
      .map((def) => def.urlEnv),
  ),
];

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
 * password of every URL in `REDIS_URL`, `POSTGRES_URL`, `AMQP_URL` and
 * `MYSQL_URL`, everything given to {@link registerSecrets}, and the password
 * of any `scheme://user:password@` URL in the text.  Each becomes `***`.
 *
 * @param text Any text.
 * @returns The text without those secrets.
 */
export function redactSecrets(text: string): string {
  const secrets = new Set(registeredSecrets);
  for (const name of SECRET_URL_ENVS) {
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
