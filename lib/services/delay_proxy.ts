/**
 * A TCP proxy that holds every byte for a fixed time each way, in order:
 * the queue server a network hop away (`--queue-rtt`), where the kernel has
 * no netem.  Each chunk read from one side is written to the other no
 * sooner than `oneWayMs` after it was read, and never before a chunk read
 * earlier on that side; so a request and its answer cross it in at least
 * twice `oneWayMs`.  The proxy counts what it carried: bytes and chunks
 * each way, the delay it actually added (which is never below the one
 * asked, and says whether it kept up), the busiest second, and the turns of
 * each connection: a turn is a chunk from the client that follows one from
 * the server (or opens the connection), one round trip of a protocol that
 * waits for its answers.  {@link DelayProxy.startWindow} starts every count
 * afresh, so that a run's figures leave out what its set-up carried.  The
 * delays are timed by a worker thread (`precise_alarm.ts`): Deno's own
 * timers are a millisecond too coarse for a round trip of 1 ms.
 *
 * @module
 */
import { PreciseAlarm } from "./precise_alarm.ts";

/** Where the proxy listens and what it forwards to. */
export interface DelayProxyOptions {
  /** The server to forward to. */
  readonly target: { readonly hostname: string; readonly port: number };
  /** The delay added each way, ms (half the round trip). */
  readonly oneWayMs: number;
  /** Where to listen; `127.0.0.1` by default. */
  readonly hostname?: string;
}

/** What a proxy carried (since its last window started). */
export interface DelayProxyStats {
  /**
   * Connections carried: those accepted, and those still open when the
   * window started.
   */
  readonly connections: number;
  /** Bytes from clients to the server. */
  readonly bytesUp: number;
  /** Bytes from the server to clients. */
  readonly bytesDown: number;
  /** Chunks carried, both ways. */
  readonly chunks: number;
  /** Turns: client chunks after a server chunk (round trips). */
  readonly turns: number;
  /** The delay added to each chunk, ms, read to written. */
  readonly addedDelayMs: {
    readonly median: number | null;
    readonly p99: number | null;
  };
  /** The most chunks it carried within one second. */
  readonly busiestChunksPerSecond: number;
}

/** How many added delays are kept for the percentiles (a reservoir). */
const DELAY_SAMPLES = 10_000;

/** One chunk waiting for its time. */
interface Pending {
  readonly readAt: number;
  readonly data: Uint8Array;
}

/** A running delay proxy. */
export class DelayProxy {
  readonly #listener: Deno.Listener<Deno.TcpConn, Deno.NetAddr>;
  readonly #options: DelayProxyOptions;
  readonly #conns = new Set<Deno.TcpConn>();
  readonly #pipes = new Set<Promise<void>>();
  readonly #delays: number[] = [];
  #delaysSeen = 0;
  #connections = 0;
  /** Client connections open now. */
  #open = 0;
  #bytesUp = 0;
  #bytesDown = 0;
  #chunks = 0;
  #turns = 0;
  #second = 0;
  #inSecond = 0;
  #busiest = 0;
  #accepting: Promise<void>;
  /** Times the delays; none when there is no delay to time. */
  readonly #alarm: PreciseAlarm | undefined;
  #closed = false;

  private constructor(
    listener: Deno.Listener<Deno.TcpConn, Deno.NetAddr>,
    options: DelayProxyOptions,
  ) {
    this.#listener = listener;
    this.#options = options;
    this.#alarm = options.oneWayMs > 0 ? PreciseAlarm.start() : undefined;
    this.#accepting = this.#accept();
  }

  /**
   * Listens on a free port and forwards each connection to the target.
   * @throws {RangeError} For a negative or non-finite delay.
   */
  static start(options: DelayProxyOptions): DelayProxy {
    if (!Number.isFinite(options.oneWayMs) || options.oneWayMs < 0) {
      throw new RangeError(
        `a delay proxy needs a one-way delay of 0 ms or more, not ${options.oneWayMs}`,
      );
    }
    const listener = Deno.listen({
      hostname: options.hostname ?? "127.0.0.1",
      port: 0,
    });
    return new DelayProxy(listener, options);
  }

  /** The port it listens on. */
  get port(): number {
    return this.#listener.addr.port;
  }

  /** What it carried so far. */
  stats(): DelayProxyStats {
    const sorted = [...this.#delays].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted.length === 0
        ? null
        : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    return {
      connections: this.#connections,
      bytesUp: this.#bytesUp,
      bytesDown: this.#bytesDown,
      chunks: this.#chunks,
      turns: this.#turns,
      addedDelayMs: { median: at(0.5), p99: at(0.99) },
      busiestChunksPerSecond: Math.max(this.#busiest, this.#inSecond),
    };
  }

  /**
   * Starts counting afresh: every figure of {@link stats} counts from here
   * (the connections still open count as carried).
   */
  startWindow(): void {
    this.#delays.length = 0;
    this.#delaysSeen = 0;
    this.#connections = this.#open;
    this.#bytesUp = 0;
    this.#bytesDown = 0;
    this.#chunks = 0;
    this.#turns = 0;
    this.#second = Math.floor(performance.now() / 1000);
    this.#inSecond = 0;
    this.#busiest = 0;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#listener.close();
    } catch { /* already closed */ }
    for (const conn of this.#conns) {
      try {
        conn.close();
      } catch { /* already closed */ }
    }
    await this.#accepting;
    // Pending delays go on with timers, never short.
    this.#alarm?.close();
    await Promise.allSettled([...this.#pipes]);
  }

  async #accept(): Promise<void> {
    try {
      for await (const client of this.#listener) {
        this.#connections++;
        const piped = this.#serve(client).catch(() => {});
        this.#pipes.add(piped);
        piped.finally(() => this.#pipes.delete(piped));
      }
    } catch {
      // The listener closed.
    }
  }

  async #serve(client: Deno.TcpConn): Promise<void> {
    this.#open++;
    try {
      await this.#carry(client);
    } finally {
      this.#open--;
    }
  }

  async #carry(client: Deno.TcpConn): Promise<void> {
    this.#conns.add(client);
    let server: Deno.TcpConn;
    try {
      server = await Deno.connect(this.#options.target);
    } catch (error) {
      this.#conns.delete(client);
      client.close();
      throw error;
    }
    this.#conns.add(server);
    // Which side spoke last on this connection: a client chunk after the
    // server's (or the first) is a turn.
    let last: "client" | "server" | null = null;
    const up = this.#pipe(client, server, (data) => {
      this.#bytesUp += data.length;
      if (last !== "client") this.#turns++;
      last = "client";
    });
    const down = this.#pipe(server, client, (data) => {
      this.#bytesDown += data.length;
      last = "server";
    });
    await Promise.allSettled([up, down]);
    for (const conn of [client, server]) {
      this.#conns.delete(conn);
      try {
        conn.close();
      } catch { /* already closed */ }
    }
  }

  /**
   * Carries `from`'s bytes to `to`, each chunk no sooner than the delay
   * after it was read and after every chunk read before it; ends `to`'s
   * writing side when `from` ends.
   */
  async #pipe(
    from: Deno.TcpConn,
    to: Deno.TcpConn,
    onRead: (data: Uint8Array) => void,
  ): Promise<void> {
    const queue: Pending[] = [];
    let ended = false;
    const waiter: { wake: (() => void) | null } = { wake: null };
    const reading = (async () => {
      try {
        for await (const data of from.readable) {
          onRead(data);
          queue.push({ readAt: performance.now(), data });
          waiter.wake?.();
        }
      } finally {
        ended = true;
        waiter.wake?.();
      }
    })();
    const writer = to.writable.getWriter();
    try {
      for (;;) {
        const next = queue.shift();
        if (next == null) {
          if (ended) break;
          await new Promise<void>((resolve) => waiter.wake = resolve);
          waiter.wake = null;
          continue;
        }
        await this.#alarm?.until(next.readAt + this.#options.oneWayMs);
        await writer.write(next.data);
        this.#count(performance.now() - next.readAt);
      }
      await to.closeWrite().catch(() => {});
    } finally {
      writer.releaseLock();
      await reading.catch(() => {});
    }
  }

  /** Records one chunk written `delayMs` after it was read. */
  #count(delayMs: number): void {
    this.#chunks++;
    const second = Math.floor(performance.now() / 1000);
    if (second !== this.#second) {
      this.#busiest = Math.max(this.#busiest, this.#inSecond);
      this.#second = second;
      this.#inSecond = 0;
    }
    this.#inSecond++;
    this.#delaysSeen++;
    if (this.#delays.length < DELAY_SAMPLES) this.#delays.push(delayMs);
    else {
      const slot = Math.floor(Math.random() * this.#delaysSeen);
      if (slot < DELAY_SAMPLES) this.#delays[slot] = delayMs;
    }
  }
}
