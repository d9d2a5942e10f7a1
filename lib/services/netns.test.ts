import assert from "node:assert/strict";
import { missingBecause } from "../testing/tools.ts";
import { leftovers } from "../system/leftovers.ts";
import { DENO_LAUNCHER } from "../system/process.ts";
import { pinnedLauncher } from "./cpu_pinning.ts";
import {
  benchNamespaces,
  namespacedLauncher,
  NamespaceHosts,
  type NamespaceProbe,
  namespacesUnavailable,
  sweepStaleNamespaces,
  SYSTEM_PROBE,
} from "./netns.ts";

const canMake = !missingBecause(
  "the network namespace tests",
  namespacesUnavailable(),
);

/** Ours that exist now, among every bench's. */
async function ours(hosts: NamespaceHosts) {
  const { namespaces, links } = await benchNamespaces();
  return {
    namespaces: hosts.hosts.filter((h) => namespaces.includes(h.namespace)),
    links: hosts.hosts.filter((h) => links.includes(h.link)),
  };
}

async function ip(args: string[]): Promise<{ ok: boolean; out: string }> {
  const output = await new Deno.Command("ip", { args, stderr: "null" })
    .output();
  return {
    ok: output.success,
    out: new TextDecoder().decode(output.stdout),
  };
}

Deno.test("without root or ip, namespaces are unavailable and say the fix", async () => {
  const notRoot: NamespaceProbe = { uid: () => 1000, ip: () => "/sbin/ip" };
  assert.match(
    namespacesUnavailable(notRoot)!,
    /^network namespaces need root: the bench runs as uid 1000; run it as root \(sudo\) or drop --worker-hosts$/,
  );
  const noIp: NamespaceProbe = { uid: () => 0, ip: () => undefined };
  assert.match(namespacesUnavailable(noIp)!, /install iproute2/);
  await assert.rejects(
    () => NamespaceHosts.create(2, notRoot),
    /network namespaces need root/,
  );
  // Nothing to sweep without root: no ip command is run.
  assert.deepEqual(await sweepStaleNamespaces(notRoot), []);
});

Deno.test("the namespaced launcher composes with the pinned one", () => {
  const launcher = pinnedLauncher(
    namespacedLauncher(DENO_LAUNCHER, "fqb-ns-1-2-abch0", "/sbin/ip"),
    [0],
    "/usr/bin/taskset",
  );
  assert.equal(launcher.command, "/usr/bin/taskset");
  const args = launcher.args("/s.ts", "{}");
  assert.deepEqual(args.slice(0, 7), [
    "-c",
    "0",
    "/sbin/ip",
    "netns",
    "exec",
    "fqb-ns-1-2-abch0",
    Deno.execPath(),
  ]);
  assert.deepEqual(args.slice(-2), ["/s.ts", "{}"]);
});

Deno.test({
  name: "namespace hosts reach the bench's side and are removed on close",
  ignore: !canMake,
  async fn() {
    const hosts = await NamespaceHosts.create(2);
    try {
      assert.equal(hosts.hosts.length, 2);
      const [a, b] = hosts.hosts;
      assert.notEqual(a.address, b.address);
      assert.match(a.namespace, /^fqb-ns-\d+-\d+-[0-9a-f]{6}h0$/);
      assert.deepEqual(await ours(hosts), {
        namespaces: hosts.hosts,
        links: hosts.hosts,
      });
      // Host 1 has its own address and a default route via its own link.
      const addr = await ip(["-n", b.namespace, "-4", "-o", "addr", "show"]);
      assert.match(addr.out, new RegExp(`inet ${b.address}/30`));
      assert.match(addr.out, /inet 127\.0\.0\.1\/8/);
      const route = await ip(["-n", b.namespace, "route", "show", "default"]);
      assert.match(route.out, new RegExp(`via ${b.rootAddress}`));
      // A process in host 1 reaches a listener on the gateway (host 0's
      // link's address, in the bench's namespace).
      const listener = Deno.listen({ hostname: hosts.gateway, port: 0 });
      const accepted = listener.accept().then((conn) => {
        const remote = conn.remoteAddr as Deno.NetAddr;
        conn.close();
        return remote.hostname;
      });
      const port = (listener.addr as Deno.NetAddr).port;
      const launcher = hosts.launcher({
        command: "bash",
        args: (script: string, _spec: string) => ["-c", script],
      }, 1);
      const reach = await new Deno.Command(launcher.command, {
        args: launcher.args(
          `exec 3<>/dev/tcp/${hosts.gateway}/${port}; ` +
            "readlink /proc/self/ns/net",
          "",
        ),
        stdout: "piped",
      }).output();
      assert.ok(reach.success);
      assert.equal(await accepted, b.address);
      listener.close();
      const inside = new TextDecoder().decode(reach.stdout).trim();
      assert.notEqual(inside, Deno.readLinkSync("/proc/self/ns/net"));
    } finally {
      await hosts.close();
    }
    assert.deepEqual(await ours(hosts), { namespaces: [], links: [] });
  },
});

Deno.test({
  name: "a failed creation and a forced exit leave no namespace or link",
  ignore: !canMake,
  async fn() {
    // An ip that fails at the default route of the first host, half made.
    const dir = await Deno.makeTempDir();
    const fake = `${dir}/ip`;
    await Deno.writeTextFile(
      fake,
      `#!/bin/sh\ncase "$*" in *"route add"*) echo injected >&2; exit 2;; ` +
        `esac\nexec ${SYSTEM_PROBE.ip()} "$@"\n`,
    );
    await Deno.chmod(fake, 0o755);
    const failing: NamespaceProbe = { uid: () => 0, ip: () => fake };
    // This process's: other test files' benches make their own meanwhile.
    const own = async () => {
      const { namespaces, links } = await benchNamespaces();
      return [...namespaces, ...links].filter((name) =>
        name.startsWith(`fqb-ns-${Deno.pid}-`) || name.includes(`${Deno.pid}x`)
      );
    };
    const before = await own();
    // More hosts than 10.231.0.0/16 has /30s: refused before any is made.
    await assert.rejects(
      () => NamespaceHosts.create(300),
      /only \d+ subnets of 10\.231\.0\.0\/16 are free/,
    );
    assert.deepEqual(await own(), before);
    await assert.rejects(
      () => NamespaceHosts.create(2, failing),
      /ip -n fqb-ns-\S+ route add default via 10\.231\.\d+\.1 failed: injected/,
    );
    assert.deepEqual(await own(), before);
    await Deno.remove(dir, { recursive: true });

    // The forced exit's cleanup removes what a run made.
    const hosts = await NamespaceHosts.create(1);
    assert.equal((await ours(hosts)).namespaces.length, 1);
    leftovers.forceCleanup();
    assert.deepEqual(await ours(hosts), { namespaces: [], links: [] });
    await hosts.close();
  },
});

Deno.test({
  name: "sweepStaleNamespaces removes a dead bench's namespace and link only",
  ignore: !canMake,
  async fn() {
    // A process that has exited: its id is no longer running.
    const child = new Deno.Command("true").spawn();
    const { pid } = child;
    await child.status;
    const namespace = `fqb-ns-${pid}-1-dead00h0`;
    const link = `fqv${pid}x0`;
    await ip(["netns", "add", namespace]);
    await ip([
      "link",
      "add",
      link,
      "type",
      "veth",
      "peer",
      "name",
      `fqp${pid}x0`,
    ]);
    const live = await NamespaceHosts.create(1);
    try {
      const removed = await sweepStaleNamespaces();
      assert.ok(removed.includes(namespace), `${removed}`);
      // Either end removes the pair.
      assert.ok(
        removed.includes(link) || removed.includes(`fqp${pid}x0`),
        `${removed}`,
      );
      const left = await benchNamespaces();
      assert.ok(!left.namespaces.includes(namespace));
      assert.ok(!left.links.includes(link));
      // This bench's, which still runs, stay.
      assert.deepEqual(await ours(live), {
        namespaces: live.hosts,
        links: live.hosts,
      });
    } finally {
      await live.close();
      await ip(["netns", "delete", namespace]);
      await ip(["link", "delete", link]);
    }
  },
});
