/**
 * Crash tests and worker restarts during a run.  With `--crash-worker-at F`
 * the processes that consume the queue are killed once sending is over and
 * a share F of the deliverable deliveries has arrived, and fresh ones are
 * started; with `--crash-server-at F` the queue server is killed and
 * restarted.  A worker that dies with its crashed server is started again,
 * as a supervisor would, a bounded number of times; any other process that
 * exits unasked fails the run.  {@link CrashInjector} records each crash and
 * restart for the result.
 *
 * @module
 */
import type { InboxStats } from "../../fake_inbox/protocol.ts";
import { now } from "../ipc/child_io.ts";
import type { SentMessage } from "../ipc/messages.ts";
import type {
  CrashRecord,
  RestartRecord,
  SuiteParams,
} from "../results/mod.ts";
import type { Child } from "../system/process.ts";
import { roundTo } from "../measure/stats.ts";
import type { RunProcesses } from "./processes.ts";

/** Worker restarts allowed after a server crash before the run fails. */
const MAX_RESTARTS = 8;

/** What {@link CrashInjector} strikes, and with what. */
export interface CrashOptions {
  /** The suite's crash test; none when absent. */
  readonly plan: SuiteParams["crash"];
  /** `total × recipients`. */
  readonly expected: number;
  /** The run's processes, whose consumers it kills and restarts. */
  readonly processes: RunProcesses;
  /**
   * Kills the queue server and starts it again; absent for a driver without
   * a server.
   */
  readonly crashServer?: () => Promise<unknown>;
}

/** Strikes a run's crash test when due and restarts workers that died. */
export class CrashInjector {
  readonly #options: CrashOptions;
  readonly #crashes: CrashRecord[] = [];
  readonly #restarts: RestartRecord[] = [];
  #workerCrashed = false;
  #serverCrashed = false;

  /** An injector that has struck nothing yet. */
  constructor(options: CrashOptions) {
    this.#options = options;
  }

  /** The crashes inflicted so far, in order. */
  get crashes(): readonly CrashRecord[] {
    return this.#crashes;
  }

  /** The workers started again so far, in order. */
  get restarts(): readonly RestartRecord[] {
    return this.#restarts;
  }

  /**
   * Handles `child`, which exited although the run did not stop it: a
   * worker that died after the server crash is started again (the queue's
   * durability is what is measured).  `stats` and `sent` are the latest
   * readings, for the record.
   * @throws {Error} Describing the exit, for any other process, before the
   *   server crash, or after too many restarts.
   */
  async recover(
    child: Child,
    stats: InboxStats | undefined,
    sent: SentMessage | undefined,
  ): Promise<void> {
    if (
      !this.#serverCrashed || !this.#options.processes.isWorker(child) ||
      this.#restarts.length >= MAX_RESTARTS
    ) {
      throw new Error(child.describeExit());
    }
    const { atSeconds, deliveredBefore } = moment(stats, sent);
    this.#restarts.push({
      atSeconds,
      deliveredBefore,
      exit: child.describeExit(),
    });
    await this.#options.processes.restartWorker(child);
  }

  /**
   * Strikes each crash that is due and not yet struck: sending is over and
   * a share of the deliverable deliveries has arrived.  Resolves with
   * whether it struck, which starts the stall window again.
   * @throws {Error} If a server crash is due and the driver has no server.
   */
  async strike(
    stats: InboxStats,
    sent: SentMessage | undefined,
  ): Promise<boolean> {
    const { plan, expected, processes, crashServer } = this.#options;
    const deliverable = expected - stats.goneDeliveries;
    const due = (share: number | undefined) =>
      share != null && sent != null && stats.delivered >= share * deliverable;
    let struck = false;
    if (!this.#workerCrashed && due(plan?.workerAt)) {
      this.#workerCrashed = true;
      this.#crashes.push({ target: "worker", ...moment(stats, sent) });
      await processes.replaceConsumers();
      struck = true;
    }
    if (!this.#serverCrashed && due(plan?.serverAt)) {
      this.#serverCrashed = true;
      if (crashServer == null) {
        throw new Error("--crash-server-at: this driver has no server");
      }
      this.#crashes.push({ target: "server", ...moment(stats, sent) });
      await crashServer();
      processes.forgetServerStart();
      struck = true;
    }
    return struck;
  }
}

/** When something happened: seconds into sending, deliveries so far. */
function moment(
  stats: InboxStats | undefined,
  sent: SentMessage | undefined,
): Pick<CrashRecord, "atSeconds" | "deliveredBefore"> {
  return {
    atSeconds: sent == null ? 0 : roundTo((now() - sent.sendStart) / 1000, 3),
    deliveredBefore: stats?.delivered ?? 0,
  };
}
