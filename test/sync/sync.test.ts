/**
 * The release sync against the simulated EKS (HTTPS/HTTP2, chunked LISTs, tokens, faults) with the in-memory
 * stores: incremental runs, Helm's own changes, removals, and every fault the issue names.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { encodeHelmConfigMap, encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import type { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import type { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import type { SyncInput } from "../../shared/usecases/sync.ts";
import { syncOnSimulator } from "../support/sync-sim.ts";

const CLUSTER = "synced";
let store: MemoryReleaseStore;
let syncState: MemorySyncStateStore;
const stack = syncOnSimulator(CLUSTER);
const { cluster, key } = stack;

function release(name: string, namespace: string, version: number, status: ReleaseStatus = "deployed"): Release {
  return {
    name,
    namespace,
    version,
    manifest: `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-config\ndata:\n  rev: "${version}"\n`,
    info: {
      status,
      last_deployed: "2026-12-03T10:00:00Z",
      description: version === 1 ? "Install complete" : "Upgrade complete",
    },
    chart: { metadata: { name: "demo", version: "0.1.0" } },
  };
}

const namespaceObject = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
const sync = (input: Partial<SyncInput> = {}) => stack.sync({ store, syncState }, input);
const removeObject = (kind: "Secret" | "ConfigMap", namespace: string, name: string, version: number) =>
  cluster().remove("v1", kind, `sh.helm.release.v1.${name}.v${version}`, namespace);

describe("release sync", { concurrency: false }, () => {
  beforeEach(() => {
    ({ store, syncState } = stack.fresh());
  });

  test("first run imports every revision (both drivers); a second run only LISTs", async () => {
    cluster().apply([
      namespaceObject("shop"),
      encodeHelmSecret(release("api", "shop", 1, "superseded")),
      encodeHelmSecret(release("api", "shop", 2)),
      encodeHelmConfigMap(release("legacy", "shop", 1)),
    ]);
    const first = await sync();
    assert.equal(first.complete, true);
    assert.deepEqual([first.listed, first.fetched, first.imported, first.failed, first.removed], [3, 3, 3, 0, 0]);
    assert.equal((await store.getLatest(key("shop", "api"))).version, 2);
    assert.equal((await store.getLatest(key("shop", "legacy"))).info?.status, "deployed");

    cluster().resetStats();
    const second = await sync();
    assert.deepEqual([second.listed, second.fetched, second.imported, second.unchanged], [3, 0, 0, 3]);
    const requests = cluster().stats().log;
    assert.equal(requests.length, 2, "one LIST page per driver, no GET");
    assert.ok(
      requests.every(
        (r) => /labelSelector=owner%3Dhelm/.test(r.query) && r.accept.includes("PartialObjectMetadataList"),
      ),
    );
    assert.equal(second.requests, 2);
  });

  test("helm upgrade: one GET for the new revision, the superseded one relabelled without a GET; rollback and uninstall", async () => {
    cluster().apply([namespaceObject("web"), encodeHelmSecret(release("front", "web", 1))]);
    await sync();
    // What helm upgrade writes: revision 2 deployed, revision 1 rewritten as superseded.
    cluster().apply([
      encodeHelmSecret(release("front", "web", 1, "superseded")),
      encodeHelmSecret(release("front", "web", 2)),
    ]);
    cluster().resetStats();
    const upgraded = await sync();
    assert.deepEqual([upgraded.fetched, upgraded.imported, upgraded.updated], [1, 1, 1]);
    assert.equal(
      cluster()
        .stats()
        .log.filter((r) => r.path.includes("/secrets/")).length,
      1,
    );
    assert.deepEqual(
      (await store.history(key("web", "front"))).items.map((r) => [r.version, r.info?.status]),
      [
        [2, "deployed"],
        [1, "superseded"],
      ],
    );
    // --history-max pruned revision 1.
    removeObject("Secret", "web", "front", 1);
    const pruned = await sync();
    assert.equal(pruned.removed, 1);
    assert.deepEqual(pruned.removals[0], {
      release: "web/front",
      revision: 1,
      origin: "sync",
      reason: "its storage object is gone (helm uninstall, or --history-max pruning)",
    });
    assert.deepEqual(
      (await store.history(key("web", "front"))).items.map((r) => r.version),
      [2],
    );
    // helm uninstall: every object goes; Helm then says "release: not found".
    removeObject("Secret", "web", "front", 2);
    const uninstalled = await sync();
    assert.equal(uninstalled.removed, 1);
    await assert.rejects(store.getLatest(key("web", "front")), { name: "ReleaseNotFoundError" });
    // Installed again: revision 1 with new content replaces nothing stale.
    cluster().apply([encodeHelmSecret({ ...release("front", "web", 1), manifest: "" })]);
    const again = await sync();
    assert.deepEqual([again.imported, again.failed], [1, 0]);
    assert.equal((await store.getLatest(key("web", "front"))).manifest, "");
  });

  test("a release imported by hand that the cluster does not hold is removed, and the summary says so", async () => {
    await store.putRevision(CLUSTER, release("ghost", "default", 1, "superseded"));
    await store.putRevision(CLUSTER, release("ghost", "default", 2));
    const summary = await sync({ namespaces: ["default"] });
    assert.equal(summary.complete, true);
    assert.deepEqual(
      summary.removals.map((r) => [r.release, r.revision, r.origin]),
      [
        ["default/ghost", 2, "import"],
        ["default/ghost", 1, "import"],
      ],
    );
    await assert.rejects(store.getLatest(key("default", "ghost")), { name: "ReleaseNotFoundError" });
  });

  test("bad objects fail alone with their reasons: corrupt payload, gzip bomb, oversize object", async () => {
    const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024));
    const labels = (name: string) => ({ owner: "helm", name, status: "deployed", version: "1" });
    const secret = (name: string, release: string) => ({
      apiVersion: "v1",
      kind: "Secret",
      type: "helm.sh/release.v1",
      metadata: { name: `sh.helm.release.v1.${name}.v1`, namespace: "bad", labels: labels(name) },
      data: { release: Buffer.from(release, "latin1").toString("base64") },
    });
    cluster().apply([
      namespaceObject("bad"),
      secret("corrupt", "not base64 at all!"),
      secret("bomb", bomb.toString("base64")),
      secret("huge", Buffer.alloc(5 * 1024 * 1024, 7).toString("base64")),
      encodeHelmSecret(release("fine", "bad", 1)),
    ]);
    const summary = await sync({ namespaces: ["bad"] });
    assert.deepEqual([summary.imported, summary.failed], [1, 3]);
    const reasons = Object.fromEntries(
      summary.failures.map((f) => [/release\.v1\.(\w+)\.v1/.exec(f.object)?.[1], f.error]),
    );
    assert.match(reasons.corrupt, /not valid base64/);
    assert.match(reasons.bomb, /inflates beyond/);
    assert.match(reasons.huge, /over the 4194304-byte limit/);
    assert.ok(
      summary.failures.every((f) => !f.error.includes("AAAA")),
      "no payload echoed",
    );
    // Not fetched again until they change, still reported.
    cluster().resetStats();
    const again = await sync({ namespaces: ["bad"] });
    assert.equal(again.fetched, 0);
    assert.equal(again.failed, 3);
    assert.match(again.failures[0].error, /unchanged since an earlier run/);
  });

  test("an expired continue token (410) restarts the LIST; the run still completes", async () => {
    cluster().apply([
      namespaceObject("many"),
      ...Array.from({ length: 7 }, (_, i) => encodeHelmSecret(release(`r${i}`, "many", 1))),
    ]);
    let expired = false;
    const summary = await sync({
      namespaces: ["many"],
      pageSize: 2,
      onProgress: () => {
        if (!expired) {
          expired = true;
          cluster().expireContinueTokens();
        }
      },
    });
    assert.equal(summary.restarts, 1);
    assert.equal(summary.complete, true);
    assert.equal(summary.imported, 7);
    assert.equal(summary.fetched, 7, "objects seen before the restart are not fetched again");
  });

  test("a cluster that refuses list secrets: a clear summary, nothing removed, nothing thrown", async () => {
    await store.putRevision(CLUSTER, release("kept", "default", 1));
    cluster().deny({ resource: "secrets", verb: "list" });
    const summary = await sync();
    assert.equal(summary.complete, false);
    assert.match(
      summary.forbidden[0],
      /^list secrets \(all namespaces\): secrets is forbidden: User ".*" cannot list resource "secrets"/,
    );
    assert.equal(summary.removed, 0);
    assert.match(summary.hint ?? "", /grant list\/get on secrets/);
    assert.equal((await store.getLatest(key("default", "kept"))).version, 1);
  });

  test("a server that hangs mid-LIST: the deadline stops the run with its cursor, the next run resumes and finishes", async () => {
    cluster().apply([
      namespaceObject("slow"),
      ...Array.from({ length: 5 }, (_, i) => encodeHelmSecret(release(`s${i}`, "slow", 1))),
    ]);
    cluster().faults.set({ latencyMs: 60_000, match: (_path, query) => query.has("continue") });
    const started = Date.now();
    const cut = await sync({ namespaces: ["slow"], pageSize: 2, deadline: Date.now() + 1_500 });
    assert.ok(Date.now() - started < 10_000, "the deadline ended the hanging LIST");
    assert.equal(cut.complete, false);
    assert.equal(cut.imported, 2);
    assert.match(cut.hint ?? "", /next run continues/);
    assert.equal((await syncState.state(CLUSTER)).cursor?.chain, 0);
    cluster().faults.clear();
    const resumed = await sync({ namespaces: ["slow"], pageSize: 2 });
    assert.equal(resumed.resumed, true);
    assert.equal(resumed.complete, true);
    assert.equal(resumed.imported + cut.imported, 5);
    assert.equal((await syncState.state(CLUSTER)).cursor, undefined);
  });

  test("two syncs of one cluster at once: one runs, the other is told; no duplicate, no lost revision", async () => {
    cluster().apply([
      namespaceObject("twice"),
      ...[1, 2, 3].map((v) => encodeHelmSecret(release("t", "twice", v, v === 3 ? "deployed" : "superseded"))),
    ]);
    const results = await Promise.allSettled([sync({ namespaces: ["twice"] }), sync({ namespaces: ["twice"] })]);
    const done = results.filter((r) => r.status === "fulfilled");
    const busy = results.filter((r) => r.status === "rejected");
    assert.equal(done.length, 1);
    assert.equal(busy.length, 1);
    assert.match(String((busy[0] as PromiseRejectedResult).reason.message), /already running/);
    assert.deepEqual(
      (await store.history(key("twice", "t"))).items.map((r) => r.version),
      [3, 2, 1],
    );
  });

  test("a run killed mid-way (lease never released, cursor kept): the next run after the lease finishes it", async () => {
    cluster().apply([
      namespaceObject("killed"),
      ...Array.from({ length: 4 }, (_, i) => encodeHelmSecret(release(`k${i}`, "killed", 1))),
    ]);
    // The killed run: held the lease and saved a cursor after its first page.
    await syncState.acquireLease(CLUSTER, "dead-process", Date.now() + 300, Date.now());
    await assert.rejects(sync({ namespaces: ["killed"] }), { code: "SyncRunning" });
    await new Promise((resolve) => setTimeout(resolve, 350));
    const summary = await sync({ namespaces: ["killed"] });
    assert.equal(summary.complete, true);
    assert.equal(summary.imported, 4);
  });

  test("sync: false and the namespace allow-list", async () => {
    await assert.rejects(sync({ policy: { enabled: false } }), { code: "SyncDisabled" });
    await assert.rejects(sync({ policy: { enabled: true, namespaces: ["a"] }, namespaces: ["b"] }), {
      code: "SyncNamespaceNotAllowed",
    });
    const limited = await sync({ policy: { enabled: true, namespaces: ["shop"] } });
    assert.deepEqual(limited.namespaces, ["shop"]);
  });
});
