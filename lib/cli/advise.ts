/**
 * `deno task advise --followers N --posts-per-minute P [--durable]
 * [--runtime R] [--cpus N] [--queue-rtt MS]`: which
 * queue fits, from the results files on disk (`DIR/latest.json` and every
 * `DIR/*\/latest.json`).  Exit codes: 0 an answer, "not covered" included;
 * 2 bad input or no results to read.
 *
 * @module
 */
import { join, relative } from "node:path";
import { ADVISE, parseCommand, renderHelp, UsageError } from "../params/mod.ts";
import { advise, onRuntime, type Source } from "../analysis/mod.ts";
import { renderAdvice } from "../report/capacity_plan.ts";
import { readResultsDocument, ResultsFileError } from "../results/read.ts";

/** Reads `dir/latest.json` and every `dir/*\/latest.json` that is a results file. */
export async function readSources(dir: string): Promise<Source[]> {
  const paths = [join(dir, "latest.json")];
  try {
    const folders: string[] = [];
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) folders.push(entry.name);
    }
    paths.push(...folders.sort().map((f) => join(dir, f, "latest.json")));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const sources: Source[] = [];
  for (const path of paths) {
    try {
      const document = await readResultsDocument(path);
      sources.push({ path: relative(Deno.cwd(), path) || path, document });
    } catch (error) {
      if (!(error instanceof ResultsFileError)) throw error;
    }
  }
  return sources;
}

/** The command line; returns the exit code. */
export async function main(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let values;
  try {
    ({ values } = parseCommand(ADVISE, args, env));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    return 2;
  }
  if (values.help) {
    console.log(renderHelp(ADVISE));
    return 0;
  }
  const sources = await readSources(values.results);
  const runtime = values.runtime;
  if (
    !onRuntime(sources, runtime).some((s) =>
      s.document.results.some((r) => r.maxRate != null)
    )
  ) {
    const [scenario, folder] = runtime === "deno"
      ? ["steady", "steady"]
      : ["runtimes-steady", "runtimes-steady"];
    console.error(
      `error: no sustained rates in ${values.results}${
        runtime === "deno" ? "" : ` with the app on ${runtime}`
      }: no results file there has a max-rate search${
        runtime === "deno" ? "" : " of that runtime"
      }; measure them with deno task bench --scenario ${scenario} --out ${
        join(values.results, folder)
      }, or point --results at a folder that has them`,
    );
    return 2;
  }
  const answer = advise({
    followers: values.followers!,
    postsPerMinute: values.postsPerMinute!,
    durable: values.durable,
    runtime,
    ...(values.cpus == null ? {} : { cpus: values.cpus }),
    ...(values.queueRttMs == null ? {} : { queueRttMs: values.queueRttMs }),
  }, sources);
  console.log(
    values.json ? JSON.stringify(answer, null, 2) : renderAdvice(answer),
  );
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args, {}));
}
