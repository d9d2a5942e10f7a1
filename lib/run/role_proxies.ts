/**
 * The delay proxies of one `--queue-rtt` run: two in front of the same
 * queue server, one carrying the sender's connections and one the
 * workers', so that the round trips of enqueueing and of dequeueing are
 * counted apart.  `prepare()` gets the sender proxy's URL; the workers get
 * the prepared configuration with every URL of it moved to theirs.
 *
 * @module
 */
import {
  DelayProxy,
  type DelayProxyStats,
  type Endpoint,
  redactUrl,
  rerouteUrls,
  urlEndpoint,
  withEndpoint,
} from "../services/mod.ts";
import { roundTo } from "../measure/stats.ts";
import type {
  ProxyRecord,
  ProxyTraffic,
  RoundTripsRecord,
} from "../results/mod.ts";

/** Where the proxies listen, unless the workers are on hosts of their own. */
const PROXY_HOST = "127.0.0.1";

/** The proxies of one run, started by {@link RoleProxies.start}. */
export class RoleProxies {
  readonly #oneWayMs: number;
  readonly #url: string;
  readonly #sender: DelayProxy;
  readonly #workers: DelayProxy;
  readonly #workersHost: string;
  #end: { sender: DelayProxyStats; workers: DelayProxyStats } | undefined;

  private constructor(
    oneWayMs: number,
    url: string,
    sender: DelayProxy,
    workers: DelayProxy,
    workersHost: string,
  ) {
    this.#oneWayMs = oneWayMs;
    this.#workersHost = workersHost;
    this.#url = url;
    this.#sender = sender;
    this.#workers = workers;
  }

  /**
   * Starts both proxies in front of the server at `url`, each adding half
   * of `rttMs` each way; the workers' listens on `workersHost` (the
   * address their namespace hosts reach, with `--worker-hosts`).
   * @throws {Error} When `url` names no single TCP host and port.
   */
  static start(
    url: string,
    rttMs: number,
    workersHost: string = PROXY_HOST,
  ): RoleProxies {
    const target = urlEndpoint(url);
    if (target == null) {
      throw new Error(
        `--queue-rtt: the queue server's URL ${redactUrl(url)} names no ` +
          "single TCP host and port to put a delay proxy in front of; give " +
          "its URL as scheme://host:port, or drop --queue-rtt",
      );
    }
    const oneWayMs = rttMs / 2;
    const sender = DelayProxy.start({ target, oneWayMs, hostname: PROXY_HOST });
    try {
      const workers = DelayProxy.start({
        target,
        oneWayMs,
        hostname: workersHost,
      });
      return new RoleProxies(oneWayMs, url, sender, workers, workersHost);
    } catch (error) {
      void sender.close();
      throw error;
    }
  }

  /** The server's URL through the sender's proxy: what `prepare()` gets. */
  get prepareUrl(): string {
    return withEndpoint(this.#url, this.#endpoint(this.#sender));
  }

  /**
   * The prepared configuration for each role: the sender's as `prepare()`
   * made it (through the sender's proxy), the workers' with every URL of
   * it moved to their proxy.
   * @throws {Error} When the configuration names the sender proxy in no
   *   URL: the app's connections would bypass the proxies.
   */
  route<T>(config: T): { readonly sender: T; readonly worker: T } {
    const { value, replaced } = rerouteUrls(
      config,
      this.#endpoint(this.#sender),
      { hostname: this.#workersHost, port: this.#workers.port },
    );
    if (replaced === 0) {
      throw new Error(
        "--queue-rtt: the driver's prepared configuration holds no URL of " +
          "the server it was given, so the app's connections cannot be " +
          "routed through the delay proxy; keep the serviceUrl prepare() " +
          "gets as a URL string in the configuration, or drop --queue-rtt",
      );
    }
    return { sender: config, worker: value };
  }

  /** Starts both proxies' counts afresh: the measured window begins. */
  startWindow(): void {
    this.#end = undefined;
    this.#sender.startWindow();
    this.#workers.startWindow();
  }

  /** Takes both proxies' figures: the measured window ends. */
  endWindow(): void {
    this.#end ??= {
      sender: this.#sender.stats(),
      workers: this.#workers.stats(),
    };
  }

  /**
   * What the proxies carried over the window (up to now, when it has not
   * ended); `workers` is `null` without separate workers.
   */
  record(workers: number): ProxyRecord {
    const end = this.#end ?? {
      sender: this.#sender.stats(),
      workers: this.#workers.stats(),
    };
    return {
      oneWayMs: this.#oneWayMs,
      sender: traffic(end.sender),
      workers: workers > 0 ? traffic(end.workers) : null,
    };
  }

  /** Closes both proxies and every connection through them. */
  async close(): Promise<void> {
    await Promise.all([this.#sender.close(), this.#workers.close()]);
  }

  #endpoint(proxy: DelayProxy): Endpoint {
    return { hostname: PROXY_HOST, port: proxy.port };
  }
}

/**
 * A proxy's figures as a row records them, delays rounded up to a
 * microsecond (never below the delay asked).
 */
function traffic(stats: DelayProxyStats): ProxyTraffic {
  const ms = (value: number | null) =>
    value == null ? null : Math.ceil(value * 1000) / 1000;
  return {
    connections: stats.connections,
    turns: stats.turns,
    chunks: stats.chunks,
    bytesUp: stats.bytesUp,
    bytesDown: stats.bytesDown,
    addedDelayMs: {
      median: ms(stats.addedDelayMs.median),
      p99: ms(stats.addedDelayMs.p99),
    },
    busiestChunksPerSecond: stats.busiestChunksPerSecond,
  };
}

/**
 * Round trips per delivery from a run's proxy record: each role's turns
 * over the distinct deliveries that arrived.
 */
export function roundTripsPerDelivery(
  proxy: ProxyRecord,
  delivered: number,
): RoundTripsRecord {
  const per = (turns: number | undefined) =>
    turns == null || delivered <= 0 ? null : roundTo(turns / delivered, 3);
  return {
    enqueue: per(proxy.sender.turns),
    dequeue: per(proxy.workers?.turns),
  };
}
