/**
 * The Debian packages a server is fetched from: apt-cache's dependencies
 * read as groups of alternatives.  (Each fetching backend's test of its
 * fetcher is beside it in `drivers/`.)
 */
import assert from "node:assert/strict";
import { dependencyGroups } from "./debian_packages.ts";

Deno.test("apt-cache's dependencies are read as groups of alternatives", () => {
  const output = [
    "redis-tools",
    "  Depends: adduser",
    " |Depends: libsystemd0",
    "  Depends: libelogind0",
    "    libelogind0",
    "redis-server",
    "  PreDepends: init-system-helpers",
    "  Depends: <debconf-2.0>",
    "    cdebconf",
  ].join("\n");
  assert.deepEqual(dependencyGroups(output), [
    ["adduser"],
    ["libsystemd0", "libelogind0"],
    ["init-system-helpers"],
    ["<debconf-2.0>"],
  ]);
});
