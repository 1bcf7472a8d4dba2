/**
 * The release sync's robustness (issue #39, items 4-8) on the simulated EKS with the in-memory stores: refused
 * continue tokens, mislabelled objects, chains refused or cut short, the summary's counters, and Helm's
 * `install --replace` rewrite of a superseded revision.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { planPage } from "../../shared/sync/chain.ts";
import type { SyncInput } from "../../shared/usecases/sync.ts";
import { syncOnSimulator } from "../support/sync-sim.ts";

const CLUSTER = "robust";
let store: MemoryReleaseStore;
let syncState: MemorySyncStateStore;
const stack = syncOnSimulator(CLUSTER);
const { cluster, key } = stack;

function release(name: string, namespace: string, version: number, status: ReleaseStatus = "deployed"): Release {
  return {
    name,
    namespace,
    version,
    manifest: `---\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`,
    info: { status, last_deployed: "2026-12-03T10:00:00Z", description: "Install complete" },
    chart: { metadata: { name: "demo", version: "0.1.0" } },
  };
}

const ns = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
const sync = (input: Partial<SyncInput> = {}) => stack.sync({ store, syncState }, input);

describe("release sync robustness", { concurrency: false }, () => {
  beforeEach(() => {
    ({ store, syncState } = stack.fresh());
  });

  test("a continue token the server refuses (400) restarts the chain instead of wedging the sync", async () => {
    cluster().apply([ns("tokens"), ...[1, 2, 3].map((i) => encodeHelmSecret(release(`t${i}`, "tokens", 1)))]);
    // A cursor whose token this server cannot read (another apiserver's, or from before an upgrade).
    await syncState.saveState(CLUSTER, {
      cursor: { chain: 0, scope: "tokens", continueToken: "bm90IGEgdG9rZW4", after: "" },
    });
    const summary = await sync({ namespaces: ["tokens"] });
    assert.equal(summary.complete, true);
    assert.equal(summary.imported, 3);
    assert.equal(summary.restarts, 1);
    assert.match(summary.notes.join("\n"), /continue token refused \(HTTP 400/);
    assert.equal((await syncState.state(CLUSTER)).cursor, undefined);
  });

  test("objects whose labels disagree with their name are refused from the LIST and never downloaded", async () => {
    const mislabelled = {
      ...encodeHelmSecret(release("big", "labels", 1)),
      metadata: {
        name: "sh.helm.release.v1.big.v1",
        namespace: "labels",
        labels: { owner: "helm", name: "other", version: "1", status: "deployed" },
      },
    };
    cluster().apply([ns("labels"), mislabelled, encodeHelmSecret(release("fine", "labels", 1))]);
    for (const run of [1, 2]) {
      cluster().resetStats();
      const summary = await sync({ namespaces: ["labels"] });
      assert.equal(summary.failed, 1, `run ${run}`);
      assert.match(summary.failures[0].error, /labels do not say what its name says/);
      assert.equal(summary.complete, true);
      const gets = cluster()
        .stats()
        .log.filter((r) => r.path.endsWith("sh.helm.release.v1.big.v1"));
      assert.equal(gets.length, 0, `run ${run}: the mislabelled object is not downloaded`);
    }
    await assert.rejects(store.getLatest(key("labels", "big")), { name: "ReleaseNotFoundError" });
    // Relabelled as Helm would have: read and imported.
    cluster().apply([encodeHelmSecret(release("big", "labels", 1))]);
    const fixed = await sync({ namespaces: ["labels"] });
    assert.deepEqual([fixed.imported, fixed.failed], [1, 0]);
  });

  test("a chain refused in one run is listed again by the next; never complete without every chain", async () => {
    cluster().apply([ns("forbid"), encodeHelmSecret(release("s", "forbid", 1))]);
    cluster().deny({ resource: "secrets", verb: "list" });
    const first = await sync({ namespaces: ["forbid"] });
    assert.equal(first.complete, false);
    const second = await sync({ namespaces: ["forbid"] });
    assert.equal(second.complete, false, "secrets were still refused");
    assert.equal(second.forbidden.length, 1);
    cluster().allowAll();
    const third = await sync({ namespaces: ["forbid"] });
    assert.equal(third.complete, true);
    assert.equal(third.imported, 1);
  });

  test("a run resumed in its second chain lists the first again before it says complete", async () => {
    cluster().apply([ns("resume"), encodeHelmSecret(release("r", "resume", 1))]);
    await syncState.saveState(CLUSTER, { cursor: { chain: 1, scope: "resume", after: "" } });
    const summary = await sync({ namespaces: ["resume"] });
    assert.equal(summary.complete, true);
    assert.equal(summary.imported, 1, "the Secrets chain was listed in this run");
  });

  test("counters: a run stopped at its deadline reports its requests; a restarted LIST counts a failure once", async () => {
    cluster().apply([
      ns("count"),
      {
        ...encodeHelmSecret(release("a-corrupt", "count", 1)),
        data: { release: Buffer.from("not base64!", "latin1").toString("base64") },
      },
      ...[1, 2, 3, 4].map((i) => encodeHelmSecret(release(`r${i}`, "count", 1))),
    ]);
    let expired = false;
    const restarted = await sync({
      namespaces: ["count"],
      pageSize: 2,
      onProgress: () => {
        if (!expired) {
          expired = true;
          cluster().expireContinueTokens();
        }
      },
    });
    assert.equal(restarted.restarts, 1);
    assert.equal(restarted.failed, 1);
    assert.equal(restarted.failures.length, 1);

    store = new MemoryReleaseStore();
    syncState = new MemorySyncStateStore();
    cluster().faults.set({ latencyMs: 60_000, match: (_path, query) => query.has("continue") });
    const cut = await sync({ namespaces: ["count"], pageSize: 2, deadline: Date.now() + 1_500 });
    cluster().faults.clear();
    assert.equal(cut.complete, false);
    assert.ok(cut.requests >= 3, `the first LIST page and its GETs are counted (${cut.requests})`);
  });

  test("LIST pages that repeat an object: planned once; entries outside a scoped chain: never planned", () => {
    const entry = {
      key: "shop/sh.helm.release.v1.api.v1",
      namespace: "shop",
      name: "sh.helm.release.v1.api.v1",
      uid: "u",
      resourceVersion: "1",
      labels: { owner: "helm", name: "api", version: "1", status: "deployed" },
    };
    const plan = planPage({ driver: "secrets" }, [entry, entry], new Map(), "", true);
    assert.deepEqual([plan.fetch.length, plan.duplicates, plan.unordered], [1, 1, false]);
    // A namespace-scoped chain never plans an object of another namespace, whatever the server answered.
    const foreign = { ...entry, key: "kube-system/sh.helm.release.v1.api.v1", namespace: "kube-system" };
    const scoped = planPage({ driver: "secrets", namespace: "shop" }, [entry, foreign], new Map(), "", true);
    assert.deepEqual([scoped.fetch.map((e) => e.namespace), scoped.foreign], [["shop"], 1]);
  });

  test("helm install --replace rewrites the old revision's description: the sync reads it, not only the label", async () => {
    const uninstalled = release("replaced", "replace", 1, "uninstalled");
    uninstalled.info!.description = "Uninstallation complete";
    cluster().apply([ns("replace"), encodeHelmSecret(uninstalled)]);
    await sync({ namespaces: ["replace"] });
    // What `helm install --replace` writes: revision 1 superseded with Helm's description, revision 2 deployed.
    const superseded = release("replaced", "replace", 1, "superseded");
    superseded.info!.description = "superseded by new release";
    cluster().apply([encodeHelmSecret(superseded), encodeHelmSecret(release("replaced", "replace", 2))]);
    await sync({ namespaces: ["replace"] });
    const old = await store.getRevision(key("replace", "replaced"), 1);
    assert.deepEqual([old.info?.status, old.info?.description], ["superseded", "superseded by new release"]);
  });
});
