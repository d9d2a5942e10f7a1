/**
 * The ordering record of a run of the ordered workload: the key it sent
 * with, whether its configuration keeps a key's order (the driver's
 * declaration, and above parallelism 1 the wrapper's), and the violations
 * the inbox counted.
 *
 * @module
 */
import type { InboxStats } from "../../fake_inbox/protocol.ts";
import { PARALLEL_ORDERING } from "../queue/awaiting_parallel_queue.ts";
import type {
  OrderingKey,
  OrderingRecord,
  ParallelImpl,
  SuiteParams,
} from "../results/mod.ts";
import { stepsPerObject } from "../workload/ordering.ts";
import type { Driver } from "../../drivers/driver.ts";

/** What of a run's configuration decides its ordering (`Configuration`'s). */
export interface OrderedConfiguration {
  /** The driver, whose `ordering` declares what the queue keeps. */
  readonly driver: Driver;
  /** Messages handled at once; above 1 a wrapper is in between. */
  readonly parallelism: number;
  /** The wrapper above parallelism 1; Fedify's when absent. */
  readonly parallelImpl?: ParallelImpl;
  /** The ordering key sent; the suite's when absent. */
  readonly orderingKey?: OrderingKey;
  /** The baseline: no queue, no `sendActivity`. */
  readonly direct?: boolean;
  /** The load generator's row: nothing delivered. */
  readonly generator?: boolean;
}

/** The ordering key a configuration sends with. */
export function orderingKeyOf(
  configuration: OrderedConfiguration,
  params: SuiteParams,
): OrderingKey {
  return configuration.orderingKey ?? params.orderingKey ?? "none";
}

/**
 * Whether `configuration` keeps the order of one key, and on what that
 * rests.
 */
export function orderingSupport(
  configuration: OrderedConfiguration,
): { readonly supported: boolean; readonly note: string } {
  if (configuration.direct) {
    return {
      supported: false,
      note: "the baseline signs and POSTs every delivery itself, with no " +
        "queue and no orderingKey",
    };
  }
  const declared = configuration.driver.ordering ?? {
    supported: false,
    note: "not declared by the driver (its `ordering` field)",
  };
  if (!declared.supported || configuration.parallelism <= 1) return declared;
  const wrapper = PARALLEL_ORDERING[configuration.parallelImpl ?? "fedify"];
  return wrapper.keepsOrder
    ? declared
    : { supported: false, note: wrapper.note };
}

/**
 * The run's ordering record, or `undefined` when its workload sends one
 * activity per note (nothing to keep in order).
 */
export function orderingRecord(
  configuration: OrderedConfiguration,
  params: SuiteParams,
  stats: InboxStats | undefined,
): OrderingRecord | undefined {
  if (stepsPerObject(params.workload) <= 1 || configuration.generator) {
    return undefined;
  }
  const support = orderingSupport(configuration);
  return {
    key: orderingKeyOf(configuration, params),
    supported: support.supported,
    note: support.note,
    violations: stats?.orderViolations ?? null,
  };
}
