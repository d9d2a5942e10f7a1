/**
 * Server URLs' authorities: where a client connects, another host and port
 * put in with the credentials, path and query kept, and every URL of a
 * driver's configuration rerouted (what `--queue-rtt` does per role).
 */
// The registry registers the backends' URL variables and default ports.
import "../../drivers/mod.ts";
import assert from "node:assert/strict";
import {
  rerouteUrls,
  splitUrl,
  urlEndpoint,
  withEndpoint,
} from "./url_authority.ts";

Deno.test("urlEndpoint() reads the host and port, or the scheme's default port", () => {
  assert.deepEqual(urlEndpoint("redis://127.0.0.1:6390"), {
    hostname: "127.0.0.1",
    port: 6390,
  });
  assert.deepEqual(urlEndpoint("postgres://u:p%40ss@db.example:5433/x?a=1"), {
    hostname: "db.example",
    port: 5433,
  });
  assert.deepEqual(urlEndpoint("amqp://guest:guest@localhost"), {
    hostname: "localhost",
    port: 5672,
  });
  assert.deepEqual(urlEndpoint("mysql://root@[::1]:3307/fqb"), {
    hostname: "::1",
    port: 3307,
  });
  assert.deepEqual(urlEndpoint("rediss://h"), { hostname: "h", port: 6379 });
  // No single TCP host and port: nothing to proxy.
  assert.equal(urlEndpoint("postgres://u@h1:5432,h2:5432/x"), undefined);
  assert.equal(urlEndpoint("postgres:///x?host=/run/postgresql"), undefined);
  assert.equal(urlEndpoint("unknown://h/x"), undefined);
  assert.equal(urlEndpoint("not a url"), undefined);
  assert.equal(urlEndpoint("redis://h:99999"), undefined);
});

Deno.test("withEndpoint() swaps the host and port and keeps credentials, path and query as written", () => {
  const to = { hostname: "127.0.0.1", port: 41000 };
  assert.equal(
    withEndpoint(
      "postgres://user:p%40ss:w@db.example:5432/bench?sslmode=disable",
      to,
    ),
    "postgres://user:p%40ss:w@127.0.0.1:41000/bench?sslmode=disable",
  );
  assert.equal(
    withEndpoint("redis://:secret@localhost/2", to),
    "redis://:secret@127.0.0.1:41000/2",
  );
  assert.equal(withEndpoint("amqp://h", to), "amqp://127.0.0.1:41000");
  assert.equal(
    withEndpoint("mysql://root@h:3306/x", { hostname: "::1", port: 1 }),
    "mysql://root@[::1]:1/x",
  );
  assert.throws(() => withEndpoint("h:1", to), /not a scheme:\/\/host URL/);
  const parts = splitUrl("redis://u:p@h:1/0#f")!;
  assert.equal(
    parts.scheme + parts.userinfo + parts.host + parts.rest,
    "redis://u:p@h:1/0#f",
  );
});

Deno.test("rerouteUrls() moves every URL of a configuration that names one endpoint, and nothing else", () => {
  const from = { hostname: "127.0.0.1", port: 40001 };
  const to = { hostname: "127.0.0.1", port: 40002 };
  const config = {
    url: "redis://:pw@127.0.0.1:40001/0",
    prefix: "fqb:r1:",
    nested: [{ replica: "redis://127.0.0.1:40001" }, "redis://127.0.0.1:6379"],
    port: 40001,
    "redis://127.0.0.1:40001": true,
    none: null,
  };
  const { value, replaced } = rerouteUrls(config, from, to);
  assert.equal(replaced, 2);
  assert.deepEqual(value, {
    url: "redis://:pw@127.0.0.1:40002/0",
    prefix: "fqb:r1:",
    nested: [{ replica: "redis://127.0.0.1:40002" }, "redis://127.0.0.1:6379"],
    port: 40001,
    "redis://127.0.0.1:40001": true,
    none: null,
  });
  // The input is left as it was.
  assert.equal(config.url, "redis://:pw@127.0.0.1:40001/0");
  assert.deepEqual(rerouteUrls(null, from, to), { value: null, replaced: 0 });
});
