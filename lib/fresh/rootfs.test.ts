/** apt's Debian mirror, which debootstrap uses. */
import assert from "node:assert/strict";
import { debianMirror } from "./rootfs.ts";

Deno.test("the mirror is apt's: deb822 stanza of the suite, else sources.list", () => {
  const deb822 = `Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main

Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
`;
  assert.equal(
    debianMirror({ deb822, list: null }),
    "http://mirror.example/debian",
  );
  assert.equal(
    debianMirror({
      deb822: null,
      list: "# old\ndeb [arch=amd64] http://old.example/debian bookworm main\n",
    }),
    "http://old.example/debian",
  );
  assert.equal(debianMirror({ deb822: null, list: null }), null);
  assert.equal(debianMirror({ deb822, list: null }, "trixie"), null);
});
