/**
 * Fixtures of the fresh check's tests (`lib/fresh/*.test.ts`): what
 * `deno task test` printed in a run with failures, ignored tests, servers
 * and pre-test notes, and a small results document of three rows.
 *
 * @module
 */
import type { ResultsDocument } from "../results/mod.ts";

/**
 * The output of `deno task test` over three files: a failed test and a
 * failed step with their errors, ignored tests (one in colour), the
 * runner's `servers:` list, pre-test notes (one twice), an uncaught error
 * and the `failed:` list.
 */
export const TEST_OUTPUT = `Check lib/a.test.ts
servers:
fetching Redis …
  postgres: starts a throwaway postgres fetched into /cache/servers/pg
  redis: the tests that need it are skipped: redis-server not found
running 3 test files, 2 at a time
------- pre-test output -------
tests on node are skipped: npm install in /cache/node-1713.tmp failed (exit 127)
npm error node: error while loading shared libraries: libatomic.so.1
skipping the tests that need mariadb: not found
----- pre-test output end -----
running 4 tests from ./lib/a.test.ts
passes ... ok (1ms)
fails here ... FAILED (1ms)
redis only ... ignored (0ms)
with steps ...
  inner ok ... ok (0ms)
  inner skipped ... ignored (0ms)
  inner bad ... FAILED (1ms)
with steps ... FAILED (due to 1 failed step) (1ms)

 ERRORS 

fails here => ./lib/a.test.ts:2:6
error: Error: boom
second line
Deno.test("fails here", () => { throw new Error("boom"); });
                                      ^
    at file:///src/lib/a.test.ts:2:39

with steps ... inner bad => ./lib/a.test.ts:6:11
error: AssertionError: step boom
    at file:///src/lib/a.test.ts:6:43

 FAILURES 

fails here => ./lib/a.test.ts:2:6
with steps ... inner bad => ./lib/a.test.ts:6:11

FAILED | 1 passed (1 step) | 2 failed (1 step) | 1 ignored (11ms)

error: Test failed
------- pre-test output -------
tests on node are skipped: npm install in /cache/node-5597.tmp failed (exit 127)
npm error node: error while loading shared libraries: libatomic.so.1
----- pre-test output end -----
running 1 test from ./b.test.ts
\x1b[0mb on runtime node: skipped, with its reason ... \x1b[33mignored\x1b[0m (0ms)
ok | 0 passed | 0 failed | 1 ignored (5ms)

 ERRORS 

./c.test.ts (uncaught error)
error: (in promise) Error: gone
    at file:///src/c.test.ts:1:1

FAILED | 0 passed | 1 failed (3ms)

failed:
  lib/a.test.ts: 2 failed
  c.test.ts: ended with exit code 1 and no summary

FAILED | 1 passed (1 step) | 4 failed (1 step) | 2 ignored (1m2s)
`;

/**
 * A results document of three rows at 20 × 10: `none` (ok, no server),
 * `redis` (skipped: redis-server not found) and `postgres` (ok, a server
 * the bench started, version 17.10).
 */
export function freshResultsDocument(): ResultsDocument {
  const row = (
    id: string,
    status: "ok" | "skipped",
    server: { name: string; version: string; startedByBench: boolean } | null,
  ) => ({
    id,
    driver: id,
    parallelism: 1,
    status,
    reason: status === "skipped" ? "redis-server not found" : null,
    expected: 200,
    delivered: status === "ok" ? 200 : 0,
    duplicates: 0,
    missing: 0,
    unexpected: 0,
    sendSeconds: 1,
    receiveSeconds: 1,
    totalSeconds: status === "ok" ? 2.25 : null,
    deliveriesPerSecond: null,
    elapsedSeconds: null,
    sendErrors: 0,
    workers: 0,
    stallTimeoutSeconds: 10,
    timeoutSeconds: 1200,
    server,
    processes: [],
  });
  return {
    schemaVersion: 2,
    startedAt: "2026-12-01T00:00:00Z",
    finishedAt: "2026-12-01T00:01:00Z",
    suiteSeconds: 60,
    params: {
      total: 20,
      recipients: 10,
      fanout: "auto",
      rsaBits: 2048,
      timeoutSeconds: 1200,
      stallTimeoutSeconds: 10,
    },
    results: [
      row("none", "ok", null),
      row("redis", "skipped", null),
      row("postgres", "ok", {
        name: "postgres",
        version: "17.10",
        startedByBench: true,
      }),
    ],
  } as unknown as ResultsDocument;
}
