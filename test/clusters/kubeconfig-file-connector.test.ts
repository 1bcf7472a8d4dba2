import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { KubeconfigFileError, UnknownClusterError } from "../../shared/clusters/errors.ts";
import { createKubeconfigFileConnector } from "../../shared/clusters/kubeconfig-file-connector.ts";

const dir = mkdtempSync(join(tmpdir(), "kubeconfig-file-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(overrides: Record<string, unknown> = {}, clusterExtra: Record<string, unknown> = {}) {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "one",
        cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": "eA==", ...clusterExtra },
      },
      { name: "two", cluster: { server: "https://127.0.0.2:6443", "certificate-authority-data": "eA==" } },
    ],
    users: [{ name: "u", user: { token: "static-token" } }],
    contexts: [
      { name: "ctx-one", context: { cluster: "one", user: "u" } },
      { name: "ctx-two", context: { cluster: "two", user: "u" } },
    ],
    "current-context": "ctx-one",
    ...overrides,
  });
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test("the current context is the default cluster; any context of the file can be asked for", async () => {
  const connector = createKubeconfigFileConnector({ path: write("a.yaml", kubeconfig()) });
  assert.equal(connector.cluster, "ctx-one");
  assert.deepEqual(connector.list(), [{ name: "ctx-one", region: "" }]);
  const one = await connector.kubeConfig("ctx-one");
  assert.equal(one.getCurrentCluster()?.server, "https://127.0.0.1:6443");
  assert.equal(await connector.kubeConfig("ctx-one"), one, "cached");
  const two = await connector.kubeConfig("ctx-two");
  assert.equal(two.getCurrentCluster()?.server, "https://127.0.0.2:6443");
  await assert.rejects(connector.kubeConfig("ctx-three"), (error: unknown) => {
    assert.ok(error instanceof UnknownClusterError);
    assert.match(error.message, /unknown cluster "ctx-three" \(known: ctx-one, ctx-two\)/);
    return true;
  });
});

test("--context selects another context; invalidate() re-reads the file", async () => {
  const path = write("b.yaml", kubeconfig());
  const connector = createKubeconfigFileConnector({ path, context: "ctx-two" });
  assert.equal(connector.cluster, "ctx-two");
  const before = await connector.kubeConfig("ctx-two");
  writeFileSync(path, kubeconfig({ users: [{ name: "u", user: { token: "rotated-token" } }] }));
  assert.equal(await connector.kubeConfig("ctx-two"), before);
  connector.invalidate("ctx-two");
  const after = await connector.kubeConfig("ctx-two");
  assert.equal(after.getCurrentUser()?.token, "rotated-token");
});

const bad: [string, () => Parameters<typeof createKubeconfigFileConnector>[0], RegExp][] = [
  ["a missing file", () => ({ path: join(dir, "missing.yaml") }), /cannot read kubeconfig .*missing\.yaml \(ENOENT\)/],
  ["not YAML", () => ({ path: write("c.yaml", "clusters: [") }), /kubeconfig .*c\.yaml is not valid/],
  [
    "no current-context",
    () => ({ path: write("d.yaml", kubeconfig({ "current-context": undefined })) }),
    /has no current-context: pass --context \(available: ctx-one, ctx-two\)/,
  ],
  [
    "an unknown --context",
    () => ({ path: write("e.yaml", kubeconfig()), context: "nope" }),
    /has no context "nope" \(available: ctx-one, ctx-two\)/,
  ],
  [
    "insecure-skip-tls-verify",
    () => ({ path: write("f.yaml", kubeconfig({}, { "insecure-skip-tls-verify": true })) }),
    /sets insecure-skip-tls-verify; this tool never disables TLS verification/,
  ],
];

for (const [label, options, message] of bad) {
  test(`a kubeconfig file with ${label} is a clear KubeconfigFileError`, () => {
    assert.throws(
      () => createKubeconfigFileConnector(options()),
      (error: unknown) => {
        assert.ok(error instanceof KubeconfigFileError, String(error));
        assert.match(error.message, message);
        return true;
      },
    );
  });
}
