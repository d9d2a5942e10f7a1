/**
 * The `--scenario` presets of `deno task bench`: named, documented
 * combinations of settings.  Each setting is written as a user would type
 * it after the flag, keyed by the parameter's name in the table, and goes
 * through the same parser as a flag; flags and environment variables still
 * win.  `params.test.ts` checks every key and value against the table.
 *
 * @module
 */

/** A named, documented combination of settings. */
export interface Scenario {
  /** What it models, for `--help`, `--list` and the docs. */
  readonly description: string;
  /** What it sets: parameter name → value as typed after its flag. */
  readonly settings: Readonly<Record<string, string | true>>;
}

/** The scenario presets, by name. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  original: {
    description: "the original benchmark's setting: its nine " +
      "configurations (the default suite), 500 × 100, RSA-4096 sender key, " +
      "an inbox that answers at once; every row to its end or its time " +
      "limit (--until-done)",
    settings: {
      total: "500",
      recipients: "100",
      rsaBits: "4096",
      untilDone: true,
    },
  },
  realistic: {
    description: "every queue (--drivers all), RSA-2048, an inbox " +
      "answering in 50–300 ms (uniform) that " +
      "refuses 2% of first attempts with 503; 100 × 20 at parallelism " +
      "1, 4, 16 and 64 to show where each queue stops gaining; every row " +
      "to its end (--until-done)",
    settings: {
      drivers: "all",
      total: "100",
      recipients: "20",
      parallel: "1,4,16,64",
      rsaBits: "2048",
      inboxLatency: "50-300ms",
      inboxErrorRate: "0.02",
      untilDone: true,
    },
  },
  crash: {
    description: "every queue (--drivers all), the consuming process " +
      "killed with SIGKILL once half " +
      "the deliveries have arrived and a fresh one started; the inbox " +
      "answers in 10–50 ms so messages are in flight; 100 × 20",
    settings: {
      drivers: "all",
      total: "100",
      recipients: "20",
      inboxLatency: "10-50ms",
      crashWorkerAt: "0.5",
    },
  },
  steady: {
    description: "steady load on every queue (--drivers all), about 24 " +
      "minutes (results/steady took 1,446 s; 9 configurations × (20 s idle + up " +
      "to 240 s of probes + start-up)): 10 recipients per activity, " +
      "each queue without a wrapper; 20 s idle, " +
      "then each queue's capacity searched to within 10% from 8 " +
      "activities/s (evenly spaced probes of 20 s plus up to 10 s of drain, at " +
      "most 240 s per queue) with p99 latency there judged against 5 s, " +
      "and the load generator's own limit",
    settings: {
      drivers: "all",
      recipients: "10",
      parallel: "1",
      findMaxRate: true,
      probeSeconds: "20",
      probeDrainSeconds: "10",
      maxRateTimeSeconds: "240",
      maxRateStart: "8",
      idleSeconds: "20",
    },
  },
  ordering: {
    description: "ordering keys on every queue (--drivers all), about 18 " +
      "minutes (results/ordering took 1,060 s): " +
      "each note's Create, Update and Delete sent back to back (120 " +
      "activities, 40 notes, × 8 recipients), without and with " +
      "orderingKey, at ×1 and ×4; the inbox answers in 5–20 ms and " +
      "drops the connection on 2% of first attempts, whose retries go " +
      "back through the queue and can arrive after a later step; every " +
      "row to its end (--until-done), so that violations are counted " +
      "over every delivery; add --workers 2 for two worker processes per " +
      "shared queue",
    settings: {
      drivers: "all",
      total: "120",
      recipients: "8",
      workload: "cud",
      orderingKey: "none,object",
      parallel: "1,4",
      inboxLatency: "5-20ms",
      inboxDropRate: "0.02",
      baseline: true,
      untilDone: true,
    },
  },
  fedify2: {
    description: "the three Fedify 2.x measurements in one suite on every " +
      "queue (--drivers all), about 19 minutes " +
      "(results/fedify2-1.8.7 took 1,110 s; " +
      "results/fedify2, 44 rows on a host 2.5× slower, 1,626 s): " +
      "each note's Create, Update " +
      "and Delete back to back (120 activities, 40 notes, × 10 " +
      "recipients), without and with orderingKey, at ×1 and ×4; one " +
      "recipient in ten dead (every request 503, so retries and the " +
      "circuit breaker build a delayed backlog); getDepth() sampled " +
      "against the bench's count; the inbox answers in 5–20 ms and drops " +
      "2% of first attempts; every row to its end (--until-done)",
    settings: {
      drivers: "all",
      total: "120",
      recipients: "10",
      workload: "cud",
      orderingKey: "none,object",
      parallel: "1,4",
      inboxLatency: "5-20ms",
      inboxDropRate: "0.02",
      inboxDeadRate: "0.1",
      sampleDepth: true,
      baseline: true,
      untilDone: true,
    },
  },
  runtimes: {
    description: "the app on Deno, Node.js and Bun side by side (bursts; " +
      "runtimes-steady is its capacity half): none, in-process, postgres, " +
      "redis, amqp, mysql, sqlite and the baseline at ×1 and ×4 on each " +
      "runtime, " +
      "100 × 100 per row (10,000 deliveries), RSA-2048, an inbox that " +
      "answers at once, so that signing dominates; a budget of 30 s per " +
      "row (--budget: a row that cannot finish within 1.5× its budget " +
      "stops with an estimate)",
    settings: {
      total: "100",
      recipients: "100",
      drivers: "baseline,none,in-process,postgres,redis,amqp,mysql,sqlite",
      parallel: "1,4",
      runtime: "deno,node,bun",
      rsaBits: "2048",
      budgetSeconds: "30",
    },
  },
  "runtimes-steady": {
    description: "the capacity half of runtimes: none, in-process, " +
      "postgres and redis without a wrapper on Deno, Node.js and Bun, " +
      "each queue's capacity searched from 16 activities/s as the steady " +
      "scenario searches it (10 recipients each, probes of 20 s plus up " +
      "to 10 s of drain) but for at most 120 s per queue, p99 latency " +
      "there judged against 5 s, and the load generator's own limit per " +
      "runtime",
    settings: {
      recipients: "10",
      drivers: "none,in-process,postgres,redis",
      parallel: "1",
      runtime: "deno,node,bun",
      rsaBits: "2048",
      findMaxRate: true,
      probeSeconds: "20",
      probeDrainSeconds: "10",
      maxRateTimeSeconds: "120",
      maxRateStart: "16",
    },
  },
  deployment: {
    description: "a queue server a network hop away (deployment-cpus is " +
      "its other half): postgres, redis, amqp and mysql at ×1 and ×4, the " +
      "app reaching its server through delay proxies that add 0, 1 and " +
      "5 ms of round trip and count the round trips per delivery, its " +
      "worker on a host of its own (a network namespace, as root); 100 × " +
      "20 per row, RSA-2048, an inbox that answers at once, a budget of " +
      "30 s per row (--budget), no baseline",
    settings: {
      total: "100",
      recipients: "20",
      drivers: "postgres,redis,amqp,mysql",
      parallel: "1,4",
      queueRttMs: "0,1,5",
      workerHosts: "1",
      rsaBits: "2048",
      budgetSeconds: "30",
      baseline: true,
    },
  },
  "scale-out": {
    description: "beyond one machine: the workers on 1, 2 and 4 agents, " +
      "each a Docker Swarm replica limited to a quarter of a core (the " +
      "bench builds the agent image and deploys deploy/swarm/stack.yml " +
      "itself: root and a running Docker daemon), beside the same rows " +
      "with the workers on the bench's host, each held to the same quarter " +
      "core; postgres, redis, amqp and mysql at ×1, 100 × 100 per row, " +
      "RSA-2048, an inbox that answers at once, a budget of 120 s per row " +
      "(--budget), no baseline",
    settings: {
      total: "100",
      recipients: "100",
      drivers: "postgres,redis,amqp,mysql",
      parallel: "1",
      agents: "swarm",
      scale: "1,2,4",
      placement: "agents,local",
      workerCpuLimit: "0.25",
      rsaBits: "2048",
      budgetSeconds: "120",
      baseline: true,
    },
  },
  "deployment-cpus": {
    description: "the app on fewer cores (the other half of deployment): " +
      "the README's queues (in-process, postgres, mysql, redis, amqp, " +
      "sqlite, deno-kv-single, deno-kv) and none, at ×1 and ×4, with the " +
      "app's processes pinned to 1 core (the server, the inbox and the " +
      "bench on the other) and on both; 100 × 20 per row, RSA-2048, an " +
      "inbox that answers at once, a budget of 30 s per row (--budget), " +
      "no baseline",
    settings: {
      total: "100",
      recipients: "20",
      drivers:
        "none,in-process,postgres,mysql,redis,amqp,sqlite,deno-kv-single,deno-kv",
      parallel: "1,4",
      cpus: "1,2",
      rsaBits: "2048",
      budgetSeconds: "30",
      baseline: true,
    },
  },
};
