import assert from "node:assert/strict";
import plugin, {
  governed,
  linesSpanned,
  MAX_FUNCTION_LINES,
} from "./function_length.ts";

/** A function of `lines` lines in all, its braces included. */
function functionOf(lines: number, head = "function long() {"): string {
  const body = Array.from(
    { length: lines - 2 },
    (_, i) => `  const a${i} = ${i};`,
  );
  return [head, ...body, "}"].join("\n") + "\n";
}

function problems(filename: string, source: string) {
  return Deno.lint.runPlugin(plugin, filename, source)
    .filter((d) => d.id === "house/function-length");
}

Deno.test("a function in lib/ over the limit is reported with its length", () => {
  const found = problems(
    "/repo/lib/run/x.ts",
    functionOf(MAX_FUNCTION_LINES + 1),
  );
  assert.equal(found.length, 1);
  assert.match(found[0].message, /is 101 lines long, over the 100/);
});

Deno.test("a function at the limit, and arrows and expressions, are measured alike", () => {
  assert.deepEqual(
    problems("/repo/lib/run/x.ts", functionOf(MAX_FUNCTION_LINES)),
    [],
  );
  const arrow = functionOf(MAX_FUNCTION_LINES + 1, "export const f = () => {");
  assert.equal(problems("/repo/lib/run/x.ts", arrow).length, 1);
  const method = functionOf(
    MAX_FUNCTION_LINES + 1,
    "class C { m() {",
  ) + "}\n";
  assert.equal(problems("/repo/lib/run/x.ts", method).length, 1);
});

Deno.test("tests, their helpers and files outside lib/ are left alone", () => {
  const long = functionOf(MAX_FUNCTION_LINES + 50);
  assert.deepEqual(problems("/repo/lib/run/x.test.ts", long), []);
  assert.deepEqual(problems("/repo/drivers/x.ts", long), []);
  assert.deepEqual(problems("/repo/lib/testing/fixtures.ts", long), []);
  assert.ok(governed("C:\\repo\\lib\\x.ts"));
  assert.ok(!governed("/repo/library/x.ts"));
});

Deno.test("linesSpanned counts the lines a range touches", () => {
  assert.equal(linesSpanned("a\nb\nc", 0, 5), 3);
  assert.equal(linesSpanned("abc", 0, 3), 1);
});

Deno.test("no function in lib/ is over the limit (deno lint runs the rule too)", async () => {
  const lib = new URL("../../", import.meta.url);
  const over: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts") && governed(url.pathname)) {
        const source = await Deno.readTextFile(url);
        for (const problem of problems(url.pathname, source)) {
          over.push(`${url.pathname}: ${problem.message}`);
        }
      }
    }
  };
  await walk(lib);
  assert.deepEqual(over, []);
});
