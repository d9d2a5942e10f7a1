/**
 * The sender process: the federation app whose loop of `sendActivity` calls
 * is the benchmark's send time.  With a queue that cannot be shared between
 * processes (or with `consume`), it also delivers its own queue's messages.
 *
 * It starts sending when the runner sends the `go` command, so that every
 * process is ready and measured from the same moment.  Messages to the
 * runner (`lib/ipc/messages.ts`): `ready`, `progress` (about once a second
 * while sending), `sent` (timings), `depth` (queue depth, when it consumes a
 * queue that can tell), `queueLog` and `stages` (when asked to), `flushed`,
 * `error`.
 *
 * @module
 */
import type { Federation } from "@fedify/fedify";
import { control, emit, now, readSpec } from "../ipc/child_io.ts";
import type { SentMessage } from "../ipc/messages.ts";
import {
  createSenderFederation,
  generateSenderKeys,
  makeActivity,
  makeRecipients,
  SENDER,
  type SenderKeys,
} from "./federation.ts";
import { sendDirect } from "./direct.ts";
import { configureFedifyLog } from "./fedify_log.ts";
import { type ChildQueue, openQueue, reportDepth } from "./queue.ts";
import { reportQueueLog } from "./queue_log.ts";
import { openStages, reportStages } from "./stage_timing.ts";
import { addressDeadInboxes } from "./dead_inboxes.ts";
import { DiscardQueue } from "../queue/discard_queue.ts";
import { arrivalSchedule } from "../workload/arrivals.ts";
import {
  closedLoops,
  openLoop,
  type SendCall,
  type SendLog,
} from "./send_loops.ts";
import { stepsInOrder, stepsPerObject } from "../workload/ordering.ts";
import { objectStep } from "../../fake_inbox/arrival_order.ts";
import { makeStepActivity, noteId } from "./ordered.ts";
import { StopGuard } from "../system/stop_guard.ts";
import type { SenderSpec } from "./specs.ts";
import { guardListeners } from "../queue/guarded_queue.ts";
import { appRuntime } from "../runtime/mod.ts";

async function main(spec: SenderSpec): Promise<void> {
  const stop = control();
  if (spec.log != null) await configureFedifyLog(spec.log, "sender");
  const stages = spec.discard ? null : openStages(spec.queue.stages);
  const opened: ChildQueue = spec.discard
    ? {
      queue: new DiscardQueue(),
      implementation: null,
      close: () => Promise.resolve(),
    }
    : await openQueue(spec.queue, stages?.timing);
  // Closes the queue only once its handlers have settled, and handles what
  // the stop leaves behind (lib/system/stop_guard.ts).
  const guard = new StopGuard(spec.discard ? "discard" : spec.queue.driver);
  guard.catchStrays();
  const keys = await generateSenderKeys(spec.rsaBits);
  const federation = createSenderFederation({
    queue: opened.queue == null
      ? undefined
      : guardListeners(opened.queue, guard),
    keys,
    tracerProvider: stages?.tracerProvider,
  });
  const server = await appRuntime.serve((request) =>
    federation.fetch(request, { contextData: undefined })
  );
  const origin = `http://127.0.0.1:${server.port}`;
  const consuming = spec.consume && opened.queue != null
    ? federation.startQueue(undefined, { signal: stop.signal })
    : Promise.resolve();
  if (spec.consume && opened.queue != null) {
    reportDepth(opened, stop.signal, spec.queue.sampleDepth);
  }
  reportQueueLog(opened.counting, stop.signal);
  reportStages(stages, stop);
  emit({
    type: "ready",
    pid: appRuntime.pid,
    runtime: { name: appRuntime.name, version: appRuntime.version },
    origin,
    implementation: opened.implementation,
  });
  const go = await stop.command("go").then(
    () => !spec.consumeOnly && !spec.idle,
    () => false,
  );
  if (go) await sendAll(spec, { federation, origin, keys }, stop.signal);
  await stop.done;
  await guard.stop(consuming, async () => {
    await server.shutdown();
    await opened.close();
  });
}

/** The sender app as {@link sendAll} sends from it. */
interface SenderApp {
  readonly federation: Federation<void>;
  /** Where its actor lives, e.g. `http://127.0.0.1:8000`. */
  readonly origin: string;
  readonly keys: SenderKeys;
}

/**
 * Sends every activity as the spec says (directly, on a schedule, or from
 * closed loops), saying `started`, `progress` about once a second, and
 * `sent` with the timings unless stopped.
 */
async function sendAll(
  spec: SenderSpec,
  app: SenderApp,
  signal: AbortSignal,
): Promise<void> {
  const { origin } = app;
  const ctx = app.federation.createContext(new URL(origin), undefined);
  const actor = ctx.getActorUri(SENDER);
  const audience = {
    inboxOrigin: spec.inboxOrigin,
    recipients: spec.recipients,
  };
  const recipients = addressDeadInboxes(
    makeRecipients(audience),
    spec.deadInboxes,
  );
  let lastProgress = now();
  const sendStart = now();
  emit({ type: "started", sendStart });
  const onReturn = (returned: number) => {
    const at = now();
    if (at - lastProgress < 1000) return;
    emit({ type: "progress", sent: returned });
    lastProgress = at;
  };
  const steps = stepsPerObject(spec.workload);
  const build = (i: number) =>
    steps > 1
      ? makeStepActivity(origin, actor, spec.runId, i, audience)
      : makeActivity(origin, actor, spec.runId, i, audience);
  const send: SendCall = stepsInOrder((i) => {
    const activity = build(i);
    const orderingKey = spec.orderingKey === "object"
      ? noteId(origin, spec.runId, objectStep(i, steps).object).href
      : undefined;
    return () =>
      ctx.sendActivity({ identifier: SENDER }, recipients, activity, {
        fanout: spec.fanout,
        ...(orderingKey == null ? {} : { orderingKey }),
      });
  }, steps);
  let log: SendLog;
  if (spec.direct != null) {
    const direct = await sendDirect({
      keys: app.keys,
      actor,
      total: spec.total,
      activity: build,
      recipients,
      concurrency: spec.direct.concurrency,
      signal,
    });
    log = { ...direct };
  } else if (spec.schedule != null) {
    log = await openLoop({
      send,
      schedule: arrivalSchedule(spec.schedule),
      startMs: sendStart,
      signal,
      onReturn,
    });
  } else {
    log = await closedLoops({
      send,
      total: spec.total,
      loops: spec.senders ?? 1,
      signal,
      onReturn,
    });
  }
  const sendEnd = now();
  if (signal.aborted) return;
  const sent: SentMessage = {
    type: "sent",
    sendStart,
    sendEnd,
    callStarts: log.callStarts,
    callMs: log.callMs,
    ...(log.dueAt == null ? {} : { dueAt: log.dueAt }),
    sendErrors: log.errors,
    firstError: log.firstError,
  };
  emit(sent);
}

if (import.meta.main) {
  try {
    await main(readSpec<SenderSpec>());
    appRuntime.exit(0);
  } catch (error) {
    emit({ type: "error", message: String(error) });
    console.error(error);
    appRuntime.exit(1);
  }
}
