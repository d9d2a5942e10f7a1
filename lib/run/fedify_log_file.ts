/**
 * The runner's side of Fedify's log: the file one configuration's sender and
 * workers append to (see `fedify_log.ts` for their side), and the counts of
 * warnings and errors each run added to it.
 *
 * @module
 */
import { join } from "node:path";
import { countLog, type LogCounts } from "../child/fedify_log.ts";
import { leftovers } from "../system/leftovers.ts";
import type { LogSummary } from "../results/mod.ts";

/**
 * The Fedify log file of one configuration: `<dir>/<id>.log`, emptied when
 * the configuration starts, or a temporary file removed at the end when the
 * suite keeps no logs.  It counts each run's warnings and errors as the
 * lines the run appended.
 */
export class FedifyLogFile {
  /** The file the sender and workers append to. */
  readonly path: string;
  #kept: boolean;
  /** What the file held at the last reading. */
  #counted: LogCounts = { warnings: 0, errors: 0 };
  /** The sum of the runs' counts reported so far. */
  #reported: LogCounts = { warnings: 0, errors: 0 };

  #tempDir?: string;

  private constructor(path: string, kept: boolean, tempDir?: string) {
    this.path = path;
    this.#kept = kept;
    this.#tempDir = tempDir;
  }

  /** Starts the log of configuration `id` in `dir` (or a temporary file). */
  static async open(
    dir: string | undefined,
    id: string,
  ): Promise<FedifyLogFile> {
    if (dir != null) {
      try {
        await Deno.mkdir(dir, { recursive: true });
        const path = join(dir, `${id}.log`);
        await Deno.writeTextFile(path, "");
        return new FedifyLogFile(path, true);
      } catch (error) {
        // The results matter more than the log: measure on, log to a
        // temporary file, and say why the log is not kept.
        console.error(
          `${id}: cannot write Fedify's log into ${dir} (${error}); ` +
            "its warnings and errors are still counted",
        );
      }
    }
    // An owned temporary folder, so that a killed bench's log is swept too.
    const temp = await leftovers.makeTempDir("log");
    const path = join(temp, `${id}.log`);
    await Deno.writeTextFile(path, "");
    return new FedifyLogFile(path, false, temp);
  }

  /** The counts of what the last run appended. */
  async runSummary(): Promise<LogSummary> {
    const run = await this.#appended();
    this.#reported = {
      warnings: this.#reported.warnings + run.warnings,
      errors: this.#reported.errors + run.errors,
    };
    return { path: this.#kept ? this.path : null, ...run };
  }

  /** The counts of every run; removes the file unless it is kept. */
  async close(): Promise<LogSummary> {
    const rest = await this.#appended();
    if (this.#tempDir != null) await leftovers.removeTempDir(this.#tempDir);
    return {
      path: this.#kept ? this.path : null,
      warnings: this.#reported.warnings + rest.warnings,
      errors: this.#reported.errors + rest.errors,
    };
  }

  /**
   * The counts of what was appended since the last reading, never negative:
   * a log that shrank (deleted, or emptied by hand) counts as new.
   */
  async #appended(): Promise<LogCounts> {
    const total = countLog(await this.#read());
    const shrank = total.warnings < this.#counted.warnings ||
      total.errors < this.#counted.errors;
    const since = shrank ? { warnings: 0, errors: 0 } : this.#counted;
    this.#counted = total;
    return {
      warnings: total.warnings - since.warnings,
      errors: total.errors - since.errors,
    };
  }

  async #read(): Promise<string> {
    try {
      return await Deno.readTextFile(this.path);
    } catch (error) {
      // A log that vanished with its folder must not cost the results.
      if (!(error instanceof Deno.errors.NotFound)) {
        console.error(`cannot read Fedify's log ${this.path}: ${error}`);
      }
      return "";
    }
  }
}
