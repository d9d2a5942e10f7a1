/**
 * The "Queue server across the network" section of `latest.md`, for a
 * suite run with `--queue-rtt`: per configuration and round trip added, the
 * round trips per delivery the delay proxies counted, what they added and
 * the busiest second they carried (so that a reader sees they kept up),
 * the rate measured, and the rate predicted from the same configuration at
 * 0 ms.
 *
 * The prediction ({@link predictRates}) takes the configuration's rate at
 * 0 ms and its workers' round trips per delivery there, and adds each round
 * trip's time to a delivery's: `serial` if they all happen one after
 * another for the whole process (one listener fetching and acknowledging
 * one message at a time), `overlapped` if the parallel wrapper's slots
 * each wait for their own at once (×4: four at a time).  The measured rate
 * then says which the queue is closer to; neither is fitted to it.
 *
 * @module
 */
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";
import { label } from "./label.ts";

/** The rates a configuration is predicted to reach at a round trip. */
export interface RatePrediction {
  /** Deliveries per second with every round trip in series. */
  readonly serial: number;
  /** Deliveries per second with each slot's round trips overlapping. */
  readonly overlapped: number;
}

/**
 * The rates `base` (the configuration at 0 ms added) predicts at `rttMs`,
 * or `null` when it has no rate or no workers' round trips to go by.
 */
export function predictRates(
  base: ConfigurationResult,
  rttMs: number,
): RatePrediction | null {
  const rate = base.deliveriesPerSecond;
  const trips = base.roundTripsPerDelivery?.dequeue;
  if (rate == null || rate <= 0 || trips == null) return null;
  const perDelivery = 1 / rate;
  const added = trips * rttMs / 1000;
  return {
    serial: 1 / (perDelivery + added),
    overlapped: 1 / (perDelivery + added / Math.max(1, base.parallelism)),
  };
}

/** A row's id without its `-rtt<N>` part: its configuration at any RTT. */
function withoutRtt(id: string): string {
  return id.replace(/-rtt[0-9.]+/, "");
}

function fixed(value: number | null | undefined, digits: number): string {
  return value == null ? "—" : value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/**
 * The section (ending in a blank line), or `""` when no row went through a
 * delay proxy.
 */
export function networkSection(document: ResultsDocument): string {
  const rows = document.results.filter((r) =>
    r.deployment?.queueRttMs != null && r.proxy != null
  );
  if (rows.length === 0) return "";
  const bases = new Map<string, ConfigurationResult>();
  for (const row of rows) {
    if (row.deployment!.queueRttMs === 0) bases.set(withoutRtt(row.id), row);
  }
  const lines = rows.map((row) => {
    const rtt = row.deployment!.queueRttMs!;
    const base = bases.get(withoutRtt(row.id));
    const predicted = rtt === 0 || base == null
      ? null
      : predictRates(base, rtt);
    const trips = row.roundTripsPerDelivery;
    const workers = row.proxy!.workers ?? row.proxy!.sender;
    const measured = row.deliveriesPerSecond;
    const ratio = (p: number | undefined) =>
      p == null || measured == null ? "—" : `${fixed(measured / p, 2)}×`;
    return `| ${label(row)} | ${row.status} | ${fixed(trips?.enqueue, 2)} | ${
      fixed(trips?.dequeue, 2)
    } | ${fixed(workers.addedDelayMs.median, 2)} / ${
      fixed(workers.addedDelayMs.p99, 2)
    } ms | ${fixed(workers.busiestChunksPerSecond, 0)} | ${
      fixed(measured, 1)
    }/s | ${predicted == null ? "—" : `${fixed(predicted.serial, 1)}/s`} | ${
      predicted == null ? "—" : `${fixed(predicted.overlapped, 1)}/s`
    } | ${ratio(predicted?.serial)} | ${ratio(predicted?.overlapped)} |`;
  });
  return `## Queue server across the network

The app reached its queue server through delay proxies adding the round trip
in the label (half each way), one for the sender's connections and one for the
workers'.

| Configuration | Status | Round trips per delivery, sender | workers | Added one way, workers' proxy (median / p99) | Busiest chunks/s | Deliveries/s | Predicted, serial | Predicted, overlapped | Measured ÷ serial | Measured ÷ overlapped |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${lines.join("\n")}

- **Round trips per delivery**: turns counted at the proxy (a chunk from the
  app after one from the server) over the deliveries that arrived; the
  sender's are \`sendActivity\`'s enqueues, the workers' are taking and
  acknowledging messages and a fanout's enqueues.
- **Added one way**: what the workers' proxy added to each chunk, read to
  written; never below half the round trip asked. **Busiest chunks/s**: the
  most it carried in one second.
- **Deliveries/s**: as in the main table (so far, for a row that did not
  finish). **Predicted**: from the same configuration at 0 ms added, its rate
  and its workers' round trips per delivery, each round trip added to a
  delivery's time one after another (**serial**), or shared among the
  parallel wrapper's slots (**overlapped**); not fitted to what was measured.

`;
}
