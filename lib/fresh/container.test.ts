/** The `docker run` arguments, and which containers are stale. */
import assert from "node:assert/strict";
import { dockerRunArgs, isStaleContainer } from "./container.ts";
import {
  CA_BUNDLE,
  CONTAINER_HOME,
  CONTAINER_PROJECT,
  LABEL,
  LABEL_VALUE,
} from "./layout.ts";

Deno.test("docker run: labelled, host network, CA bundle read-only, mounts, sh -c", () => {
  const args = dockerRunArgs({
    name: "fqb-fresh-1-1",
    image: "img:1",
    projectDir: "/tmp/clone",
    homeDir: "/cache/home",
    user: { uid: 1000, gid: 1000 },
    env: { TOTAL: "20" },
    command: "npx --yes deno@2.9.6 task bench",
  });
  const pairs = (flag: string) =>
    args.flatMap((a, i) => a === flag ? [args[i + 1]] : []);
  assert.equal(args[0], "run");
  assert.ok(!args.includes("--rm"), "removed by the runner, after its logs");
  assert.deepEqual(pairs("--name"), ["fqb-fresh-1-1"]);
  assert.deepEqual(pairs("--label"), [`${LABEL}=${LABEL_VALUE}`]);
  assert.deepEqual(pairs("--network"), ["host"]);
  assert.ok(args.includes("--init"));
  assert.deepEqual(pairs("--user"), ["1000:1000"]);
  assert.deepEqual(pairs("--volume"), [
    `${CA_BUNDLE}:${CA_BUNDLE}:ro`,
    `/cache/home:${CONTAINER_HOME}`,
    `/tmp/clone:${CONTAINER_PROJECT}`,
  ]);
  assert.deepEqual(pairs("--workdir"), [CONTAINER_PROJECT]);
  const env = pairs("--env");
  for (const name of ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "DENO_CERT"]) {
    assert.ok(env.includes(`${name}=${CA_BUNDLE}`), name);
  }
  assert.ok(env.includes(`HOME=${CONTAINER_HOME}`));
  assert.ok(env.includes("TOTAL=20"));
  assert.deepEqual(args.slice(-4), [
    "img:1",
    "sh",
    "-c",
    "npx --yes deno@2.9.6 task bench",
  ]);
});

Deno.test("a container is stale when the check that named it runs no more", () => {
  const running = (pid: number) => pid === 42;
  assert.equal(isStaleContainer("fqb-fresh-42-1", running), false);
  assert.equal(isStaleContainer("fqb-fresh-43-2", running), true);
  assert.equal(isStaleContainer("renamed", running), true);
  assert.equal(isStaleContainer(`fqb-fresh-${Deno.pid}-1`), false);
});
