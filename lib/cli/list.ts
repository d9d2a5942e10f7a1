/**
 * `deno task bench --list`'s list of drivers: each one's name, its
 * description, and whether it can run here (or why not).
 *
 * @module
 */
import type { Driver } from "../../drivers/mod.ts";
import { driverAvailability } from "../run/configurations.ts";
import type { ServiceManager } from "../services/mod.ts";

/**
 * The lines `--list` prints for `drivers` (the registry's, then the user's).
 *
 * @param drivers The drivers, in the order to list them.
 * @param services The manager that says whether their servers can be had.
 */
export async function driverList(
  drivers: readonly Driver[],
  services: ServiceManager,
): Promise<string[]> {
  const width = Math.max(...drivers.map((d) => d.name.length));
  const lines: string[] = [];
  for (const driver of drivers) {
    const availability = await driverAvailability(driver, services);
    const state = availability.available
      ? `available${availability.note ? ` (${availability.note})` : ""}`
      : `unavailable: ${availability.reason}`;
    lines.push(
      `${driver.name.padEnd(width)}  ${driver.description}\n${
        " ".repeat(width)
      }  ${state}`,
    );
  }
  return lines;
}
