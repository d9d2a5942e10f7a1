/**
 * The results folder: the check before measuring (the folder, `charts/`
 * and `logs/` writable, `latest.json` not a folder), and saving that goes
 * on after a failed write and falls back to a file at the end.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkOutputDir, OutputError, ResultsOutput } from "./output.ts";
import type { ResultsDocument } from "../results/mod.ts";

const DOCUMENT = {
  schemaVersion: 1,
  results: [],
} as unknown as ResultsDocument;

Deno.test("checkOutputDir creates the folder, charts/ and logs/, and leaves nothing else", async () => {
  const base = await Deno.makeTempDir();
  try {
    const out = join(base, "a", "b");
    await checkOutputDir(out);
    assert.deepEqual(
      [...Deno.readDirSync(out)].map((e) => e.name).sort(),
      ["charts", "logs"],
    );
    assert.deepEqual([...Deno.readDirSync(join(out, "charts"))], []);
    assert.deepEqual([...Deno.readDirSync(join(out, "logs"))], []);
    // An earlier run's results are fine.
    await Deno.writeTextFile(join(out, "latest.json"), "{}\n");
    await checkOutputDir(out);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("checkOutputDir fails on a charts/ that is a file and a latest.json that is a folder", async () => {
  const base = await Deno.makeTempDir();
  try {
    const charts = join(base, "charts-file");
    const file = join(charts, "charts");
    await Deno.mkdir(charts);
    await Deno.writeTextFile(file, "");
    await assert.rejects(
      () => checkOutputDir(charts),
      (error: unknown) =>
        error instanceof OutputError &&
        error.message.startsWith(`cannot write results to ${file}: `) &&
        error.message.includes("choose another folder with --out"),
    );
    const json = join(base, "json-folder");
    const folder = join(json, "latest.json");
    await Deno.mkdir(folder, { recursive: true });
    const expected = `cannot write results to ${folder}: it is a folder; ` +
      "remove it or choose another folder with --out";
    await assert.rejects(
      () => checkOutputDir(json),
      (error: unknown) =>
        error instanceof OutputError && error.message === expected,
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("checkOutputDir names the folder, the cause and the fix", async () => {
  await assert.rejects(
    () => checkOutputDir("/proc/nope"),
    (error: unknown) =>
      error instanceof OutputError &&
      /^cannot write results to \/proc\/nope: .+; choose another folder with --out/
        .test(error.message),
  );
});

Deno.test("ResultsOutput goes on after a failed write, then falls back to a file", async () => {
  const fallbackDir = await Deno.makeTempDir();
  try {
    const lines: string[] = [];
    let fail = true;
    const output = new ResultsOutput("/results", {
      write: () =>
        fail ? Promise.reject(new Error("disk full")) : Promise.resolve(),
      log: (line) => lines.push(line),
      fallbackDir,
    });
    assert.equal((await output.save(DOCUMENT, false)).ok, false);
    assert.equal((await output.save(DOCUMENT, false)).ok, false);
    assert.equal(lines.length, 1, "one warning");
    assert.match(
      lines[0],
      /cannot write results to \/results: disk full; measuring on/,
    );
    const outcome = await output.save(DOCUMENT, true);
    assert.equal(outcome.ok, false);
    assert.ok(outcome.fallbackPath?.startsWith(fallbackDir + "/"));
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(outcome.fallbackPath!)),
      DOCUMENT,
    );
    fail = false;
    assert.deepEqual(await output.save(DOCUMENT, true), { ok: true });
    assert.deepEqual(output.outcome, { ok: true });
  } finally {
    await Deno.remove(fallbackDir, { recursive: true });
  }
});
