/**
 * The README's two commands, as its first screen shows them
 * ({@link readmeCommands}), and a command line with the environment
 * variables a user types before it ({@link withEnv}).
 *
 * @module
 */
import { FreshCheckError } from "./error.ts";

/** The README's two commands, as its first screen shows them. */
export interface ReadmeCommands {
  /** The command containing `task bench`. */
  readonly bench: string;
  /** The command containing `task test`. */
  readonly test: string;
}

/** How many lines count as the README's first screen. */
export const FIRST_SCREEN_LINES = 40;

/**
 * The bench and test commands of the README's first screen: the first
 * fenced `sh` (or `bash`, `shell`, `console`) block within its first
 * {@link FIRST_SCREEN_LINES} lines, each line without its `#` comment.
 *
 * @param readme The README's text.
 * @throws {FreshCheckError} When the block or either command is missing.
 */
export function readmeCommands(readme: string): ReadmeCommands {
  const lines = readme.split("\n").slice(0, FIRST_SCREEN_LINES);
  const start = lines.findIndex((l) =>
    /^```(sh|bash|shell|console)\s*$/.test(l.trim())
  );
  const end = start < 0
    ? -1
    : lines.findIndex((l, i) => i > start && l.trim() === "```");
  if (start < 0 || end < 0) {
    throw new FreshCheckError(
      `README.md has no fenced sh block in its first ${FIRST_SCREEN_LINES} ` +
        "lines: put the two commands (deno task bench, deno task test) back " +
        "at its top",
    );
  }
  const commands = lines.slice(start + 1, end)
    .map((l) => l.replace(/(^|\s)#.*$/, "").replace(/^\$\s+/, "").trim())
    .filter((l) => l !== "");
  const find = (task: string) => {
    const found = commands.find((c) =>
      new RegExp(`\\btask ${task}\\b`).test(c)
    );
    if (found == null) {
      throw new FreshCheckError(
        `README.md's first sh block has no command running "task ${task}" ` +
          `(it has: ${commands.join("; ") || "nothing"}): put it back there`,
      );
    }
    return found;
  };
  return { bench: find("bench"), test: find("test") };
}

/**
 * A command line with environment variables before it, as a user types it
 * (`TOTAL=20 RECIPIENTS=10 npx …`).
 *
 * @param command The command line.
 * @param env The variables, in the order they are typed.
 */
export function withEnv(
  command: string,
  env: Readonly<Record<string, string>>,
): string {
  const prefix = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ");
  return prefix === "" ? command : `${prefix} ${command}`;
}
