/**
 * Which code of a queue package a measurement ran, in words: the package
 * and version, and whether it came from the registry, a Fedify source tree
 * (at which tag or commit) or this project's stand-in.  Used by the
 * bench's report ("Queue code" under "Software") and by the dequeue-cost
 * report, so that a reader of `latest.md` sees it without opening the
 * JSON.
 *
 * @module
 */
import { type Implementation, NOT_A_GIT_CHECKOUT } from "../results/mod.ts";

/** One implementation in words, for a Markdown list. */
export function implementationText(implementation: Implementation): string {
  const { specifier, version, resolved } = implementation;
  switch (implementation.origin) {
    case "registry":
      return `\`${specifier}@${version ?? "?"}\` from the registry`;
    case "stand-in":
      return `this project's stand-in for \`${specifier}\` (\`${resolved}\`)`;
    case "fedify-source":
      return `\`${specifier}\` ${version ?? "?"} from a Fedify source tree ` +
        `${sourceRefText(implementation)} (\`${resolved}\`)`;
    default:
      // Files written before `origin` existed.
      return `\`${specifier}\` ${version ?? ""}`.trimEnd() +
        (implementation.official ? "" : " (not the official package)");
  }
}

/**
 * Where a source tree stood: its tag, or its commit, or its version and
 * why no commit was recorded.
 */
function sourceRefText(implementation: Implementation): string {
  const ref = implementation.ref;
  const dirty = ref?.dirty ? ", with uncommitted changes" : "";
  if (ref?.tag != null) return `at tag ${ref.tag}${dirty}`;
  if (ref?.commit != null) {
    return `at commit ${ref.commit.slice(0, 12)} (not a release)${dirty}`;
  }
  const why = ref?.noCommitReason;
  return why == null || why === NOT_A_GIT_CHECKOUT
    ? `(${NOT_A_GIT_CHECKOUT}; its package declares that version)`
    : `(no commit recorded: ${why}; its package declares that version)`;
}

/**
 * The Markdown list of which code each driver ran, one line per driver
 * (the first implementation recorded for it), or no lines when no row
 * recorded one.
 */
export function queueCodeLines(
  rows: readonly {
    readonly driver: string;
    readonly implementation?: Implementation | null;
  }[],
): string[] {
  const byDriver = new Map<string, Implementation>();
  for (const row of rows) {
    if (row.implementation == null || byDriver.has(row.driver)) continue;
    byDriver.set(row.driver, row.implementation);
  }
  if (byDriver.size === 0) return [];
  return [
    "- **Queue code**:",
    ...[...byDriver].map(([driver, implementation]) =>
      `  - \`${driver}\`: ${implementationText(implementation)}`
    ),
  ];
}
