/**
 * The bench as a package others install: a throwaway Deno workspace in a
 * temporary folder holds a copy of exactly the files `deno publish` would
 * ship (the `publish` include and exclude lists of `deno.json`) as one member,
 * and a consumer project as another.  The consumer imports the bench by its
 * package name, has no import map of its own, defines a small in-memory queue
 * driver, and runs a tiny benchmark of it beside the built-in `in-process`
 * driver through `runBenchmark()`.  Every delivery must be accounted for.
 *
 * Beside it, each entry point of `deno.json`'s `exports` must pass
 * `deno doc --lint` on its own.
 *
 * Needs the npm registry (or Deno's cache) for the bench's npm packages.
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("./", import.meta.url);

/** The consumer's own driver: an in-memory queue, as a user would write one. */
const CONSUMER_DRIVER = `/**
 * A consumer's own queue driver: messages in an array in the memory of the
 * process that opens it, consumed by that process (crossProcess false).
 * It imports values (not only types) from the bench, so the bench's sender
 * process must resolve the package's name from this module too.
 *
 * @module
 */
import {
  type Driver,
  errorMessage,
  type MessageQueue,
  type MessageQueueEnqueueOptions,
  type MessageQueueListenOptions,
  sleep,
} from "@fedify-queue-bench/bench";

/** A FIFO in memory; delayed messages join it when their delay is over. */
export class MemoryQueue implements MessageQueue {
  readonly nativeRetrial = false;
  readonly #ready: unknown[] = [];
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  /** Why the handler last threw, if it did. */
  lastError?: string;

  enqueue(message: unknown, options?: MessageQueueEnqueueOptions) {
    const delay = Math.max(0, options?.delay?.total("millisecond") ?? 0);
    if (delay === 0) this.#ready.push(message);
    else {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#ready.push(message);
      }, delay);
      this.#timers.add(timer);
    }
    return Promise.resolve();
  }

  async listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      if (this.#ready.length < 1) {
        // Wait a little, or stop at once when the signal aborts.
        await sleep(10, signal).catch(() => {});
        continue;
      }
      try {
        await handler(this.#ready.shift());
      } catch (error) {
        // Fedify re-enqueues a failed delivery itself (nativeRetrial false).
        this.lastError = errorMessage(error);
      }
    }
  }

  /** Drops delayed messages that have not joined the queue yet. */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

/** The driver: nothing to prepare, one fresh queue per process. */
const memoryDriver: Driver = {
  name: "consumer-memory",
  description: "a consumer's own in-memory queue",
  crossProcess: false,
  volatile: true,
  module: import.meta.url,
  prepare: () =>
    Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
  open() {
    const queue = new MemoryQueue();
    return Promise.resolve({
      queue,
      close: () => Promise.resolve(queue.close()),
    });
  },
};
export default memoryDriver;
`;

/** The consumer's program: a tiny benchmark through the public API. */
const CONSUMER_MAIN = `import { runBenchmark } from "@fedify-queue-bench/bench";
import { builtinDrivers } from "@fedify-queue-bench/bench/drivers";
import memoryDriver from "./memory_queue.ts";

const results = await runBenchmark({
  drivers: ["in-process", memoryDriver],
  total: 3,
  recipients: 2,
  parallel: [1],
  timeoutSeconds: 120,
  // The figures are not the point here, so the machine's speed is not
  // measured (seconds at the start, the end and before each row).
  calibrate: false,
});
console.log("RESULT " + JSON.stringify({
  builtins: builtinDrivers.map((d) => d.name),
  results: results.results.map((r) => ({
    id: r.id,
    status: r.status,
    reason: r.reason,
    expected: r.expected,
    delivered: r.delivered,
    duplicates: r.duplicates,
    missing: r.missing,
    unexpected: r.unexpected,
  })),
}));
`;

/** Whether `path` (relative, with `/`) matches an exclude pattern. */
function excluded(path: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    if (pattern.startsWith("**/*")) return path.endsWith(pattern.slice(4));
    if (pattern.endsWith("/")) return path.startsWith(pattern);
    if (/[*?[\]{}!]/.test(pattern)) {
      throw new Error(`package.test.ts cannot read the pattern ${pattern}`);
    }
    return path === pattern;
  });
}

/** Copies `from` (a file or folder of the repository) into `to`. */
async function copy(
  relative: string,
  to: string,
  exclude: readonly string[],
): Promise<number> {
  const from = new URL(relative, ROOT);
  const stat = await Deno.stat(from);
  if (stat.isDirectory) {
    const folder = relative.endsWith("/") ? relative : relative + "/";
    let count = 0;
    for await (const entry of Deno.readDir(from)) {
      const child = folder + entry.name + (entry.isDirectory ? "/" : "");
      count += await copy(child, to, exclude);
    }
    return count;
  }
  if (excluded(relative, exclude)) return 0;
  const target = `${to}/${relative}`;
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), {
    recursive: true,
  });
  await Deno.copyFile(from, target);
  return 1;
}

Deno.test("package: every export of deno.json passes deno doc --lint on its own", async () => {
  // What JSR's documentation and score read: every public type the entry
  // point exposes is exported from it too, with JSDoc.  Each entry point is
  // linted alone, which is stricter than together (`deno task check`), where
  // a type exported from one entry point counts as public for the other.
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  const exports: string[] = typeof config.exports === "string"
    ? [config.exports]
    : Object.values(config.exports);
  assert.ok(exports.length >= 2, `exports: ${exports.join(", ")}`);
  const failures = await Promise.all(exports.map(async (entry) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--lint", entry],
      cwd: new URL(".", ROOT),
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (output.success) return null;
    const stderr = new TextDecoder().decode(output.stderr);
    return `deno doc --lint ${entry} failed:\n${stderr}`;
  }));
  assert.deepEqual(failures.filter((f) => f != null), []);
});

Deno.test({
  name: "package: a consumer in a workspace runs its own driver by name",
  // runBenchmark's processes and servers outlive no run, but Deno's op
  // sanitizers cannot see that across the consumer subprocess.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const config = JSON.parse(
      await Deno.readTextFile(new URL("deno.json", ROOT)),
    );
    const name: string = config.name;
    assert.equal(name, "@fedify-queue-bench/bench");
    const include: string[] = config.publish?.include;
    const exclude: string[] = config.publish?.exclude ?? [];
    assert.ok(Array.isArray(include), "deno.json has no publish.include");

    const dir = await Deno.makeTempDir({ prefix: "fqb-package-test-" });
    try {
      // The package: what deno publish ships, plus its deno.json.
      let files = 0;
      for (const path of include) {
        files += await copy(path, `${dir}/bench`, exclude);
      }
      await Deno.copyFile(new URL("deno.json", ROOT), `${dir}/bench/deno.json`);
      assert.ok(files > 10, `only ${files} files copied`);
      for (const path of ["bench/mod.ts", "bench/LICENSE"]) {
        await Deno.stat(`${dir}/${path}`);
      }
      // The consumer: no import map, only the workspace.
      await Deno.mkdir(`${dir}/consumer`);
      const consumerConfig: Record<string, unknown> = {
        name: "@example/consumer",
        exports: "./main.ts",
      };
      await Deno.writeTextFile(
        `${dir}/consumer/deno.json`,
        JSON.stringify(consumerConfig, null, 2),
      );
      await Deno.writeTextFile(
        `${dir}/consumer/memory_queue.ts`,
        CONSUMER_DRIVER,
      );
      await Deno.writeTextFile(`${dir}/consumer/main.ts`, CONSUMER_MAIN);
      await Deno.writeTextFile(
        `${dir}/deno.json`,
        JSON.stringify({ workspace: ["./bench", "./consumer"] }, null, 2),
      );
      // The repository's lock pins the same npm versions; Deno rewrites it
      // for the workspace.
      await Deno.copyFile(new URL("deno.lock", ROOT), `${dir}/deno.lock`);

      const run = (args: string[]) =>
        new Deno.Command(Deno.execPath(), {
          args,
          cwd: `${dir}/consumer`,
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1" },
        }).output();
      // The consumer type-checks against the package's public types.
      const checked = await run(["check", "main.ts", "memory_queue.ts"]);
      assert.ok(
        checked.success,
        `deno check failed:\n${new TextDecoder().decode(checked.stderr)}`,
      );
      const output = await run([
        "run",
        "--allow-all",
        "--unstable-kv",
        "main.ts",
      ]);
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      assert.ok(output.success, `consumer failed:\n${stdout}\n${stderr}`);
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      assert.ok(line != null, `no result line:\n${stdout}\n${stderr}`);
      const report = JSON.parse(line.slice("RESULT ".length));
      assert.ok(report.builtins.includes("in-process"));
      assert.deepEqual(
        report.results.map((r: { id: string }) => r.id),
        ["in-process", "consumer-memory"],
      );
      for (const r of report.results) {
        assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
        assert.equal(r.expected, 3 * 2, r.id);
        assert.equal(r.delivered, r.expected, r.id);
        assert.equal(r.duplicates, 0, r.id);
        assert.equal(r.missing, 0, r.id);
        assert.equal(r.unexpected, 0, r.id);
      }
      // Nothing but the workspace list and the package's own deno.json
      // mapped a specifier.
      const rootConfig = JSON.parse(
        await Deno.readTextFile(`${dir}/deno.json`),
      );
      assert.equal(rootConfig.imports, undefined);
      assert.equal(consumerConfig.imports, undefined);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
