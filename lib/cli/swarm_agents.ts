/**
 * `--agents swarm`: the command line deploys the agents itself on Docker
 * Swarm before the suite (the agent image, built once per commit with
 * `deno task image`'s code, and `deploy/swarm/stack.yml` with as many
 * replicas as the largest `--scale`, each limited to `--worker-cpu-limit`
 * cores), and removes the stack after it, on failure and on Ctrl-C too.
 * The token is `BENCH_AGENT_TOKEN`, or a random one the bench makes when it
 * is unset (it deploys both ends).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { SwarmAgents, TOKEN_ENV } from "../agent/mod.ts";
import { ensureAgentImage } from "../deploy/mod.ts";
import type { SuiteParams } from "../results/mod.ts";
import { dockerVersion } from "../system/docker.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** How long building the image and deploying may take, ms. */
const DEPLOY_TIMEOUT_MS = 600_000;

/**
 * Deploys the agents `params` asks the bench to deploy (`--agents swarm`),
 * or nothing; the caller closes what it returns.
 * @throws {Error} When the image cannot be built or the stack deployed,
 *   naming the fix; nothing it made is left.
 */
export async function deploySwarmAgents(
  params: SuiteParams,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<SwarmAgents | undefined> {
  if (params.agents !== "swarm") return undefined;
  // Before anything is built: the daemon's error names how to start it.
  await dockerVersion(signal);
  let token = Deno.env.get(TOKEN_ENV) ?? "";
  if (token === "") {
    token = Array.from(
      crypto.getRandomValues(new Uint8Array(16)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    Deno.env.set(TOKEN_ENV, token);
  }
  const image = await ensureAgentImage({
    projectDir: ROOT,
    timeoutMs: DEPLOY_TIMEOUT_MS,
    signal,
    log,
  });
  const replicas = Math.max(...(params.scale ?? [params.workers ?? 1]));
  const cpus = params.workerCpuLimit ?? navigator.hardwareConcurrency;
  log(
    `--agents swarm: deploying ${replicas} agent replica(s) of ${image}, ` +
      `${cpus} core(s) each (deploy/swarm/stack.yml)`,
  );
  const agents = new SwarmAgents();
  await agents.deploy({
    image,
    replicas,
    cpus,
    token,
    signal,
    timeoutMs: DEPLOY_TIMEOUT_MS,
  });
  log(`--agents swarm: ${agents.service} is up`);
  return agents;
}
