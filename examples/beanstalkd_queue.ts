/**
 * A Fedify `MessageQueue` on [beanstalkd], speaking its text protocol
 * directly over `Deno.connect` (no client library): the queue half of the
 * example driver in `./beanstalkd.ts`.
 *
 * Semantics:
 *
 * - **Tube.**  Each queue is one beanstalkd tube.  A tube exists while a
 *   connection uses it or it holds jobs; nothing needs to be created first.
 * - **Messages.**  Every message is one job whose body is its JSON text, so
 *   messages must be JSON-serializable (Fedify's are).  beanstalkd refuses
 *   jobs over its `-z` limit (64 KiB by default) with `JOB_TOO_BIG`.
 * - **Enqueueing.**  `enqueueMany()` sends its `put` commands in batches of
 *   up to {@link PUT_BATCH} in one write and then reads the replies, so a
 *   fanout of a hundred messages costs about one round trip.  Jobs are
 *   stored one by one: if one `put` fails, the others of its batch are
 *   enqueued all the same, and the error is thrown afterwards.
 * - **Delays.**  `delay` becomes beanstalkd's own delay, in whole seconds,
 *   rounded up: a message becomes ready no earlier than asked, and up to a
 *   second later.
 * - **Acknowledgement.**  A listener reserves one job at a time, hands it to
 *   the handler, and deletes it only after the handler's promise resolves.
 *   While the handler runs, the listener renews the job's lease (`touch`)
 *   every third of its time-to-run, so a slow handler never sees its job
 *   handed to someone else.  If a listener's connection closes (its process
 *   died), beanstalkd puts its reserved job back at once: delivery is at
 *   least once.  Note that Fedify's `ParallelMessageQueue` resolves the
 *   handler it gives this queue as soon as one of its workers has started on
 *   the message, so under it "after the handler" means "once a worker has
 *   started on it".
 * - **Failures.**  `nativeRetrial` is `false`: Fedify retries failed
 *   deliveries itself, by enqueueing them again with its backoff policy, and
 *   its handler then returns normally.  A handler that throws anyway (for
 *   example because Fedify could not enqueue its retry) has its job released
 *   with a delay of `retryDelaySeconds`, to be tried again rather than lost;
 *   beanstalkd retries such a job without limit.
 * - **Ordering.**  beanstalkd has no ordering keys: `orderingKey` is
 *   ignored, and messages with the same key may be handled concurrently.
 * - **Depth.**  `getDepth()` reads `stats-tube`: ready plus delayed jobs.
 *   Jobs being handled (reserved) are not counted, nor buried ones.
 * - **Foreign jobs.**  A job whose body is not JSON was not put there by
 *   this queue; listeners bury it (set it aside, out of the way) for a human
 *   to look at, and {@link BeanstalkdMessageQueue.drain} deletes it.
 * - **Connections.**  Enqueueing, `getDepth()` and `drain()` share one
 *   connection, opened on first use; a command whose connection broke
 *   (the server restarted, say) is tried once more on a new connection,
 *   which can enqueue a message twice if the server had stored it.  Each
 *   `listen()` has a connection of its own, because a waiting `reserve`
 *   blocks the connection it is sent on.  A listener whose connection fails
 *   reconnects every second until its signal aborts.  Aborting the signal
 *   closes the listener's connection at once unless the handler is running,
 *   in which case the listener finishes that job first.
 *
 * [beanstalkd]: https://beanstalkd.github.io/
 *
 * @module
 */
import {
  type MessageQueue,
  type MessageQueueDepth,
  type MessageQueueEnqueueOptions,
  type MessageQueueListenOptions,
  sleep,
} from "../mod.ts";

/** beanstalkd's port when a URL names none. */
export const DEFAULT_PORT = 11300;

/** The priority of every job (beanstalkd's usual default; lower is sooner). */
const PRIORITY = 1024;

/** How many `put` commands `enqueueMany()` sends in one write. */
export const PUT_BATCH = 100;

/** How long a listener waits before reconnecting after its connection fails. */
const RECONNECT_DELAY_MS = 1000;

/** beanstalkd's limit for delays and times-to-run, in seconds. */
const MAX_SECONDS = 2 ** 32 - 1;

/** What beanstalkd allows in a tube name (at most 200 bytes). */
const TUBE_NAME = /^[A-Za-z0-9+/;.$_()][A-Za-z0-9\-+/;.$_()]{0,199}$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------
// The protocol: one command line (plus a data block for `put`) in, one reply
// line (plus a data block for some replies) out, always in order.
// ---------------------------------------------------------------------------

/**
 * The host and port of a `beanstalk://host:port` URL.
 *
 * @param url For example `beanstalk://127.0.0.1:11300`; the port defaults
 *   to {@link DEFAULT_PORT}.
 * @throws {TypeError} When `url` is not a `beanstalk://` URL.
 */
export function parseBeanstalkUrl(
  url: string,
): { hostname: string; port: number } {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Reported below.
  }
  if (parsed?.protocol !== "beanstalk:" || parsed.hostname === "") {
    throw new TypeError(
      `expected a URL like beanstalk://127.0.0.1:${DEFAULT_PORT}, got ${
        JSON.stringify(url)
      }`,
    );
  }
  return {
    // IPv6 literals keep their brackets in URLs, not in Deno.connect().
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? DEFAULT_PORT : Number(parsed.port),
  };
}

/** One command: its line (without CRLF) and, for `put`, the job's body. */
export interface BeanstalkCommand {
  /** For example `reserve-with-timeout 1` or `put 1024 0 60 42`. */
  readonly line: string;
  /** The data block that follows the line (`put` only). */
  readonly body?: Uint8Array;
}

/** One reply: its first word, the words after it, and its data block. */
export interface BeanstalkReply {
  /** For example `INSERTED`, `RESERVED`, `TIMED_OUT` or `NOT_FOUND`. */
  readonly status: string;
  /** The other words of the reply line, for example a job id. */
  readonly args: readonly string[];
  /** The data block of `RESERVED`, `FOUND` and `OK` replies. */
  readonly body?: Uint8Array;
}

/** Replies followed by a data block whose length is their last word. */
const REPLIES_WITH_BODY = new Set(["RESERVED", "FOUND", "OK"]);

/** beanstalkd answered a command with something other than expected. */
export class BeanstalkError extends Error {
  /** The reply's first word, for example `JOB_TOO_BIG` or `DRAINING`. */
  readonly status: string;

  /**
   * @param command The command's first word, for example `put`.
   * @param reply What beanstalkd answered.
   */
  constructor(command: string, reply: BeanstalkReply) {
    super(
      `beanstalkd answered ${command} with ${
        [reply.status, ...reply.args].join(" ")
      }`,
    );
    this.name = "BeanstalkError";
    this.status = reply.status;
  }
}

/** Throws a {@link BeanstalkError} unless `reply` has the expected status. */
function expectReply(
  command: string,
  reply: BeanstalkReply,
  status: string,
): BeanstalkReply {
  if (reply.status !== status) throw new BeanstalkError(command, reply);
  return reply;
}

/** Writes all of `data`, looping over partial writes. */
async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.length;) {
    offset += await conn.write(data.subarray(offset));
  }
}

/** Lays out commands as beanstalkd reads them, ready for one write. */
function frame(commands: readonly BeanstalkCommand[]): Uint8Array {
  const parts = commands.flatMap(({ line, body }) =>
    body == null
      ? [encoder.encode(`${line}\r\n`)]
      : [encoder.encode(`${line}\r\n`), body, encoder.encode("\r\n")]
  );
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * One TCP connection to beanstalkd.  Commands from concurrent callers are
 * sent one exchange after another, so callers may share a connection;
 * remember that some state (`use`, `watch`, reserved jobs) belongs to the
 * connection.  After any failure (a broken socket, a reply that cannot be
 * read) the connection closes itself, because replies would no longer match
 * their commands.
 */
export class BeanstalkConnection {
  readonly #conn: Deno.TcpConn;
  /** Bytes read from the socket but not yet consumed. */
  #pending: Uint8Array = new Uint8Array(0);
  /** The last exchange; the next one starts after it. */
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  /**
   * Connects to beanstalkd.
   *
   * @param url A `beanstalk://host:port` URL.
   * @param timeoutMs How long connecting may take.
   * @throws {TypeError} When `url` is not a `beanstalk://` URL.
   * @throws {Error} When the server cannot be reached in time.
   */
  static async connect(
    url: string,
    timeoutMs = 10_000,
  ): Promise<BeanstalkConnection> {
    const { hostname, port } = parseBeanstalkUrl(url);
    const connecting = Deno.connect({ hostname, port });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // A connection that comes too late is closed as soon as it comes.
        connecting.then((conn) => conn.close(), () => {});
        reject(new Error(`connecting took over ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      const conn = await Promise.race([connecting, timeout]);
      // One small write per command: do not let Nagle's algorithm hold it.
      conn.setNoDelay(true);
      return new BeanstalkConnection(conn);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the connection is closed (by {@link close} or a failure). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends one command and reads its reply.
   *
   * @param line The command line, without CRLF.
   * @param body The data block, for `put`.
   */
  async send(line: string, body?: Uint8Array): Promise<BeanstalkReply> {
    const [reply] = await this.pipeline([{ line, body }]);
    return reply;
  }

  /**
   * Sends several commands in one write, then reads their replies, which
   * beanstalkd sends in the same order.
   *
   * @param commands The commands.
   * @returns One reply per command.
   */
  pipeline(commands: readonly BeanstalkCommand[]): Promise<BeanstalkReply[]> {
    const exchange = this.#tail.then(() => this.#exchange(commands));
    this.#tail = exchange.catch(() => {});
    return exchange;
  }

  async #exchange(
    commands: readonly BeanstalkCommand[],
  ): Promise<BeanstalkReply[]> {
    if (this.#closed) throw new Error("the beanstalkd connection is closed");
    try {
      await writeAll(this.#conn, frame(commands));
      const replies: BeanstalkReply[] = [];
      for (let i = 0; i < commands.length; i++) {
        replies.push(await this.#readReply());
      }
      return replies;
    } catch (error) {
      this.close();
      throw error;
    }
  }

  async #readReply(): Promise<BeanstalkReply> {
    const line = decoder.decode(await this.#readLine());
    const [status, ...args] = line.split(" ");
    if (!REPLIES_WITH_BODY.has(status)) return { status, args };
    const length = Number(args.at(-1));
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new Error(`unexpected reply from beanstalkd: ${line}`);
    }
    const block = await this.#read(length + 2); // The body, then CRLF.
    return { status, args, body: block.subarray(0, length) };
  }

  /** Reads more bytes from the socket into {@link #pending}. */
  async #fill(): Promise<void> {
    const chunk = new Uint8Array(64 * 1024);
    const read = await this.#conn.read(chunk);
    if (read == null) throw new Error("beanstalkd closed the connection");
    const joined = new Uint8Array(this.#pending.length + read);
    joined.set(this.#pending);
    joined.set(chunk.subarray(0, read), this.#pending.length);
    this.#pending = joined;
  }

  /** Reads one line and consumes its CRLF. */
  async #readLine(): Promise<Uint8Array> {
    let from = 0;
    while (true) {
      const end = this.#pending.indexOf(13, from); // CR
      if (end >= 0 && end + 1 < this.#pending.length) {
        if (this.#pending[end + 1] === 10) { // LF
          const line = this.#pending.subarray(0, end);
          this.#pending = this.#pending.subarray(end + 2);
          return line;
        }
        from = end + 1;
        continue;
      }
      await this.#fill();
    }
  }

  /** Reads exactly `length` bytes. */
  async #read(length: number): Promise<Uint8Array> {
    while (this.#pending.length < length) await this.#fill();
    const bytes = this.#pending.subarray(0, length);
    this.#pending = this.#pending.subarray(length);
    return bytes;
  }

  /**
   * Closes the connection; an exchange in progress fails.  beanstalkd puts
   * the jobs this connection had reserved back into their tubes.
   * Idempotent.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }
}

// ---------------------------------------------------------------------------
// The message queue.
// ---------------------------------------------------------------------------

/** Options for {@link BeanstalkdMessageQueue}. */
export interface BeanstalkdMessageQueueOptions {
  /** The server, as `beanstalk://host:port`. */
  readonly url: string;
  /**
   * The tube: letters, digits and `-+/;.$_()`, at most 200 characters, not
   * starting with `-`.
   */
  readonly tube: string;
  /**
   * A job's time-to-run: how long a listener that stopped renewing its lease
   * (a hung process) keeps a job before beanstalkd hands it to another.
   * Listeners renew it every third of this while their handler runs.
   * @default 60
   */
  readonly ttrSeconds?: number;
  /**
   * How long a job whose handler threw waits before it is tried again.
   * @default 5
   */
  readonly retryDelaySeconds?: number;
  /**
   * How long one `reserve-with-timeout` waits for a job before the listener
   * asks again.
   * @default 1
   */
  readonly reserveTimeoutSeconds?: number;
}

/** Checks a whole number of seconds within beanstalkd's limits. */
function seconds(value: number, name: string, min = 0): number {
  if (!Number.isInteger(value) || value < min || value > MAX_SECONDS) {
    throw new RangeError(`${name} must be a whole number of seconds`);
  }
  return value;
}

/** Fedify's delay as beanstalkd's: whole seconds, rounded up, not negative. */
function delaySeconds(options?: MessageQueueEnqueueOptions): number {
  const ms = options?.delay?.total("millisecond") ?? 0;
  const delay = Math.max(0, Math.ceil(ms / 1000));
  if (delay > MAX_SECONDS) {
    throw new RangeError("beanstalkd cannot delay a job by over 136 years");
  }
  return delay;
}

/** The `name: value` lines of the small YAML maps that `stats-*` return. */
function parseStats(body: Uint8Array): Map<string, string> {
  const stats = new Map<string, string>();
  for (const line of decoder.decode(body).split("\n")) {
    const match = /^([\w-]+):\s*(.*)$/.exec(line.trim());
    if (match) stats.set(match[1], match[2].replace(/^"(.*)"$/, "$1"));
  }
  return stats;
}

/**
 * A Fedify message queue on one beanstalkd tube.  See the module
 * documentation for its semantics.  Call {@link close} when done with it,
 * after every listener has stopped.
 *
 * @example
 * ```ts ignore
 * const queue = new BeanstalkdMessageQueue({
 *   url: "beanstalk://127.0.0.1:11300",
 *   tube: "fedify",
 * });
 * const federation = createFederation({ kv, queue });
 * ```
 */
export class BeanstalkdMessageQueue implements MessageQueue, AsyncDisposable {
  /** Fedify, not beanstalkd, retries failed deliveries (see the module). */
  readonly nativeRetrial = false;
  readonly #url: string;
  readonly #tube: string;
  readonly #ttr: number;
  readonly #retryDelay: number;
  readonly #reserveTimeout: number;
  /** The shared connection for `put`, `stats-tube` and `drain()`. */
  #producer?: BeanstalkConnection;
  #connecting?: Promise<BeanstalkConnection>;

  /**
   * @param options The server, the tube, and timings.
   * @throws {TypeError} When the URL or the tube name is invalid.
   * @throws {RangeError} When a timing is not a whole number of seconds.
   */
  constructor(options: BeanstalkdMessageQueueOptions) {
    parseBeanstalkUrl(options.url);
    if (!TUBE_NAME.test(options.tube)) {
      throw new TypeError(`invalid beanstalkd tube name: ${options.tube}`);
    }
    this.#url = options.url;
    this.#tube = options.tube;
    this.#ttr = seconds(options.ttrSeconds ?? 60, "ttrSeconds", 1);
    this.#retryDelay = seconds(
      options.retryDelaySeconds ?? 5,
      "retryDelaySeconds",
    );
    this.#reserveTimeout = seconds(
      options.reserveTimeoutSeconds ?? 1,
      "reserveTimeoutSeconds",
    );
  }

  /** Connects, then sends setup commands such as `use` and `watch`. */
  async #connect(
    setup: readonly [line: string, status: string][],
  ): Promise<BeanstalkConnection> {
    const conn = await BeanstalkConnection.connect(this.#url);
    try {
      const replies = await conn.pipeline(setup.map(([line]) => ({ line })));
      setup.forEach(([line, status], i) =>
        expectReply(line, replies[i], status)
      );
      return conn;
    } catch (error) {
      conn.close();
      throw error;
    }
  }

  /** The shared connection, using this queue's tube; reopened if it broke. */
  async #producerConnection(): Promise<BeanstalkConnection> {
    if (this.#producer != null && !this.#producer.closed) return this.#producer;
    this.#connecting ??= this.#connect([[`use ${this.#tube}`, "USING"]])
      .finally(() => this.#connecting = undefined);
    this.#producer = await this.#connecting;
    return this.#producer;
  }

  /**
   * Runs `exchange` on the shared connection.  A connection that broke while
   * idle (say the server restarted) fails only when next used, so after a
   * failure that broke the connection this tries once more on a new one.
   * For `put`, that can enqueue a message twice, if the server stored it
   * just before the connection broke: delivery is at least once anyway.
   */
  async #produce<T>(
    exchange: (conn: BeanstalkConnection) => Promise<T>,
  ): Promise<T> {
    const conn = await this.#producerConnection();
    try {
      return await exchange(conn);
    } catch (error) {
      if (!conn.closed) throw error; // beanstalkd's answer, not a lost link.
      return await exchange(await this.#producerConnection());
    }
  }

  /**
   * Enqueues a message.
   *
   * @param message A JSON-serializable value.
   * @param options Its delay; `orderingKey` is ignored.
   */
  enqueue(
    message: unknown,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.enqueueMany([message], options);
  }

  /**
   * Enqueues messages, {@link PUT_BATCH} per round trip.  If one fails, the
   * others are still enqueued and the first error is thrown.
   *
   * @param messages JSON-serializable values.
   * @param options Their delay; `orderingKey` is ignored.
   */
  async enqueueMany(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    const delay = delaySeconds(options);
    const commands = messages.map((message): BeanstalkCommand => {
      const json = JSON.stringify(message);
      if (typeof json !== "string") {
        throw new TypeError("a message must be JSON-serializable");
      }
      const body = encoder.encode(json);
      return {
        line: `put ${PRIORITY} ${delay} ${this.#ttr} ${body.length}`,
        body,
      };
    });
    if (commands.length < 1) return;
    let failure: BeanstalkReply | undefined;
    for (let i = 0; i < commands.length; i += PUT_BATCH) {
      const batch = commands.slice(i, i + PUT_BATCH);
      const replies = await this.#produce((conn) => conn.pipeline(batch));
      failure ??= replies.find((reply) => reply.status !== "INSERTED");
    }
    if (failure != null) throw new BeanstalkError("put", failure);
  }

  /**
   * Hands messages to `handler`, one at a time, until `options.signal`
   * aborts; deletes each job after the handler succeeds and releases it
   * (with `retryDelaySeconds`) after it throws.  Never rejects.
   *
   * @param handler Called with each message.
   * @param options The signal that stops listening.
   * @returns Resolves once listening has stopped.
   */
  async listen(
    handler: (message: unknown) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const { signal } = options;
    while (!signal?.aborted) {
      try {
        await this.#consume(handler, signal);
      } catch {
        // The connection failed (or the server restarts): try again soon,
        // or stop at once when the signal aborts.
        await sleep(RECONNECT_DELAY_MS, signal).catch(() => {});
      }
    }
  }

  /** Reserves and handles jobs on one connection until it fails or stops. */
  async #consume(
    handler: (message: unknown) => Promise<void> | void,
    signal?: AbortSignal,
  ): Promise<void> {
    const conn = await this.#connect([
      [`watch ${this.#tube}`, "WATCHING"],
      ["ignore default", "WATCHING"],
    ]);
    let handling = false;
    // Closing the connection ends a waiting reserve at once; beanstalkd puts
    // back a job it was handing over just then.
    const stop = () => {
      if (!handling) conn.close();
    };
    signal?.addEventListener("abort", stop, { once: true });
    try {
      while (!signal?.aborted) {
        const reply = await conn.send(
          `reserve-with-timeout ${this.#reserveTimeout}`,
        );
        if (reply.status === "TIMED_OUT") continue;
        expectReply("reserve-with-timeout", reply, "RESERVED");
        if (signal?.aborted) break; // The job goes back with the connection.
        handling = true;
        try {
          await this.#handle(conn, reply, handler);
        } finally {
          handling = false;
        }
      }
    } finally {
      signal?.removeEventListener("abort", stop);
      conn.close();
    }
  }

  /** Runs the handler on a reserved job, then deletes or releases it. */
  async #handle(
    conn: BeanstalkConnection,
    job: BeanstalkReply,
    handler: (message: unknown) => Promise<void> | void,
  ): Promise<void> {
    const id = job.args[0];
    let message: unknown;
    try {
      message = JSON.parse(decoder.decode(job.body));
    } catch {
      expectReply("bury", await conn.send(`bury ${id} ${PRIORITY}`), "BURIED");
      return;
    }
    // Renew the lease while the handler runs.  Exchanges on a connection
    // run in order, so a renewal in flight finishes before the delete below.
    const lease = setInterval(
      () => conn.send(`touch ${id}`).catch(() => {}),
      this.#ttr * 1000 / 3,
    );
    let succeeded = false;
    try {
      await handler(message);
      succeeded = true;
    } catch {
      // Released below, to be tried again.
    } finally {
      clearInterval(lease);
    }
    const [command, expected] = succeeded
      ? [`delete ${id}`, "DELETED"]
      : [`release ${id} ${PRIORITY} ${this.#retryDelay}`, "RELEASED"];
    const reply = await conn.send(command);
    // NOT_FOUND: the lease ran out anyway (the process was stalled for a
    // whole time-to-run) and the job went back to the tube.
    if (reply.status !== "NOT_FOUND") expectReply(command, reply, expected);
  }

  /**
   * Counts the messages waiting in the tube (`stats-tube`): ready and
   * delayed jobs, not those being handled.
   */
  async getDepth(): Promise<MessageQueueDepth> {
    const reply = await this.#produce((conn) =>
      conn.send(`stats-tube ${this.#tube}`)
    );
    expectReply("stats-tube", reply, "OK");
    const stats = parseStats(reply.body!);
    const ready = Number(stats.get("current-jobs-ready") ?? 0);
    const delayed = Number(stats.get("current-jobs-delayed") ?? 0);
    return { queued: ready + delayed, ready, delayed };
  }

  /**
   * Deletes every job in the tube that no listener holds: ready, delayed
   * and buried ones.
   *
   * @returns How many jobs it deleted.
   */
  drain(): Promise<number> {
    return this.#produce((conn) => this.#drain(conn));
  }

  async #drain(conn: BeanstalkConnection): Promise<number> {
    let deleted = 0;
    for (const peek of ["peek-ready", "peek-delayed", "peek-buried"]) {
      while (true) {
        const found = await conn.send(peek);
        if (found.status === "NOT_FOUND") break;
        expectReply(peek, found, "FOUND");
        // NOT_FOUND here: a listener reserved it meanwhile.
        const reply = await conn.send(`delete ${found.args[0]}`);
        if (reply.status === "DELETED") deleted++;
      }
    }
    return deleted;
  }

  /** Closes the shared connection.  Listeners close their own. */
  async close(): Promise<void> {
    const connecting = this.#connecting;
    this.#producer?.close();
    (await connecting?.catch(() => undefined))?.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
