/**
 * The app's processes report to the bench in lines on stdout, and some are
 * long (a load run's call times).  On every runtime a line longer than the
 * pipe holds must arrive whole while the bench reads it a moment later.
 */
import assert from "node:assert/strict";
import { prepareAppRuntime } from "../services/app_runtimes.ts";
import { runtimesHere } from "../testing/runtimes.ts";

const CHILD = new URL("../testing/long_stdout.ts", import.meta.url).pathname;
/** Well beyond a pipe's 64 KiB. */
const LENGTH = 4 * 1024 * 1024;

for (const runtime of await runtimesHere()) {
  Deno.test(`${runtime}: a report longer than the pipe arrives whole though the bench reads it late`, async () => {
    const launcher = await prepareAppRuntime(runtime);
    const child = new Deno.Command(launcher.command, {
      args: launcher.args(CHILD, String(LENGTH)),
      env: launcher.env ?? {},
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    await child.stdin.close();
    // The pipe fills while nothing reads it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [out, err, status] = await Promise.all([
      new Response(child.stdout).bytes(),
      new Response(child.stderr).text(),
      child.status,
    ]);
    assert.equal(status.code, 0, err);
    assert.equal(out.length, LENGTH + 1, err);
    assert.equal(out[LENGTH], 0x0a);
  });
}
