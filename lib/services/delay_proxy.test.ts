/**
 * The delay proxy carries every byte, in order, each way, and never sooner
 * than the delay asked; it counts turns and what it added.  Only lower
 * bounds of time are asserted: a busy machine can only add to them.
 */
import assert from "node:assert/strict";
import { DelayProxy } from "./delay_proxy.ts";

/** An echo server on a free port; `close` stops it and its connections. */
function echoServer(): { port: number; close: () => Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.TcpConn>();
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        (async () => {
          try {
            await conn.readable.pipeTo(conn.writable);
          } catch { /* closed */ }
          conns.delete(conn);
        })();
      }
    } catch { /* closed */ }
  })();
  return {
    port: listener.addr.port,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await serving;
    },
  };
}

/** Reads exactly `length` bytes from `reader`. */
async function readExactly(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  length: number,
): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`ended after ${at} of ${length} bytes`);
    out.set(value.subarray(0, length - at), at);
    at += value.length;
  }
  return out;
}

Deno.test("the delay proxy carries every byte in order, each round trip no sooner than twice the delay", async () => {
  const echo = echoServer();
  const proxy = DelayProxy.start({
    target: { hostname: "127.0.0.1", port: echo.port },
    oneWayMs: 25,
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  const writer = conn.writable.getWriter();
  const reader = conn.readable.getReader();
  try {
    const encoder = new TextEncoder();
    for (const text of ["PING 1\r\n", "PING 2\r\n", "PING 3\r\n"]) {
      const started = performance.now();
      await writer.write(encoder.encode(text));
      const back = await readExactly(reader, text.length);
      const took = performance.now() - started;
      assert.equal(new TextDecoder().decode(back), text);
      assert.ok(took >= 50, `a round trip took ${took} ms, under 2 × 25 ms`);
    }
    // A megabyte of numbered bytes comes back whole and in order.
    const big = new Uint8Array(1 << 20).map((_, i) => i % 251);
    const [, echoed] = await Promise.all([
      writer.write(big),
      readExactly(reader, big.length),
    ]);
    assert.deepEqual(echoed, big);
    const stats = proxy.stats();
    assert.equal(stats.connections, 1);
    assert.equal(stats.bytesUp, 24 + big.length);
    assert.equal(stats.bytesDown, 24 + big.length);
    // Three request-and-answer turns, and the megabyte's own.
    assert.ok(stats.turns >= 4, `${stats.turns} turns`);
    assert.ok(stats.addedDelayMs.median! >= 25, `${stats.addedDelayMs.median}`);
    assert.ok(stats.addedDelayMs.p99! >= stats.addedDelayMs.median!);
    assert.ok(stats.busiestChunksPerSecond >= 1);
  } finally {
    writer.releaseLock();
    reader.releaseLock();
    conn.close();
    await proxy.close();
    await echo.close();
  }
});

Deno.test("a proxy with no delay adds none it was not asked for, and a negative delay is refused", async () => {
  assert.throws(
    () =>
      DelayProxy.start({
        target: { hostname: "127.0.0.1", port: 1 },
        oneWayMs: -1,
      }),
    /a one-way delay of 0 ms or more, not -1/,
  );
  const echo = echoServer();
  const proxy = DelayProxy.start({
    target: { hostname: "127.0.0.1", port: echo.port },
    oneWayMs: 0,
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  try {
    await conn.write(new TextEncoder().encode("x"));
    const reader = conn.readable.getReader();
    assert.deepEqual(
      await readExactly(reader, 1),
      new TextEncoder().encode("x"),
    );
    reader.releaseLock();
    assert.ok(proxy.stats().addedDelayMs.median! >= 0);
  } finally {
    conn.close();
    await proxy.close();
    await echo.close();
  }
});

Deno.test("a window counts afresh: set-up traffic is left out, an open connection still counts", async () => {
  const echo = echoServer();
  const proxy = DelayProxy.start({
    target: { hostname: "127.0.0.1", port: echo.port },
    oneWayMs: 1,
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  const writer = conn.writable.getWriter();
  const reader = conn.readable.getReader();
  const encoder = new TextEncoder();
  try {
    await writer.write(encoder.encode("set-up"));
    await readExactly(reader, 6);
    // The proxy counts a chunk once its write returned: let it settle.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(proxy.stats().bytesUp, 6);
    proxy.startWindow();
    assert.deepEqual(proxy.stats(), {
      connections: 1,
      bytesUp: 0,
      bytesDown: 0,
      chunks: 0,
      turns: 0,
      addedDelayMs: { median: null, p99: null },
      busiestChunksPerSecond: 0,
    });
    await writer.write(encoder.encode("run"));
    assert.deepEqual(await readExactly(reader, 3), encoder.encode("run"));
    const stats = proxy.stats();
    assert.equal(stats.connections, 1);
    assert.equal(stats.bytesUp, 3);
    assert.equal(stats.bytesDown, 3);
    assert.equal(stats.turns, 1);
    assert.ok(stats.chunks >= 2, `${stats.chunks} chunks`);
    assert.ok(stats.addedDelayMs.median! >= 1, `${stats.addedDelayMs.median}`);
  } finally {
    writer.releaseLock();
    reader.releaseLock();
    conn.close();
    await proxy.close();
    await echo.close();
  }
});
