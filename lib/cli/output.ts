/**
 * The results folder (`--out`): checked before anything is measured, written
 * after every configuration, and, when writing fails at the end, replaced by
 * a fallback file in the temporary folder so that no measurement is lost.
 *
 * @module
 */
import { join } from "node:path";
import { tempRoot } from "../system/leftovers.ts";
import { errorMessage } from "../results/error_message.ts";
import type { ResultsDocument } from "../results/mod.ts";
import { writeResults } from "./write.ts";

/** The output folder cannot be used; the message names it and the cause. */
export class OutputError extends Error {
  /** @param message Names the folder, the cause and the fix. */
  constructor(message: string) {
    super(message);
    this.name = "OutputError";
  }
}

/**
 * Makes sure results can be written to `dir`, so that a bad `--out` fails
 * before anything is measured: creates it (and its parents) and its
 * `charts` and `logs` folders, writes and removes a probe file in each, and
 * checks that neither `latest.json` nor `latest.md` is a folder.
 *
 * @param dir The output folder.
 * @throws {OutputError} Naming the folder, the cause and the fix.
 */
export async function checkOutputDir(dir: string): Promise<void> {
  for (const folder of [dir, join(dir, "charts"), join(dir, "logs")]) {
    const probe = join(folder, `.fqb-probe-${Deno.pid}`);
    try {
      await Deno.mkdir(folder, { recursive: true });
      await Deno.writeTextFile(probe, "probe\n");
      await Deno.remove(probe);
    } catch (error) {
      throw new OutputError(
        `cannot write results to ${folder}: ${errorMessage(error)}; ` +
          "choose another folder with --out or make this one writable",
      );
    }
  }
  for (const name of ["latest.json", "latest.md"]) {
    const path = join(dir, name);
    let isFolder = false;
    try {
      isFolder = (await Deno.lstat(path)).isDirectory;
    } catch { /* not there yet: written at the first save */ }
    if (isFolder) {
      throw new OutputError(
        `cannot write results to ${path}: it is a folder; ` +
          "remove it or choose another folder with --out",
      );
    }
  }
}

/** How writing the results went, from {@link ResultsOutput.save}. */
export interface SaveOutcome {
  /** Whether the results are in the output folder. */
  readonly ok: boolean;
  /** Where the results are when they are not: a JSON file. */
  readonly fallbackPath?: string;
  /** Why writing to the output folder failed. */
  readonly error?: string;
}

/** Writes a results document into a folder; {@link writeResults} by default. */
export type ResultsWriter = (
  dir: string,
  document: ResultsDocument,
) => Promise<void>;

/**
 * Saves the results of a suite into the output folder, never throwing: a
 * failed write after a configuration is reported and the suite goes on; a
 * failed final write puts the JSON into a fallback file instead.
 */
export class ResultsOutput {
  readonly #dir: string;
  readonly #write: ResultsWriter;
  readonly #log: (line: string) => void;
  readonly #fallbackDir: string;
  #warned = false;
  #outcome: SaveOutcome = { ok: true };

  /**
   * @param dir The output folder.
   * @param options The writer (for tests), where messages go, and the
   *   folder of the fallback file (the temporary folder by default).
   */
  constructor(
    dir: string,
    options: {
      readonly write?: ResultsWriter;
      readonly log?: (line: string) => void;
      readonly fallbackDir?: string;
    } = {},
  ) {
    this.#dir = dir;
    this.#write = options.write ?? writeResults;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#fallbackDir = options.fallbackDir ?? tempRoot();
  }

  /** How the latest save went. */
  get outcome(): SaveOutcome {
    return this.#outcome;
  }

  /**
   * Writes `document` into the output folder.  When that fails and `final`
   * is set, writes its JSON to a fallback file in the temporary folder.
   *
   * @param document The results so far, or the final ones.
   * @param final Whether this is the suite's last save.
   * @returns How it went; also kept in {@link outcome}.
   */
  async save(document: ResultsDocument, final: boolean): Promise<SaveOutcome> {
    try {
      await this.#write(this.#dir, document);
      this.#outcome = { ok: true };
      return this.#outcome;
    } catch (error) {
      const message = `cannot write results to ${this.#dir}: ${
        errorMessage(error)
      }`;
      if (!final) {
        if (!this.#warned) {
          this.#log(`${message}; measuring on, will try again at the end`);
        }
        this.#warned = true;
        this.#outcome = { ok: false, error: message };
        return this.#outcome;
      }
      this.#outcome = {
        ok: false,
        error: message,
        fallbackPath: await this.#fallback(document),
      };
      return this.#outcome;
    }
  }

  async #fallback(document: ResultsDocument): Promise<string | undefined> {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const path = join(
      this.#fallbackDir,
      `fedify-queue-bench-results-${stamp}-${Deno.pid}.json`,
    );
    try {
      await Deno.writeTextFile(path, JSON.stringify(document, null, 2) + "\n");
      return path;
    } catch (error) {
      this.#log(
        `cannot write the fallback file ${path} either: ${errorMessage(error)}`,
      );
      return undefined;
    }
  }
}
