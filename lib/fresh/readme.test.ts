/**
 * The README's commands: read from its first screen, with the fix named
 * when they are missing, and typed with their environment variables.
 */
import assert from "node:assert/strict";
import { FreshCheckError } from "./error.ts";
import { FIRST_SCREEN_LINES, readmeCommands, withEnv } from "./readme.ts";

const README = `# fedify-queue-bench

Benchmarks …

\`\`\`sh
npx --yes deno@2.9.6 task bench   # the nine configurations: about 60 minutes
npx --yes deno@2.9.6 task test    # the tests, against real servers
\`\`\`

More text.
`;

Deno.test("the README's first sh block gives the two commands, comments dropped", () => {
  assert.deepEqual(readmeCommands(README), {
    bench: "npx --yes deno@2.9.6 task bench",
    test: "npx --yes deno@2.9.6 task test",
  });
  // This project's own README keeps them on its first screen.
  const own = Deno.readTextFileSync(
    new URL("../../README.md", import.meta.url),
  );
  const commands = readmeCommands(own);
  assert.match(commands.bench, /task bench$/);
  assert.match(commands.test, /task test$/);
});

Deno.test("a README without the block or a command names the fix", () => {
  assert.throws(
    () => readmeCommands("# x\n\nno commands\n"),
    (e: unknown) =>
      e instanceof FreshCheckError && /put the two commands/.test(e.message),
  );
  assert.throws(
    () => readmeCommands("```sh\nnpx deno task bench\n```\n"),
    (e: unknown) =>
      e instanceof FreshCheckError &&
      /"task test".*put it back/.test(e.message),
  );
  const late = "\n".repeat(FIRST_SCREEN_LINES) + README;
  assert.throws(() => readmeCommands(late), FreshCheckError);
});

Deno.test("environment variables go before the command as a user types them", () => {
  assert.equal(
    withEnv("npx deno task bench", { TOTAL: "20", RECIPIENTS: "10" }),
    "TOTAL=20 RECIPIENTS=10 npx deno task bench",
  );
  assert.equal(withEnv("npx deno task test", {}), "npx deno task test");
});
