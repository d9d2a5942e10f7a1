/**
 * The processes of one run: the fake inbox, the worker(s) and the sender,
 * each a separate Deno process, and the fresh ones that replace those a
 * crash test kills or that die with their queue server; with the CPU time
 * and peak memory of each (and of the queue server's process tree) measured
 * from the start of sending.
 *
 * @module
 */
import { InboxClient } from "../../fake_inbox/inbox_client.ts";
import type { InboxOptions } from "../../fake_inbox/inbox_server.ts";
import type { SenderSpec, WorkerSpec } from "../child/specs.ts";
import type {
  ChildMessage,
  ReadyMessage,
  StagesMessage,
} from "../ipc/messages.ts";
import { ProcessMeter } from "../measure/process_meter.ts";
import type {
  IdleRecord,
  Implementation,
  ProcessRecord,
  RuntimeIdentity,
} from "../results/mod.ts";
import { Child, type Launcher } from "../system/process.ts";

const INBOX_SCRIPT = new URL(
  "../../fake_inbox/inbox_server.ts",
  import.meta.url,
);
const SENDER_SCRIPT = new URL("../child/sender.ts", import.meta.url);
const WORKER_SCRIPT = new URL("../child/worker.ts", import.meta.url);

/** How long a child may take to report `ready`. */
const READY_TIMEOUT_MS = 60_000;

/** How long a child may take to send its last stage timings. */
const FLUSH_TIMEOUT_MS = 3_000;

/** The federation app of a run: its workers and its sender. */
export interface AppPlan {
  /** Separate worker processes; 0 when the sender consumes its queue. */
  readonly workers: number;
  /** Every worker's spec; the first one also reports the queue's depth. */
  readonly worker: Omit<WorkerSpec, "reportDepth">;
  /** The sender's spec. */
  readonly sender: SenderSpec;
  /** How the sender and workers start; Deno when absent. */
  readonly launcher?: Launcher;
  /**
   * How worker `index` starts (a fresh one keeps its predecessor's index);
   * {@link launcher} when absent.
   */
  readonly workerLauncher?: (index: number) => Launcher | undefined;
}

/**
 * Starts, replaces, measures and stops the processes of one run.  Every
 * process it started stays listed (and measured) after it exited, so the
 * result names every process the run had.
 */
export class RunProcesses {
  readonly #signal: AbortSignal | undefined;
  readonly #children: Child[] = [];
  readonly #meters: ProcessMeter[] = [];
  /** Children that exited because the run killed or replaced them. */
  readonly #killedOnPurpose = new Set<Child>();
  #plan: AppPlan | undefined;
  #workers: Child[] = [];
  #sender: Child | undefined;
  /** The process that consumes the queue when no worker does. */
  #consumer: Child | undefined;

  /** Processes whose waits for `ready` `signal` cuts short. */
  constructor(signal?: AbortSignal) {
    this.#signal = signal;
  }

  /** Measures the queue server's process tree too. */
  measureServer(pid: number): void {
    this.#meters.push(new ProcessMeter("server", pid, true));
  }

  /**
   * Starts the fake inbox (with `launcher`, Deno by default) and waits
   * until it listens.
   */
  async startInbox(
    options: InboxOptions,
    launcher?: Launcher,
  ): Promise<InboxClient> {
    const inbox = await this.#spawn("inbox", INBOX_SCRIPT, options, launcher);
    return InboxClient.fromReady(await this.#ready(inbox));
  }

  /** Starts the workers, then the sender, and waits until all are ready. */
  async startApp(plan: AppPlan): Promise<void> {
    this.#plan = plan;
    this.#workers = await this.#spawnWorkers(plan);
    const sender = await this.#spawn(
      "sender",
      SENDER_SCRIPT,
      plan.sender,
      plan.launcher,
    );
    this.#sender = sender;
    this.#consumer = sender;
    await Promise.all([...this.#workers, sender].map((c) => this.#ready(c)));
  }

  /**
   * The sender started by {@link startApp} (still this one after a crash
   * test replaced it as the consumer).
   * @throws {Error} Before {@link startApp}.
   */
  get sender(): Child {
    if (this.#sender == null) throw new Error("the sender has not started");
    return this.#sender;
  }

  /**
   * What the driver's queue specifier resolved to in the process that
   * opened the queue first (the first worker, or the sender), as it reported
   * when ready; `null` when it did not say.
   */
  implementation(): Implementation | null {
    const opener = this.#workers[0] ?? this.#sender;
    return opener?.latest("ready")?.implementation ?? null;
  }

  /**
   * The runtime the sender said it runs on when ready; `null` when it did
   * not say.
   */
  runtime(): RuntimeIdentity | null {
    return this.#sender?.latest("ready")?.runtime ?? null;
  }

  /** Takes every process's first reading: measuring starts now. */
  async startMeasuring(): Promise<void> {
    await Promise.all(this.#meters.map((meter) => meter.start()));
  }

  /** Epoch ms the sender said it started sending from, if it did. */
  senderStarted(): number | undefined {
    return this.#sender?.latest("started")?.sendStart;
  }

  /** Tells the sender to start sending. */
  async go(): Promise<void> {
    await this.sender.send("go");
  }

  /** A child that exited although the run did not stop it, if any. */
  unexpectedExit(): Child | undefined {
    return this.#children.find((c) =>
      c.status != null && !this.#killedOnPurpose.has(c)
    );
  }

  /** Whether `child` is one of the current workers. */
  isWorker(child: Child): boolean {
    return this.#workers.includes(child);
  }

  /**
   * Starts a fresh worker in place of `child`, which exited, and waits until
   * it is ready.
   * @throws {Error} If `child` is no current worker, or the fresh one fails.
   */
  async restartWorker(child: Child): Promise<void> {
    const index = this.#workers.indexOf(child);
    if (index < 0) throw new Error(`${child.role} ${child.pid} is no worker`);
    this.#killedOnPurpose.add(child);
    const fresh = await this.#spawnWorker(this.#app().worker, index);
    this.#workers[index] = fresh;
    await this.#ready(fresh);
  }

  /**
   * Kills every process that consumes the queue (the workers, or the
   * sender) with SIGKILL and starts fresh ones, as a supervisor would: new
   * workers, or a sender that only consumes.
   */
  async replaceConsumers(): Promise<void> {
    const plan = this.#app();
    const consumers = this.#workers.length > 0
      ? this.#workers
      : [this.#consumer ?? this.sender];
    for (const child of consumers) {
      this.#killedOnPurpose.add(child);
      await child.kill();
    }
    if (this.#workers.length > 0) {
      this.#workers = await this.#spawnWorkers(plan);
      await Promise.all(this.#workers.map((c) => this.#ready(c)));
      return;
    }
    const consumer = await this.#spawn(
      "sender",
      SENDER_SCRIPT,
      { ...plan.sender, consumeOnly: true } satisfies SenderSpec,
      plan.launcher,
    );
    this.#consumer = consumer;
    await this.#ready(consumer);
    await consumer.send("go");
  }

  /**
   * Drops the server's first reading: after a server crash its processes
   * are others, whose CPU time does not compare.
   */
  forgetServerStart(): void {
    for (const meter of this.#meters) {
      if (meter.role === "server") meter.forgetStart();
    }
  }

  /** Takes every process's last reading, while all still run. */
  async finishMeasuring(): Promise<void> {
    await Promise.all(this.#meters.map((meter) => meter.finish()));
  }

  /**
   * Starts an idle window: reads every process of the app and the queue
   * server (not the inbox, which is the bench's).
   */
  async startIdle(): Promise<void> {
    await Promise.all(this.#idleMeters().map((meter) => meter.startIdle()));
  }

  /**
   * Ends the idle window {@link startIdle} began, taken to last `seconds`:
   * each process's CPU share, memory and wake-ups, in start order.
   */
  async idle(seconds: number): Promise<IdleRecord> {
    return {
      seconds,
      processes: await Promise.all(
        this.#idleMeters().map((meter) => meter.idle(seconds)),
      ),
    };
  }

  /** Every process of the run, measured from the start of sending, in order. */
  measured(): ProcessRecord[] {
    return this.#meters.map((meter) => meter.record());
  }

  /** Every queue depth sample any process reported, `[epochMs, queued]`. */
  depthSamples(): [number, number][] {
    return this.#children.flatMap((c) =>
      c.all("depth").map((m): [number, number] => [m.at, m.queued])
    );
  }

  /**
   * Each process's `queueLog` and `depth` messages, for the depth error
   * (`depth_outcome.ts`); processes that sent none are left out.
   */
  depthMessages(): ChildMessage[][] {
    return this.#children
      .map((c): ChildMessage[] => [...c.all("queueLog"), ...c.all("depth")])
      .filter((messages) => messages.length > 0);
  }

  /**
   * How many `stages` messages with a timing in them the app's processes
   * have sent so far: while it grows, the queue is doing work (a worker
   * fanning out, a handler running), even before a delivery arrives.
   */
  stageBatches(): number {
    let count = 0;
    for (const child of this.#children) {
      for (const message of child.all("stages")) {
        if (Object.keys(message.samples).length > 0) count++;
      }
    }
    return count;
  }

  /**
   * How many fanout messages the app's processes have handled so far, from
   * the `fanout` timings of their `stages` messages (0 without stage
   * timing).
   */
  fanoutsHandled(): number {
    let count = 0;
    for (const child of this.#children) {
      for (const message of child.all("stages")) {
        count += message.samples.fanout?.length ?? 0;
      }
    }
    return count;
  }

  /**
   * The mean time, ms, of Fedify's outbox handler over every delivery the
   * app's processes have timed so far (their `stages` messages' `outbox`
   * samples); `undefined` before any (or without stage timing).
   */
  outboxHandlerMs(): number | undefined {
    let sum = 0;
    let count = 0;
    for (const child of this.#children) {
      for (const message of child.all("stages")) {
        for (const ms of message.samples.outbox ?? []) {
          sum += ms;
          count++;
        }
      }
    }
    return count === 0 ? undefined : sum / count;
  }

  /**
   * Each app process's `stages` messages, one list per process that sent
   * any, in start order.
   */
  stageMessages(): StagesMessage[][] {
    return this.#children
      .map((c) => c.all("stages"))
      .filter((messages) => messages.length > 0);
  }

  /**
   * Asks the sender and every worker still running for the stage timings
   * they have not sent yet, and waits for each to answer, at most
   * {@link FLUSH_TIMEOUT_MS}; a process that does not answer keeps what it
   * had sent.
   */
  async flushStages(): Promise<void> {
    const app = this.#children.filter((c) =>
      c.role !== "inbox" && c.status == null
    );
    await Promise.all(app.map(async (child) => {
      try {
        await child.send("flush-stages");
        await child.waitFor("flushed", FLUSH_TIMEOUT_MS);
      } catch { /* gone or too slow: its earlier timings stand */ }
    }));
  }

  /** Stops every process started, killing those that do not exit. */
  async stopAll(): Promise<void> {
    // The app first: an inbox gone while deliveries are in flight would
    // only fill Fedify's log with refused connections.
    const app = this.#children.filter((child) => child.role !== "inbox");
    await Promise.all(app.map((child) => child.stop()));
    await Promise.all(
      this.#children.filter((c) => !app.includes(c)).map((c) => c.stop()),
    );
  }

  #idleMeters(): ProcessMeter[] {
    return this.#meters.filter((meter) => meter.role !== "inbox");
  }

  #app(): AppPlan {
    if (this.#plan == null) throw new Error("the app has not started");
    return this.#plan;
  }

  async #spawn(
    role: string,
    script: URL,
    spec: unknown,
    launcher?: Launcher,
  ): Promise<Child> {
    const child = await Child.launch({ role, script, spec, launcher });
    this.#children.push(child);
    this.#meters.push(
      new ProcessMeter(role, child.pid, false, child.remoteProbe),
    );
    return child;
  }

  #spawnWorkers(plan: AppPlan): Promise<Child[]> {
    return Promise.all(Array.from(
      { length: plan.workers },
      (_, i) => this.#spawnWorker(plan.worker, i),
    ));
  }

  #spawnWorker(worker: AppPlan["worker"], index: number): Promise<Child> {
    return this.#spawn(
      "worker",
      WORKER_SCRIPT,
      {
        queue: worker.queue,
        reportDepth: index === 0,
        log: worker.log,
      } satisfies WorkerSpec,
      this.#plan?.workerLauncher?.(index) ?? this.#plan?.launcher,
    );
  }

  #ready(child: Child): Promise<ReadyMessage> {
    return child.waitFor("ready", READY_TIMEOUT_MS, this.#signal);
  }
}
