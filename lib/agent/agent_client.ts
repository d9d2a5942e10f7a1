/**
 * The bench's side of an agent (`agent_protocol.ts`): its hello and clock,
 * and the children it starts there, each a {@link ChildHandle} whose streams
 * and exit come over HTTP, so that the runner's `Child` drives it as it
 * drives a process of its own host.  A child's message timestamps are moved
 * onto the bench's clock by the agent's offset, when one is known.
 *
 * @module
 */
import { parseMessage, shiftClock } from "../ipc/messages.ts";
import {
  type ChildHandle,
  type Launcher,
  readLines,
} from "../system/process.ts";
import type {
  ActivitySample,
  ProcessSample,
  RemoteProbe,
} from "../system/procstat.ts";
import { withTimeout } from "../system/sleep.ts";
import {
  AGENT_PROTOCOL,
  AGENT_SCRIPTS,
  type AgentEvent,
  type AgentHello,
  authorization,
  type ChildSample,
  type ClockReading,
  type Started,
} from "./agent_protocol.ts";

/** How long one request to an agent may take (its events stream aside). */
const REQUEST_TIMEOUT_MS = 15_000;

const encoder = new TextEncoder();

/** An agent, as the bench reaches it. */
export class AgentClient {
  /** Its address, `host:port`. */
  readonly address: string;
  readonly #base: string;
  readonly #token: string;
  /** Its clock minus the bench's, ms, once estimated. */
  #offsetMs = 0;

  /** An agent at `address` (`host:port`) that takes `token`. */
  constructor(address: string, token: string) {
    this.address = address;
    this.#base = `http://${address}`;
    this.#token = token;
  }

  /**
   * Asks the agent who it is.
   * @throws {Error} When it does not answer, refuses the token, or speaks
   *   another protocol version, naming the fix.
   */
  async hello(): Promise<AgentHello> {
    const hello = await this.#json<AgentHello>("GET", "/v1/hello");
    if (hello.protocol !== AGENT_PROTOCOL) {
      throw new Error(
        `the agent at ${this.address} speaks protocol ${hello.protocol}, ` +
          `this bench ${AGENT_PROTOCOL}: run the same version of the bench ` +
          "on both sides",
      );
    }
    return hello;
  }

  /**
   * One clock reading: the bench's clock before the request, the agent's,
   * and the bench's after the answer, epoch ms.
   */
  async clockSample(): Promise<[number, number, number]> {
    const before = performance.timeOrigin + performance.now();
    const { now } = await this.#json<ClockReading>("GET", "/v1/clock");
    return [before, now, performance.timeOrigin + performance.now()];
  }

  /**
   * Sets the agent's clock offset (its clock minus the bench's, ms): the
   * timestamps of its children's messages are moved by it.
   */
  setClockOffset(offsetMs: number): void {
    this.#offsetMs = offsetMs;
  }

  /** A launcher that starts a child of `role` on this agent. */
  launcher(): Launcher {
    return {
      command: "",
      args: () => [],
      start: (script, spec, role) => this.start(script, spec, role),
    };
  }

  /**
   * Starts a child of `role` there with `spec` (its JSON text).
   * @throws {Error} When `script` is not the role's script, or the agent
   *   refuses.
   */
  async start(script: URL, spec: string, role: string): Promise<ChildHandle> {
    const expected = AGENT_SCRIPTS[role];
    if (expected == null || !script.pathname.endsWith(`/${expected}`)) {
      throw new Error(
        `an agent starts only the sender and workers, not ${script.pathname}`,
      );
    }
    const started = await this.#json<Started>("POST", "/v1/children", {
      role,
      spec,
    });
    const response = await this.#request("GET", this.#child(started, "events"));
    return new RemoteChild(this, started, response.body!, spec, this.#offsetMs);
  }

  /** A request to the agent that must succeed; its answer's body unread. */
  async request(
    method: string,
    path: string,
    body?: string,
  ): Promise<Response> {
    const response = await this.#request(method, path, body);
    await response.body?.cancel();
    return response;
  }

  /** The child's readings there. */
  async sample(child: Started): Promise<ChildSample> {
    return await this.#json<ChildSample>("GET", this.#child(child, "sample"));
  }

  #child(child: Started, what: string): string {
    return `/v1/children/${child.id}/${what}`;
  }

  async #json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.#request(
      method,
      path,
      body == null ? undefined : JSON.stringify(body),
    );
    return await withTimeout(
      response.json() as Promise<T>,
      REQUEST_TIMEOUT_MS,
      () =>
        new Error(
          `the agent at ${this.address} did not finish answering ${path}`,
        ),
    );
  }

  async #request(
    method: string,
    path: string,
    body?: string,
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        method,
        body,
        headers: authorization(this.#token),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new Error(
        `the agent at ${this.address} did not answer ${method} ${path}: ` +
          `${error instanceof Error ? error.message : error}; start it there ` +
          "with deno task agent --listen HOST:PORT, or check --agents",
      );
    }
    if (response.ok) return response;
    const text = (await response.text()).trim();
    throw new Error(
      response.status === 401
        ? `the agent at ${this.address} refused the token: set ` +
          "BENCH_AGENT_TOKEN to the token it was started with"
        : `the agent at ${this.address} answered ${method} ${path} with ` +
          `${response.status}: ${text}`,
    );
  }
}

/** A child an agent started, as a {@link ChildHandle}. */
class RemoteChild implements ChildHandle {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<Deno.CommandStatus>;
  readonly remoteProbe: RemoteProbe;
  readonly #agent: AgentClient;
  readonly #started: Started;

  constructor(
    agent: AgentClient,
    started: Started,
    events: ReadableStream<Uint8Array>,
    spec: string,
    offsetMs: number,
  ) {
    this.#agent = agent;
    this.#started = started;
    this.pid = started.pid;
    const out = new TransformStream<Uint8Array, Uint8Array>();
    const err = new TransformStream<Uint8Array, Uint8Array>();
    this.stdout = out.readable;
    this.stderr = err.readable;
    this.status = relay(events, {
      out: out.writable.getWriter(),
      err: err.writable.getWriter(),
      logPath: logPathOf(spec),
      offsetMs,
    });
    this.stdin = this.#stdin();
    this.remoteProbe = {
      agent: agent.address,
      sample: () => this.#sample((s) => s.process),
      activity: () => this.#sample((s) => s.activity),
    };
  }

  kill(signal: Deno.Signal = "SIGTERM"): void {
    void this.#agent.request(
      "POST",
      `/v1/children/${this.#started.id}/kill?signal=${signal}`,
    ).catch(() => {/* the agent or the child is gone */});
  }

  #stdin(): WritableStream<Uint8Array> {
    const decoder = new TextDecoder();
    const path = `/v1/children/${this.#started.id}`;
    return new WritableStream<Uint8Array>({
      write: async (chunk) => {
        await this.#agent.request(
          "POST",
          `${path}/stdin`,
          decoder.decode(chunk),
        );
      },
      close: async () => {
        await this.#agent.request("POST", `${path}/close-stdin`).catch(
          () => {},
        );
      },
    });
  }

  async #sample<T extends ProcessSample | ActivitySample>(
    pick: (sample: ChildSample) => T | null,
  ): Promise<T | null> {
    try {
      return pick(await this.#agent.sample(this.#started));
    } catch {
      return null;
    }
  }
}

/** Where a relayed child's lines go. */
interface RelayTargets {
  readonly out: WritableStreamDefaultWriter<Uint8Array>;
  readonly err: WritableStreamDefaultWriter<Uint8Array>;
  /** The bench's Fedify log file, which the child's log is appended to. */
  readonly logPath: string | undefined;
  /** The agent's clock minus the bench's, ms. */
  readonly offsetMs: number;
}

/**
 * Reads a child's events to their end: lines to its stdout and stderr (its
 * messages' timestamps moved onto the bench's clock), its log appended to
 * the bench's; resolves with its exit.  A stream that breaks before the exit
 * (the agent died, the network went) ends as a child killed by SIGKILL.
 */
async function relay(
  events: ReadableStream<Uint8Array>,
  targets: RelayTargets,
): Promise<Deno.CommandStatus> {
  let exit: Deno.CommandStatus = {
    success: false,
    code: 137,
    signal: "SIGKILL",
  };
  const handle = async (event: AgentEvent) => {
    if ("out" in event) {
      const message = targets.offsetMs === 0
        ? undefined
        : parseMessage(event.out);
      const line = message == null
        ? event.out
        : JSON.stringify(shiftClock(message, -targets.offsetMs));
      await targets.out.write(encoder.encode(line + "\n"));
    } else if ("err" in event) {
      await targets.err.write(encoder.encode(event.err + "\n"));
    } else if ("log" in event) {
      if (targets.logPath != null) {
        await Deno.writeTextFile(targets.logPath, event.log, { append: true });
      }
    } else {
      exit = {
        success: event.exit.code === 0 && event.exit.signal == null,
        code: event.exit.code,
        signal: event.exit.signal as Deno.Signal | null,
      };
    }
  };
  // A stream that breaks leaves the child lost to the bench.
  await readLines(events, (line) => {
    let event: AgentEvent;
    try {
      event = JSON.parse(line);
    } catch {
      return; // a line cut short where the stream broke
    }
    return handle(event);
  });
  await Promise.all([targets.out.close(), targets.err.close()]).catch(() => {});
  return exit;
}

/** The Fedify log file a spec asks for, if any. */
function logPathOf(spec: string): string | undefined {
  const parsed = JSON.parse(spec) as { log?: { path?: unknown } };
  return typeof parsed.log?.path === "string" ? parsed.log.path : undefined;
}
