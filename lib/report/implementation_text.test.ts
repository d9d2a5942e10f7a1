import assert from "node:assert/strict";
import { implementationText, queueCodeLines } from "./implementation_text.ts";
import type { Implementation } from "../results/mod.ts";

const fromTree = (ref: Implementation["ref"]): Implementation => ({
  specifier: "@fedify/redis",
  resolved: "packages/redis/src/mod.ts",
  official: ref?.tag != null,
  version: "2.3.5",
  origin: "fedify-source",
  ref,
});

Deno.test("which code ran, in words: registry, source tree at a tag or a commit, stand-in", () => {
  assert.equal(
    implementationText({
      specifier: "@fedify/redis",
      resolved: "@fedify/redis@1.8.7",
      official: true,
      version: "1.8.7",
      origin: "registry",
    }),
    "`@fedify/redis@1.8.7` from the registry",
  );
  assert.equal(
    implementationText(
      fromTree({ commit: "a".repeat(40), tag: "2.3.5", dirty: false }),
    ),
    "`@fedify/redis` 2.3.5 from a Fedify source tree at tag 2.3.5 " +
      "(`packages/redis/src/mod.ts`)",
  );
  assert.equal(
    implementationText(
      fromTree({ commit: "b".repeat(40), tag: null, dirty: true }),
    ),
    "`@fedify/redis` 2.3.5 from a Fedify source tree at commit " +
      "bbbbbbbbbbbb (not a release), with uncommitted changes " +
      "(`packages/redis/src/mod.ts`)",
  );
  assert.match(
    implementationText(fromTree({ commit: null, tag: null, dirty: null })),
    /not a git checkout; its package declares that version/,
  );
  assert.match(
    implementationText(
      fromTree({
        commit: null,
        tag: null,
        dirty: null,
        noCommitReason: "not a git checkout",
      }),
    ),
    /\(not a git checkout; its package declares that version\)/,
  );
  // A checkout whose commit could not be read is not called no checkout.
  assert.match(
    implementationText(
      fromTree({
        commit: null,
        tag: null,
        dirty: null,
        noCommitReason: "git not found",
      }),
    ),
    /\(no commit recorded: git not found; its package declares that version\)/,
  );
  assert.equal(
    implementationText({
      specifier: "@fedify/amqp",
      resolved: "drivers/standins/amqp.ts",
      official: false,
      version: null,
      origin: "stand-in",
    }),
    "this project's stand-in for `@fedify/amqp` (`drivers/standins/amqp.ts`)",
  );
});

Deno.test("the queue code list has one line per driver, the first recorded", () => {
  const tagged = fromTree({ commit: null, tag: "2.3.5", dirty: false });
  assert.deepEqual(
    queueCodeLines([
      { driver: "none", implementation: null },
      { driver: "redis", implementation: tagged },
      { driver: "redis", implementation: fromTree(undefined) },
      { driver: "in-process" },
    ]),
    [
      "- **Queue code**:",
      "  - `redis`: `@fedify/redis` 2.3.5 from a Fedify source tree at tag " +
      "2.3.5 (`packages/redis/src/mod.ts`)",
    ],
  );
  assert.deepEqual(queueCodeLines([{ driver: "none" }]), []);
});
