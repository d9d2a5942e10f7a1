/**
 * The agent (`deno task agent --listen HOST:PORT`): an HTTP server that
 * starts the bench's children on its host when a bench with the shared
 * token asks (`agent_protocol.ts`), carries their lines both ways, reads
 * their CPU and memory where they run, and answers clock readings.  It
 * starts only the scripts of {@link AGENT_SCRIPTS}, from its own copy of
 * the project; it stops every child it started when it stops.
 *
 * @module
 */
import { leftovers } from "../system/leftovers.ts";
import { sampleActivity, sampleProcess } from "../system/procstat.ts";
import { AgentChild } from "./agent_child.ts";
import {
  AGENT_PROTOCOL,
  AGENT_SCRIPTS,
  type AgentHello,
  type AgentIdentity,
  authorized,
  type ChildSample,
  type StartRequest,
} from "./agent_protocol.ts";
import { cgroupLimits } from "./cgroup_limits.ts";

/** The project's root on this host, where the scripts are. */
const ROOT = new URL("../../", import.meta.url);

/** Options for {@link AgentServer.start}. */
export interface AgentServerOptions {
  /** The address to listen on, e.g. `0.0.0.0`. */
  readonly hostname: string;
  /** The port; 0 picks a free one. */
  readonly port: number;
  /** The shared token every request must carry. */
  readonly token: string;
  /** Told a line when a child starts and when it exits. */
  readonly log?: (line: string) => void;
}

/** A running agent. */
export class AgentServer {
  /** The port it listens on. */
  readonly port: number;
  readonly #token: string;
  readonly #log: (line: string) => void;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #children = new Map<string, AgentChild>();
  readonly #workDir: string;
  #next = 0;

  private constructor(options: AgentServerOptions, workDir: string) {
    this.#token = options.token;
    this.#log = options.log ?? (() => {});
    this.#workDir = workDir;
    this.#server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen: () => {},
    }, (request, info) => this.#handle(request, info.remoteAddr));
    this.port = this.#server.addr.port;
  }

  /**
   * Starts listening.
   * @throws {Error} When the address cannot be listened on.
   */
  static async start(options: AgentServerOptions): Promise<AgentServer> {
    const workDir = await leftovers.makeTempDir("agent");
    try {
      return new AgentServer(options, workDir);
    } catch (error) {
      await leftovers.removeTempDir(workDir);
      throw error;
    }
  }

  /** Children started and not yet exited. */
  get running(): number {
    return this.#children.size;
  }

  /** Stops every child, then the server, and removes its files. */
  async close(): Promise<void> {
    await Promise.all([...this.#children.values()].map((c) => c.stop()));
    await this.#server.shutdown();
    await leftovers.removeTempDir(this.#workDir);
  }

  async #handle(request: Request, peer: Deno.NetAddr): Promise<Response> {
    if (!authorized(request, this.#token)) {
      return text(
        401,
        "this agent needs the bench's token (BENCH_AGENT_TOKEN)",
      );
    }
    const url = new URL(request.url);
    const parts = url.pathname.split("/").filter((part) => part !== "");
    if (parts[0] !== "v1") return text(404, `no ${url.pathname}`);
    try {
      if (parts.length === 2) return await this.#top(request, parts[1], peer);
      if (parts.length >= 3 && parts[1] === "children") {
        return await this.#child(request, parts[2], parts[3] ?? "", url);
      }
    } catch (error) {
      return text(400, error instanceof Error ? error.message : String(error));
    }
    return text(404, `no ${url.pathname}`);
  }

  async #top(
    request: Request,
    what: string,
    peer: Deno.NetAddr,
  ): Promise<Response> {
    if (what === "clock" && request.method === "GET") {
      return json({ now: performance.timeOrigin + performance.now() });
    }
    if (what === "hello" && request.method === "GET") {
      const hello: AgentHello = {
        protocol: AGENT_PROTOCOL,
        agent: await identity(),
        peer: peer.hostname,
        now: performance.timeOrigin + performance.now(),
      };
      return json(hello);
    }
    if (what === "children" && request.method === "POST") {
      return this.#start(await request.json() as StartRequest);
    }
    return text(404, `no ${request.method} /v1/${what}`);
  }

  #start(body: StartRequest): Response {
    const script = AGENT_SCRIPTS[body.role];
    if (script == null || typeof body.spec !== "string") {
      return text(
        400,
        `an agent starts only ${Object.keys(AGENT_SCRIPTS).join(" and ")}, ` +
          "each with its spec as a JSON text",
      );
    }
    const id = String(++this.#next);
    const child = new AgentChild(
      id,
      new URL(script, ROOT).pathname,
      body.spec,
      `${this.#workDir}/${id}.log`,
    );
    this.#children.set(id, child);
    this.#log(`${body.role} ${id} started: pid ${child.pid}`);
    child.done.then(() => {
      this.#children.delete(id);
      this.#log(`${body.role} ${id} (pid ${child.pid}) exited`);
    });
    return json({ id, pid: child.pid });
  }

  async #child(
    request: Request,
    id: string,
    what: string,
    url: URL,
  ): Promise<Response> {
    const child = this.#children.get(id);
    if (child == null) return text(404, `no child ${id} (it exited?)`);
    const post = request.method === "POST";
    if (what === "events" && !post) {
      const events = child.takeEvents();
      return events == null
        ? text(409, `child ${id}'s events were taken already`)
        : new Response(events, {
          headers: { "content-type": "application/x-ndjson" },
        });
    }
    if (what === "stdin" && post) await child.write(await request.text());
    else if (what === "close-stdin" && post) await child.closeStdin();
    else if (what === "kill" && post) {
      child.kill((url.searchParams.get("signal") ?? "SIGKILL") as Deno.Signal);
    } else if (what === "sample" && !post) {
      const sample: ChildSample = {
        process: sampleProcess(child.pid),
        activity: sampleActivity(child.pid, false),
      };
      return json(sample);
    } else return text(404, `no ${request.method} ${url.pathname}`);
    return new Response(null, { status: 204 });
  }
}

/** This host as an agent reports it. */
async function identity(): Promise<AgentIdentity> {
  const limits = await cgroupLimits();
  return {
    host: Deno.hostname(),
    pid: Deno.pid,
    runtime: `deno ${Deno.version.deno}`,
    image: Deno.env.get("BENCH_IMAGE") ?? null,
    cpus: navigator.hardwareConcurrency,
    cpuLimit: limits.cpus,
    memoryLimit: limits.memoryBytes,
  };
}

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    headers: { "content-type": "application/json" },
  });
}

function text(status: number, message: string): Response {
  return new Response(message + "\n", { status });
}
