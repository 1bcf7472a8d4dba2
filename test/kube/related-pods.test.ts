import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { type PodsAnswer, podsLists, type RelatedPods, readRelatedPods } from "../../shared/kube/related-pods.ts";
import type { Table } from "../../shared/kube/table.ts";
import { silentLogger } from "../../shared/ports.ts";
import type { Release } from "../../shared/release/model.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "../status/sim-connector.ts";

const related = (selector: Record<string, string>, namespace = "shop", owners = [0]): RelatedPods => ({
  namespace,
  selector,
  owners,
  outcome: "not-read-in-time",
});
const chart = (name: string, namespace = "shop") =>
  related({ "app.kubernetes.io/instance": "shop", "app.kubernetes.io/name": name }, namespace);

describe("podsLists: which selectors share a pods LIST", () => {
  test("a chart's workloads (same instance, one name each) share one set-based LIST, values sorted", () => {
    const lists = podsLists([chart("web"), chart("api"), chart("worker")]);
    assert.equal(lists.length, 1);
    assert.equal(lists[0].namespace, "shop");
    assert.equal(lists[0].labelSelector, "app.kubernetes.io/instance=shop,app.kubernetes.io/name in (api,web,worker)");
    assert.equal(lists[0].members.length, 3);
  });

  test("one selector alone is Helm's own form: keys sorted, k=v", () => {
    assert.deepEqual(
      podsLists([related({ tier: "web", app: "shop" })]).map((list) => list.labelSelector),
      ["app=shop,tier=web"],
    );
  });

  test("never across namespaces, key sets, or two varying keys (a set-based selector would select more)", () => {
    const lists = podsLists([
      chart("api"),
      chart("api", "other"),
      related({ app: "a", tier: "x" }),
      related({ app: "b", tier: "y" }),
      related({ app: "a" }),
    ]);
    assert.deepEqual(lists.map((list) => [list.namespace, list.labelSelector]).sort(), [
      ["other", "app.kubernetes.io/instance=shop,app.kubernetes.io/name=api"],
      ["shop", "app.kubernetes.io/instance=shop,app.kubernetes.io/name=api"],
      ["shop", "app=a"],
      ["shop", "app=a,tier=x"],
      ["shop", "app=b,tier=y"],
    ]);
  });

  test("a value a set-based selector cannot carry (empty, or not a label value) is listed alone", () => {
    const lists = podsLists([
      related({ app: "" }),
      related({ app: "a b" }),
      related({ app: "c" }),
      related({ app: "d" }),
    ]);
    assert.deepEqual(lists.map((list) => list.labelSelector).sort(), ["app in (c,d)", "app=", "app=a b"]);
  });

  test("at most 32 selectors a LIST", () => {
    const many = Array.from({ length: 70 }, (_, i) => related({ app: `app-${String(i).padStart(2, "0")}` }));
    const lists = podsLists(many);
    assert.deepEqual(
      lists.map((list) => list.members.length),
      [32, 32, 6],
    );
    assert.equal(new Set(lists.flatMap((list) => list.members)).size, 70);
  });
});

const podRow = (name: string, labels: Record<string, string> | undefined) => ({
  cells: [name],
  object: labels === undefined ? undefined : { metadata: { name, labels } },
});
const podsTable = (rows: Table["rows"]): Table => ({
  columns: [{ name: "Name", type: "string", format: "name", priority: 0, description: "" }],
  metadata: { resourceVersion: "42" },
  rows,
});

describe("readRelatedPods: one LIST's rows split back per selector", () => {
  test("each selector gets its own pods, in the LIST's order, and the LIST's metadata", async () => {
    const calls: string[] = [];
    const answer: PodsAnswer = {
      outcome: "found",
      table: podsTable([
        podRow("a-1", { app: "a" }),
        podRow("b-1", { app: "b", extra: "x" }),
        podRow("a-2", { app: "a" }),
      ]),
    };
    const selectors = [related({ app: "b" }), related({ app: "a" }), related({ app: "c" })];
    const read = await readRelatedPods(selectors, async (_namespace, labelSelector) => {
      calls.push(labelSelector);
      return answer;
    });
    assert.deepEqual(calls, ["app in (a,b,c)"]);
    assert.deepEqual(
      read.map((entry) => [entry.selector.app, entry.outcome, entry.table?.rows.map((row) => row.cells[0])]),
      [
        ["b", "found", ["b-1"]],
        ["a", "found", ["a-1", "a-2"]],
        ["c", "found", []],
      ],
    );
    assert.deepEqual(read[0].table?.metadata, { resourceVersion: "42" });
  });

  test("a failed LIST is every member's outcome; a throwing one is an error, never a rejection", async () => {
    const forbidden = await readRelatedPods([related({ app: "a" }), related({ app: "b" })], async () => ({
      outcome: "forbidden",
      message: 'pods is forbidden: User "x" cannot list resource "pods"',
    }));
    assert.deepEqual(
      forbidden.map((entry) => entry.outcome),
      ["forbidden", "forbidden"],
    );
    const thrown = await readRelatedPods([related({ app: "a" })], async () => {
      throw new Error("boom");
    });
    assert.deepEqual([thrown[0].outcome, thrown[0].message], ["error", "boom"]);
  });

  test("rows without their objects cannot be split: each selector is then listed on its own", async () => {
    const calls: string[] = [];
    const read = await readRelatedPods([related({ app: "a" }), related({ app: "b" })], async (_ns, labelSelector) => {
      calls.push(labelSelector);
      return { outcome: "found", table: podsTable([podRow(`${labelSelector}-pod`, undefined)]) };
    });
    assert.deepEqual(calls, ["app in (a,b)", "app=a", "app=b"]);
    assert.deepEqual(
      read.map((entry) => entry.table?.rows.map((row) => row.cells[0])),
      [["app=a-pod"], ["app=b-pod"]],
    );
  });
});

describe("related pods on the simulated EKS", () => {
  let sim: SimulatedEks;
  before(async () => {
    sim = await startSimulatedEks({ clusters: [{ name: "related" }], seed: 3 });
  });
  after(async () => {
    await sim.stop();
  });

  const deployment = (name: string, labels: Record<string, string>, namespace?: string) => {
    const lines = Object.entries(labels).map(([key, value]) => `        ${key}: ${value}`);
    return [
      "---",
      "# Source: shop/templates/deployment.yaml",
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      `  name: ${name}`,
      ...(namespace ? [`  namespace: ${namespace}`] : []),
      "spec:",
      "  replicas: 2",
      "  selector:",
      "    matchLabels:",
      ...lines.map((line) => line.slice(2)),
      "  template:",
      "    metadata:",
      "      labels:",
      ...lines,
      "    spec:",
      "      containers:",
      "        - name: main",
      "          image: nginx:1.27",
      "",
    ].join("\n");
  };

  test("a chart's Deployments: one pods LIST for the shared labels, the same pods per Deployment as a LIST each", async () => {
    const cluster = sim.cluster("related");
    const labels = (name: string) => ({ "app.kubernetes.io/instance": "shop", "app.kubernetes.io/name": name });
    const manifest = [
      deployment("api", labels("api")),
      deployment("web", labels("web")),
      deployment("worker", labels("worker")),
      deployment("api", labels("api"), "edge"),
      deployment("legacy-a", { app: "a", tier: "x" }),
      deployment("legacy-b", { app: "b", tier: "w" }),
    ].join("");
    cluster.materialize(manifest, { namespace: "shop" });
    const release: Release = {
      name: "shop",
      namespace: "shop",
      version: 1,
      info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
      chart: { metadata: { name: "shop", version: "0.1.0" } },
      manifest,
      hooks: [],
    };
    const store = new MemoryReleaseStore();
    await store.putRevision("related", release);
    const kube = createKubeReader({ connector: simConnector(sim) });
    cluster.resetStats();
    const report = await releaseStatus(
      { store, kube, logger: silentLogger },
      { cluster: "related", namespace: "shop", name: "shop" },
    ).finally(() => kube.close());

    const podLists = cluster.stats().log.filter((entry) => entry.path.endsWith("/pods"));
    assert.deepEqual(podLists.map((entry) => decodeURIComponent(entry.query.split("labelSelector=")[1])).sort(), [
      "app.kubernetes.io/instance=shop,app.kubernetes.io/name in (api,web,worker)",
      "app.kubernetes.io/instance=shop,app.kubernetes.io/name=api",
      "app=a,tier=x",
      "app=b,tier=w",
    ]);
    // 6 GETs, the 4 pods LISTs and the namespace's Warning events (one LIST, docs/status.md "EVENTS").
    assert.equal(report.counters.requests, 6 + 4 + 1);
    // Every selector's rows are exactly the pods a LIST of its own selector returns, in name order.
    assert.equal(report.relatedPods.length, 6);
    for (const entry of report.relatedPods) {
      const expected = cluster
        .list("v1", "Pod", entry.namespace)
        .filter((pod) => Object.entries(entry.selector).every(([key, value]) => pod.metadata?.labels?.[key] === value))
        .map((pod) => pod.metadata?.name)
        .sort();
      assert.equal(expected.length, 2, JSON.stringify(entry.selector));
      assert.deepEqual(
        entry.rows.map((row) => row[0]),
        expected,
      );
    }
    const text = renderStatusText(report, { health: false });
    assert.equal(text.match(/^api-\S+ +1\/1 +Running/gm)?.length, 4, text);
  });
});
