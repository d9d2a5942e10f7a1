/**
 * The worker process: a federation sharing the sender's persistent queue,
 * started with `manuallyStartQueue` + `startQueue` as a real deployment's
 * separate worker would be.  It delivers what the sender enqueued.
 *
 * Messages to the runner: `ready`, `depth` (when asked to and the queue can
 * tell), `queueLog` and `stages` (when asked to), `flushed`, `error`.
 *
 * @module
 */
import { control, emit, readSpec } from "../ipc/child_io.ts";
import { createSenderFederation } from "./federation.ts";
import { configureFedifyLog } from "./fedify_log.ts";
import { openQueue, reportDepth } from "./queue.ts";
import { reportQueueLog } from "./queue_log.ts";
import { openStages, reportStages } from "./stage_timing.ts";
import { StopGuard } from "../system/stop_guard.ts";
import type { WorkerSpec } from "./specs.ts";
import { guardListeners } from "../queue/guarded_queue.ts";
import { appRuntime } from "../runtime/mod.ts";

async function main(spec: WorkerSpec): Promise<void> {
  const stop = control();
  if (spec.log != null) await configureFedifyLog(spec.log, "worker");
  const stages = openStages(spec.queue.stages);
  const opened = await openQueue(spec.queue, stages?.timing);
  if (opened.queue == null) throw new Error("a worker needs a queue");
  // Closes the queue only once its handlers have settled, and handles what
  // the stop leaves behind (lib/system/stop_guard.ts).
  const guard = new StopGuard(spec.queue.driver);
  guard.catchStrays();
  const federation = createSenderFederation({
    queue: guardListeners(opened.queue, guard),
    tracerProvider: stages?.tracerProvider,
  });
  const consuming = federation.startQueue(undefined, { signal: stop.signal });
  if (spec.reportDepth) {
    reportDepth(opened, stop.signal, spec.queue.sampleDepth);
  }
  reportQueueLog(opened.counting, stop.signal);
  reportStages(stages, stop);
  emit({
    type: "ready",
    pid: appRuntime.pid,
    runtime: { name: appRuntime.name, version: appRuntime.version },
    implementation: opened.implementation,
  });
  await stop.done;
  await guard.stop(consuming, () => opened.close());
}

if (import.meta.main) {
  try {
    await main(readSpec<WorkerSpec>());
    appRuntime.exit(0);
  } catch (error) {
    emit({ type: "error", message: String(error) });
    console.error(error);
    appRuntime.exit(1);
  }
}
