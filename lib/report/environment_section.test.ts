import assert from "node:assert/strict";
import { provenanceLines, renderEnvironment } from "./environment_section.ts";
import type { Environment } from "../results/mod.ts";
import { calibration, ENVIRONMENT } from "../testing/comparison_fixtures.ts";

Deno.test("renderEnvironment: Machine and Software sections", () => {
  const env: Environment = {
    cpu: { model: "AMD Ryzen 7 7700X 8-Core Processor", cores: 16, mhz: 4500 },
    memoryBytes: 64 * 2 ** 30,
    os: {
      name: "Debian GNU/Linux 12 (bookworm)",
      kernel: "6.1.0-18-amd64",
      arch: "x86_64",
    },
    runtime: { deno: "2.9.6", v8: "15.0.245.2", typescript: "6.0.3" },
    packages: {
      "@fedify/fedify": "2.3.6",
      "@fedify/vocab": "2.3.6",
      "@logtape/logtape": "1.3.11, 2.4.2",
      "mystery": "unknown",
    },
    servers: { redis: "7.0.15", postgres: "15.6" },
    senderKeys: "RSA-2048 (RSASSA-PKCS1-v1_5, HTTP Signatures) + Ed25519",
    fanout: "auto",
  };
  const text = renderEnvironment(env);
  for (
    const line of [
      "### Machine",
      "- **CPU**: AMD Ryzen 7 7700X 8-Core Processor, 16 logical cores, " +
      "4,500 MHz",
      "- **Memory**: 64.0 GiB",
      "- **OS**: Debian GNU/Linux 12 (bookworm)",
      "- **Kernel**: 6.1.0-18-amd64",
      "- **Architecture**: x86_64",
      "### Software",
      "- **Deno**: 2.9.6",
      "- **V8**: 15.0.245.2",
      "- **TypeScript**: 6.0.3",
      "  - `@fedify/fedify@2.3.6`",
      "  - `@logtape/logtape@1.3.11`, `@logtape/logtape@2.4.2`",
      "  - `mystery` (version unknown)",
      "  - redis 7.0.15",
      "  - postgres 15.6",
      "- **Sender keys**: RSA-2048 (RSASSA-PKCS1-v1_5, HTTP Signatures) + " +
      "Ed25519",
    ]
  ) {
    assert.ok(text.split("\n").includes(line), `has line: ${line}`);
  }
  assert.match(text, /^- \*\*Fanout\*\*: `auto` \(/m);
  assert.ok(text.indexOf("### Machine") < text.indexOf("### Software"));

  const bare = renderEnvironment({
    ...env,
    cpu: { model: "unknown", cores: 0, mhz: null },
    memoryBytes: 0,
    servers: {},
  });
  assert.ok(bare.includes("- **CPU**: unknown, cores unknown\n"));
  assert.ok(bare.includes("- **Memory**: unknown\n"));
  assert.ok(bare.includes("- **Queue servers**: none"));
});

Deno.test("renderEnvironment shows the calibration in the Machine section", () => {
  const env = ENVIRONMENT;
  assert.doesNotMatch(renderEnvironment(env), /Calibration/);
  const text = renderEnvironment({
    ...env,
    calibration: calibration(600, 9000),
  });
  assert.match(text, /Architecture\*\*: x86_64\n- \*\*Calibration\*\*/);
  assert.match(text, /loopback POSTs 9,000\/s \(8,820–9,180\)\n\n### Software/);
});

Deno.test("the report names this project's commit, or says why none was recorded", () => {
  const line = (env: Parameters<typeof provenanceLines>[0]) =>
    provenanceLines(env)[0];
  assert.equal(
    line({ commit: { sha: "a".repeat(40), dirty: false } }),
    `- **This project's commit**: \`${"a".repeat(40)}\``,
  );
  for (const reason of ["not a git checkout", "git not found"]) {
    assert.equal(
      line({ commit: null, noCommitReason: reason }),
      `- **This project's commit**: none recorded (${reason})`,
    );
  }
  // Files from before the reason was recorded.
  assert.equal(
    line({ commit: null }),
    "- **This project's commit**: none recorded (not a git checkout, or " +
      "git missing)",
  );
  // Files from before the commit was recorded.
  assert.deepEqual(provenanceLines({}), []);
});
