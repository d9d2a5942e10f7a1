/**
 * Agents for tests: `deno task agent`'s script started as a process of its
 * own (inside a network namespace, or with libfaketime, as the test's
 * launcher and environment say), waited for until it answers, and stopped.
 *
 * @module
 */
import { AgentClient } from "../agent/mod.ts";
import type { Launcher } from "../system/process.ts";
import { sleep } from "../system/sleep.ts";
import { spawnProcess } from "../system/spawn.ts";

const AGENT_SCRIPT = new URL("../cli/agent.ts", import.meta.url).pathname;

/** Runs the agent's script, listening on `listen`. */
const AGENT_LAUNCHER: (listen: string) => Launcher = (listen) => ({
  command: Deno.execPath(),
  args: () => [
    "run",
    "--allow-all",
    "--unstable-kv",
    AGENT_SCRIPT,
    "--listen",
    listen,
  ],
});

/** A running test agent. */
export interface TestAgent {
  /** Where the bench reaches it, `host:port`. */
  readonly address: string;
  /** Its process id. */
  readonly pid: number;
  /** Stops it (SIGTERM) and waits until it exited. */
  close(): Promise<void>;
}

/** Options for {@link startAgent}. */
export interface TestAgentOptions {
  /** `host:port` to listen on, which the test reaches too. */
  readonly listen: string;
  /** The token it requires. */
  readonly token: string;
  /** Variables besides the token (`LD_PRELOAD`, …). */
  readonly env?: Record<string, string>;
  /** Wraps its launcher: a namespace host's, for one. */
  readonly wrap?: (launcher: Launcher) => Launcher;
}

/**
 * Starts an agent and waits (30 s at most) until it answers `hello`.
 * @throws {Error} When it does not answer in time; it is killed then.
 */
export async function startAgent(
  options: TestAgentOptions,
): Promise<TestAgent> {
  const plain = AGENT_LAUNCHER(options.listen);
  const launcher = options.wrap?.(plain) ?? plain;
  const child = spawnProcess(launcher.command, {
    args: launcher.args("", ""),
    stdin: "null",
    env: { ...options.env, BENCH_AGENT_TOKEN: options.token, NO_COLOR: "1" },
  });
  void child.stdout.cancel();
  void child.stderr.cancel();
  const client = new AgentClient(options.listen, options.token);
  const deadline = Date.now() + 30_000;
  while (true) {
    try {
      await client.hello();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw error;
      }
      await sleep(100);
    }
  }
  return {
    address: options.listen,
    pid: child.pid,
    async close() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}
