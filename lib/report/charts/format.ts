/**
 * How the charts print numbers, durations and lists in their titles, notes
 * and labels.
 *
 * @module
 */

/** The values in their first-seen order, each once. */
export function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The value with exactly `digits` decimals and thousands separators. */
export function fixed(value: number, digits = 2): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** Three significant digits at most, and no more than two decimals. */
export function short(value: number): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return fixed(value, digits);
}

/** A bucket width: `1 h`, `5 min` or `10 s`, in the largest whole unit. */
export function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
