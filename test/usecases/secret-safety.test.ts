/**
 * A Secret value cannot leave any use case, whatever adapter calls it: the API, the CLI, an audit worker or
 * chatops all get what these functions return, so the check is made on their return values (every field, as
 * JSON), for every use case that returns release content: manifest, history, list, import summary, status.
 * The status read goes to the simulated EKS, where the same Secret is live.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { registryScope } from "../../shared/clusters/scope.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release } from "../../shared/release/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseHistory } from "../../shared/usecases/history.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { listReleases } from "../../shared/usecases/list.ts";
import { getManifest } from "../../shared/usecases/manifest.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "../status/sim-connector.ts";
import { simulatedEksForFile } from "../support/sim.ts";

const CLUSTER = "vault";
const VALUE = "Zq8-very-secret-value-7Hk";
const ENCODED = Buffer.from(VALUE).toString("base64");

const secretDocument = [
  "# Source: app/templates/secret.yaml",
  "apiVersion: v1",
  "kind: Secret",
  "metadata:",
  "  name: creds",
  "  annotations:",
  `    kubectl.kubernetes.io/last-applied-configuration: '${JSON.stringify({ kind: "Secret", data: { password: ENCODED } })}'`,
  "type: Opaque",
  "data:",
  `  password: ${ENCODED}`,
  "stringData:",
  `  token: ${VALUE}`,
].join("\n");

function release(version: number, status: "deployed" | "superseded"): Release {
  return {
    name: "app",
    namespace: "prod",
    version,
    info: { status, description: "Upgrade complete", last_deployed: "2026-12-02T14:40:15Z" },
    chart: { metadata: { name: "app", version: "1.0.0", appVersion: "1" } },
    config: { database: { password: VALUE } },
    manifest: `---\n${secretDocument}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n`,
    hooks: [
      {
        name: "hook-creds",
        kind: "Secret",
        path: "app/templates/hook.yaml",
        manifest: secretDocument,
        events: ["pre-upgrade"],
      },
    ],
    labels: { owner: "helm" },
  };
}

function assertNoSecret(what: string, value: unknown): void {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  assert.ok(!text.includes(VALUE), `${what}: the plain Secret value leaked`);
  assert.ok(!text.includes(ENCODED), `${what}: the base64 Secret value leaked`);
}

const store = new MemoryReleaseStore();
const sim = simulatedEksForFile({ clusters: [{ name: CLUSTER }], seed: 11 }, (started) => {
  started.cluster(CLUSTER).apply([
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "creds", namespace: "prod" },
      type: "Opaque",
      data: { password: ENCODED },
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "prod" }, data: { mode: "fast" } },
  ]);
});

test("no use case returns a Secret value: import summary, manifest, history, list, status", async () => {
  const clusters = registryScope([{ name: CLUSTER, region: "eu-west-1" }]);
  // Two good revisions, one conflicting re-import of revision 1 and one damaged payload that holds the value.
  const conflicting = { ...release(1, "superseded"), manifest: `---\n${secretDocument.replace("creds", "other")}\n` };
  const damaged = encodeHelmSecret(release(3, "deployed"));
  (damaged as { data: Record<string, string> }).data.release = Buffer.from(
    `{"name":"app","config":{"password":"${VALUE}"`,
  ).toString("base64");
  const document = {
    apiVersion: "v1",
    kind: "List",
    items: [
      encodeHelmSecret(release(1, "superseded")),
      encodeHelmSecret(release(2, "deployed")),
      encodeHelmSecret(conflicting),
      damaged,
    ],
  };
  const summary = await importReleases({ store, clusters, logger: silentLogger }, { cluster: CLUSTER, document });
  assert.equal(summary.imported, 2);
  assert.equal(summary.failed, 2, JSON.stringify(summary.results));
  assertNoSecret("import summary", summary);

  const key = { cluster: CLUSTER, namespace: "prod", name: "app" };
  for (const revision of [undefined, 1, 2]) {
    const manifest = await getManifest({ store, clusters }, key, revision);
    assert.match(manifest.manifest, /password: <redacted>/);
    assert.match(manifest.manifest, /mode: fast/, "other documents are kept");
    assertNoSecret(`manifest of revision ${revision ?? "latest"}`, manifest);
  }

  const history = await releaseHistory({ store, clusters }, key);
  assert.equal(history.items.length, 2);
  assertNoSecret("history", history);

  for (const filter of [{ cluster: CLUSTER }, {}]) {
    const listed = await listReleases({ store, clusters }, filter);
    assert.equal(listed.items.length, 1);
    assertNoSecret("list", listed);
  }

  const kube = createKubeReader({ connector: simConnector(sim()) });
  const report = await releaseStatus({ store, kube, logger: silentLogger }, key).finally(() => kube.close());
  assert.equal(report.resources.length, 2);
  assertNoSecret("status report", report);
});
