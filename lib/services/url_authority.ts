/**
 * The authority of server URLs (`user:password@host:port`): cutting a URL at
 * it without requiring the URL to be valid, reading the host and port a
 * client connects to, putting another host and port in their place while
 * keeping the user's credentials, path and query, and doing that in every
 * URL of a driver's JSON configuration.  `--queue-rtt` routes the app's
 * connections through a delay proxy with these.
 *
 * @module
 */
import { registeredBackends } from "./backend_facts.ts";

const URL_PARTS = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#]*)(.*)$/s;

/** A URL cut at its authority; the parts joined give the URL back. */
export interface UrlParts {
  /** The scheme with its `://`, e.g. `redis://`. */
  readonly scheme: string;
  /** The user info with its `@`, e.g. `user:secret@`; `""` when none. */
  readonly userinfo: string;
  /** The host and port as written, e.g. `127.0.0.1:6379` or `[::1]`. */
  readonly host: string;
  /** Everything after the authority: path, query and fragment. */
  readonly rest: string;
}

/**
 * Cuts a URL at its authority.  Returns `undefined` for a string that is no
 * `scheme://…` URL.
 *
 * @param url A URL, possibly invalid.
 */
export function splitUrl(url: string): UrlParts | undefined {
  const match = URL_PARTS.exec(url);
  if (match == null) return undefined;
  const [, scheme, authority, rest] = match;
  const at = authority.lastIndexOf("@");
  return {
    scheme,
    userinfo: authority.slice(0, at + 1),
    host: authority.slice(at + 1),
    rest,
  };
}

/** Where a client of a URL connects. */
export interface Endpoint {
  /** The host name or address (an IPv6 address without its brackets). */
  readonly hostname: string;
  /** The TCP port. */
  readonly port: number;
}

/**
 * The host and port a client of `url` connects to: the port written, or the
 * default port of a registered backend's scheme
 * (`BackendFacts.defaultPorts`).
 * Returns `undefined` when the URL names no single TCP host and port (no
 * authority, several hosts, a Unix socket, an unknown scheme without a
 * port).
 *
 * @param url A URL, possibly invalid.
 */
export function urlEndpoint(url: string): Endpoint | undefined {
  const parts = splitUrl(url);
  if (parts == null || parts.host === "" || parts.host.includes(",")) {
    return undefined;
  }
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::(\d+))?$/.exec(
    parts.host,
  );
  if (match == null) return undefined;
  const [, host, port] = match;
  const hostname = host.startsWith("[") ? host.slice(1, -1) : host;
  const scheme = parts.scheme.slice(0, -3).toLowerCase();
  const number = port == null
    ? registeredBackends().defaultPorts[scheme]
    : Number(port);
  if (number == null || !(number > 0 && number < 65536)) return undefined;
  try {
    return { hostname: decodeURIComponent(hostname), port: number };
  } catch {
    return undefined; // Malformed percent-encoding: no host to connect to.
  }
}

/** An endpoint as a URL's host writes it: `127.0.0.1:6379`, `[::1]:6379`. */
export function hostOf(endpoint: Endpoint): string {
  const host = endpoint.hostname.includes(":")
    ? `[${endpoint.hostname}]`
    : endpoint.hostname;
  return `${host}:${endpoint.port}`;
}

/**
 * `url` with its host and port replaced by `endpoint`'s, its user info,
 * path, query and fragment kept as written.
 *
 * @param url A `scheme://` URL.
 * @param endpoint The host and port to put in.
 * @throws {TypeError} When `url` is no `scheme://` URL.
 */
export function withEndpoint(url: string, endpoint: Endpoint): string {
  const parts = splitUrl(url);
  if (parts == null) {
    throw new TypeError(`not a scheme://host URL: ${JSON.stringify(url)}`);
  }
  return parts.scheme + parts.userinfo + hostOf(endpoint) + parts.rest;
}

/** What {@link rerouteUrls} made. */
export interface Rerouted<T> {
  /** The value with every matching URL rerouted; the input is unchanged. */
  readonly value: T;
  /** How many URLs it rerouted. */
  readonly replaced: number;
}

/**
 * Walks a JSON value (a driver's configuration) and, in every string that is
 * a URL connecting to `from`, puts `to` in place of the host and port
 * (keeping credentials, path and query).  Other strings, numbers, and the
 * keys of objects are left as they are.
 *
 * @param value A JSON-compatible value.
 * @param from The endpoint to move away from.
 * @param to The endpoint to move to.
 */
export function rerouteUrls<T>(
  value: T,
  from: Endpoint,
  to: Endpoint,
): Rerouted<T> {
  let replaced = 0;
  const same = (a: Endpoint, b: Endpoint) =>
    a.port === b.port && a.hostname.toLowerCase() === b.hostname.toLowerCase();
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      const endpoint = urlEndpoint(node);
      if (endpoint == null || !same(endpoint, from)) return node;
      replaced++;
      return withEndpoint(node, to);
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node != null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, walk(item)]),
      );
    }
    return node;
  };
  return { value: walk(value) as T, replaced };
}
