/**
 * The two delay proxies of a `--queue-rtt` run: `prepare()` gets the
 * sender's, the workers' configuration names theirs, a configuration that
 * names neither is refused, and round trips per delivery come from each
 * proxy's turns.
 */
// The registry registers the backends' URL variables and default ports.
import "../../drivers/mod.ts";
import assert from "node:assert/strict";
import type { ProxyRecord, ProxyTraffic } from "../results/mod.ts";
import { urlEndpoint } from "../services/mod.ts";
import { RoleProxies, roundTripsPerDelivery } from "./role_proxies.ts";

Deno.test("the sender and the workers each reach the server through a proxy of their own", async () => {
  const proxies = RoleProxies.start("redis://:pw@127.0.0.1:6390/0", 4);
  try {
    const prepareUrl = proxies.prepareUrl;
    assert.match(prepareUrl, /^redis:\/\/:pw@127\.0\.0\.1:\d+\/0$/);
    assert.notEqual(urlEndpoint(prepareUrl)!.port, 6390);
    const config = { url: prepareUrl, prefix: "fqb:r1:" };
    const { sender, worker } = proxies.route(config);
    assert.equal(sender, config);
    assert.equal(worker.prefix, "fqb:r1:");
    const senderPort = urlEndpoint(sender.url)!.port;
    const workerPort = urlEndpoint(worker.url)!.port;
    assert.notEqual(workerPort, senderPort);
    assert.notEqual(workerPort, 6390);
    assert.match(worker.url, /^redis:\/\/:pw@127\.0\.0\.1:\d+\/0$/);
    // Nothing carried yet; no workers, no workers' figures.
    proxies.startWindow();
    proxies.endWindow();
    const record = proxies.record(0);
    assert.equal(record.oneWayMs, 2);
    assert.equal(record.sender.turns, 0);
    assert.equal(record.workers, null);
    assert.notEqual(proxies.record(1).workers, null);
  } finally {
    await proxies.close();
  }
});

Deno.test("a configuration that names no URL of the server, or a URL without a host, is refused with the fix", async () => {
  const proxies = RoleProxies.start("postgres://u@127.0.0.1:5432/x", 2);
  try {
    assert.throws(
      () => proxies.route({ url: "postgres://u@127.0.0.1:5432/x" }),
      /--queue-rtt: the driver's prepared configuration holds no URL of the server it was given.*or drop --queue-rtt/,
    );
  } finally {
    await proxies.close();
  }
  assert.throws(
    () => RoleProxies.start("postgres://u@h1:1,h2:2/x", 2),
    /names no single TCP host and port/,
  );
});

Deno.test("round trips per delivery: each proxy's turns over the deliveries that arrived", () => {
  const traffic = (turns: number): ProxyTraffic => ({
    connections: 1,
    turns,
    chunks: turns * 2,
    bytesUp: 0,
    bytesDown: 0,
    addedDelayMs: { median: 1, p99: 1 },
    busiestChunksPerSecond: 1,
  });
  const proxy: ProxyRecord = {
    oneWayMs: 1,
    sender: traffic(8),
    workers: traffic(150),
  };
  assert.deepEqual(roundTripsPerDelivery(proxy, 24), {
    enqueue: 0.333,
    dequeue: 6.25,
  });
  assert.deepEqual(roundTripsPerDelivery({ ...proxy, workers: null }, 24), {
    enqueue: 0.333,
    dequeue: null,
  });
  assert.deepEqual(roundTripsPerDelivery(proxy, 0), {
    enqueue: null,
    dequeue: null,
  });
});
