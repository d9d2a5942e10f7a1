/**
 * The protocol between the bench and its agents (`deno task agent`): JSON
 * over HTTP, version {@link AGENT_PROTOCOL}, every request carrying the
 * shared token (`Authorization: Bearer $BENCH_AGENT_TOKEN`).  An agent starts
 * the bench's children (the sender, a worker) on its host and carries their
 * line protocol (`lib/ipc/`) over the network unchanged: the lines a child
 * writes come back as {@link AgentEvent}s, the commands the bench writes go
 * to its stdin.
 *
 * | Request | Answer |
 * | --- | --- |
 * | `GET /v1/hello` | {@link AgentHello} |
 * | `GET /v1/clock` | {@link ClockReading} |
 * | `POST /v1/children` {@link StartRequest} | {@link Started} |
 * | `GET /v1/children/ID/events` | {@link AgentEvent}s, one JSON a line, until `exit` |
 * | `POST /v1/children/ID/stdin` (text) | 204 |
 * | `POST /v1/children/ID/close-stdin` | 204 |
 * | `POST /v1/children/ID/kill?signal=SIGKILL` | 204 |
 * | `GET /v1/children/ID/sample` | {@link ChildSample} |
 *
 * A child whose events stream ends before it exited (the bench died or lost
 * the agent) has its stdin closed, as a local child whose runner died, and
 * is killed after a grace period.
 *
 * @module
 */
import type { ActivitySample, ProcessSample } from "../system/procstat.ts";

/** The protocol version; an agent and a bench of other versions refuse each other. */
export const AGENT_PROTOCOL = 1;

/** The environment variable that holds the shared token. */
export const TOKEN_ENV = "BENCH_AGENT_TOKEN";

/**
 * The scripts an agent starts, by role, relative to the project's root: it
 * starts no other.
 */
export const AGENT_SCRIPTS: Readonly<Record<string, string>> = {
  sender: "lib/child/sender.ts",
  worker: "lib/child/worker.ts",
};

/** What an agent says of itself. */
export interface AgentHello {
  /** {@link AGENT_PROTOCOL} of the agent. */
  readonly protocol: number;
  /** Its host: name, process, runtime, image and limits. */
  readonly agent: AgentIdentity;
  /** The address the agent sees the caller at (where it reaches the bench). */
  readonly peer: string;
  /** The agent's clock, epoch ms. */
  readonly now: number;
}

/** An agent's host, as it reports it. */
export interface AgentIdentity {
  /** Its host name. */
  readonly host: string;
  /** The agent's process id. */
  readonly pid: number;
  /** The runtime its children run on, e.g. `deno 2.9.6`. */
  readonly runtime: string;
  /** The image it runs from (`BENCH_IMAGE`), `null` outside one. */
  readonly image: string | null;
  /** CPUs the host shows. */
  readonly cpus: number;
  /** Its CPU limit in cores (a cgroup's CFS quota), `null` without one. */
  readonly cpuLimit: number | null;
  /** Its memory limit in bytes (a cgroup's), `null` without one. */
  readonly memoryLimit: number | null;
}

/** `GET /v1/clock`: the agent's clock, epoch ms, read as it answers. */
export interface ClockReading {
  readonly now: number;
}

/** `POST /v1/children`: start a child. */
export interface StartRequest {
  /** A role of {@link AGENT_SCRIPTS}. */
  readonly role: string;
  /** The child's spec, as the JSON text it gets as its first argument. */
  readonly spec: string;
}

/** The answer to a {@link StartRequest}. */
export interface Started {
  /** The child's id at the agent. */
  readonly id: string;
  /** Its process id on the agent's host. */
  readonly pid: number;
}

/**
 * One event of a child's stream: a line of its stdout (`out`) or stderr
 * (`err`), the text its Fedify log file got (`log`, sent before `exit`),
 * or its exit, which ends the stream.
 */
export type AgentEvent =
  | { readonly out: string }
  | { readonly err: string }
  | { readonly log: string }
  | {
    readonly exit: { readonly code: number; readonly signal: string | null };
  };

/** `GET /v1/children/ID/sample`: the child read on its host. */
export interface ChildSample {
  /** What `sampleProcess` read; `null` once it is gone. */
  readonly process: ProcessSample | null;
  /** What `sampleActivity` read; `null` once it is gone. */
  readonly activity: ActivitySample | null;
}

/** The headers of a request with `token`. */
export function authorization(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Whether a request's `Authorization` header carries `token`. */
export function authorized(request: Request, token: string): boolean {
  const given = request.headers.get("authorization") ?? "";
  const expected = `Bearer ${token}`;
  if (given.length !== expected.length) return false;
  // The same time whatever the prefix that matches.
  let difference = 0;
  for (let i = 0; i < given.length; i++) {
    difference |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  }
  return difference === 0;
}

/**
 * The token from the environment.
 * @throws {Error} When it is unset or empty, naming how to set it.
 */
export function tokenFromEnv(who: "agent" | "bench"): string {
  const token = Deno.env.get(TOKEN_ENV) ?? "";
  if (token !== "") return token;
  throw new Error(
    who === "agent"
      ? `${TOKEN_ENV} is not set: an agent runs only with the token the ` +
        "bench will send; start it as " +
        `${TOKEN_ENV}=SECRET deno task agent --listen HOST:PORT`
      : `${TOKEN_ENV} is not set: --agents needs the token the agents were ` +
        `started with; run ${TOKEN_ENV}=SECRET deno task bench --agents …`,
  );
}
