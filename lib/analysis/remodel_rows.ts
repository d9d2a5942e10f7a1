/**
 * The current model (`lib/measure/stage_model.ts`) applied again to a
 * results document's rows, from the figures each row recorded (its stages,
 * CPU and processes; nothing is measured): the model's fields
 * (`predictedDeliveriesPerSecond`, `prediction`, `limitedBy`) computed
 * afresh.  A row of several runs keeps what it recorded (its stages are one
 * run's, its rate the runs' median).  `deno task remodel`
 * (`lib/cli/remodel.ts`) reads and writes the folder.
 *
 * @module
 */
import { limitedBy, modelInputOf, predict } from "../measure/stage_model.ts";
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";

/**
 * The rows the model applies to again: one run with stages (with or without
 * a queue: a row without one, `none`, has its CPU and event-loop bounds).
 */
function remodelled(row: ConfigurationResult): boolean {
  return row.stages != null && (row.runs == null || row.runs.length <= 1);
}

/**
 * The document with the model applied again to every row it applies to;
 * returns it and the ids of those rows.
 */
export function remodel(
  document: ResultsDocument,
): { document: ResultsDocument; ids: string[] } {
  const cores = document.environment?.cpu.cores;
  const ids: string[] = [];
  if (cores == null) return { document, ids };
  const results = document.results.map((row) => {
    if (!remodelled(row)) return row;
    ids.push(row.id);
    const input = modelInputOf(
      {
        ...row,
        stages: row.stages!,
        workers: row.workers ?? 0,
        consumerCpuLimit: consumerCpuLimitOf(row),
      },
      cores,
    );
    const prediction = predict(input);
    return {
      ...row,
      limitedBy: limitedBy(input, prediction),
      predictedDeliveriesPerSecond: prediction.deliveriesPerSecond,
      prediction: prediction.bounds,
    };
  });
  return { document: { ...document, results }, ids };
}

/**
 * The CPU limit a row's consuming processes were held to, from its
 * deployment: the local workers' quota, or the smallest of its worker
 * agents' limits when every one had one.
 */
function consumerCpuLimitOf(row: ResultsDocument["results"][number]) {
  const deployment = row.deployment;
  if (deployment?.workerCpuLimit != null) return deployment.workerCpuLimit.cpus;
  const workers = (deployment?.agents?.agents ?? []).filter((a) =>
    a.roles.includes("worker")
  );
  const limits = workers.map((a) => a.cpuLimit);
  if (limits.length === 0 || limits.includes(null)) return null;
  return Math.min(...limits as number[]);
}
