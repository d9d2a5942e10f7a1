/**
 * One swarm test at a time, across the test processes: a test that deploys
 * on Docker Swarm may make the swarm and leave it, which would take another
 * test's stack with it.  Each such test holds an exclusive lock on a file
 * of the temporary folder while it runs.
 *
 * @module
 */
import { join } from "node:path";

/** The lock file, shared by every test process of the machine. */
const LOCK = join(
  Deno.env.get("TMPDIR") ?? "/tmp",
  "fedify-queue-bench-swarm-tests.lock",
);

/** Runs `fn` while no other test process runs a swarm test. */
export async function withSwarmLock<T>(fn: () => Promise<T>): Promise<T> {
  const file = await Deno.open(LOCK, { create: true, write: true });
  try {
    await file.lock(true);
    return await fn();
  } finally {
    file.close();
  }
}
