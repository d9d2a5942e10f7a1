/**
 * Agents: the bench's roles on other hosts.  `deno task agent` runs an
 * {@link AgentServer}; the bench reaches it with an {@link AgentClient},
 * whose launcher starts a child there that the runner drives as one of its
 * own; the clock of each agent is estimated by round trips (`clock.ts`).
 *
 * @module
 */
export {
  AGENT_PROTOCOL,
  AGENT_SCRIPTS,
  type AgentHello,
  type AgentIdentity,
  TOKEN_ENV,
  tokenFromEnv,
} from "./agent_protocol.ts";
export { AgentServer, type AgentServerOptions } from "./agent_server.ts";
export { AgentClient } from "./agent_client.ts";
export {
  CLOCK_ROUND_TRIPS,
  clockMarks,
  estimateOffset,
  measureOffset,
  rowUncertainty,
} from "./clock.ts";
export { type CgroupLimits, cgroupLimits } from "./cgroup_limits.ts";
export {
  localAddressToward,
  type ResolvedSwarm,
  type ResolveOptions,
  resolveSwarmAgents,
  type SwarmAgent,
  tasksName,
} from "./swarm.ts";
export {
  agentStackName,
  type DeployOptions,
  ensureSwarm,
  leaveSwarm,
  ownStackService,
  removeStack,
  STACK_FILE,
  STACK_SERVICE,
  SwarmAgents,
  sweepStaleStacks,
} from "./swarm_stack.ts";
