/**
 * Deploying the bench's agents: the agent image (`deno task image`).  The
 * swarm stack that runs it is `deploy/swarm/stack.yml`, deployed by
 * `lib/agent/swarm_stack.ts`.
 *
 * @module
 */
export {
  type AgentImage,
  agentImageName,
  type AgentImageOptions,
  buildAgentImage,
  checkoutImage,
  ensureAgentImage,
  IMAGE_ENTRYPOINT,
  IMAGE_ENTRYPOINTS,
} from "./agent_image.ts";
