import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { AGGREGATED_ACCEPT, call, TABLE_ACCEPT } from "./helpers.ts";

const NOW = new Date("2026-12-02T15:10:00Z");
let sim: SimulatedEks;
const cluster = () => sim.cluster("alpha");

before(async () => {
  sim = await startSimulatedEks({
    clusters: [{ name: "alpha" }, { name: "beta", kubernetesVersion: "1.35" }],
    now: () => NOW,
    seed: 7,
  });
});
after(async () => {
  await sim?.stop();
});

describe("basics and discovery", () => {
  test("/version and /healthz answer without a token; /api needs one", async () => {
    const version = await call(cluster(), "/version", { token: null });
    assert.equal(version.status, 200);
    assert.equal(version.json.major, "1");
    assert.equal(version.json.minor, "34");
    assert.match(version.json.gitVersion, /^v1\.34\.\d+-eks-/);
    assert.equal((await call(cluster(), "/healthz", { token: null })).text, "ok");
    assert.equal((await call(cluster(), "/api", { token: null })).status, 401);
  });

  test("legacy discovery: /api, /apis, /api/v1 and /apis/apps/v1 with kinds, scope, verbs, short names", async () => {
    const api = await call(cluster(), "/api", { accept: "application/json, */*" });
    assert.deepEqual(api.json.versions, ["v1"]);
    const apis = await call(cluster(), "/apis", { accept: "application/json, */*" });
    assert.equal(apis.json.kind, "APIGroupList");
    const apps = apis.json.groups.find((g: { name: string }) => g.name === "apps");
    assert.deepEqual(apps.preferredVersion, { groupVersion: "apps/v1", version: "v1" });
    const autoscaling = apis.json.groups.find((g: { name: string }) => g.name === "autoscaling");
    assert.equal(autoscaling.preferredVersion.version, "v2");
    const core = await call(cluster(), "/api/v1");
    const pods = core.json.resources.find((r: { name: string }) => r.name === "pods");
    assert.equal(pods.kind, "Pod");
    assert.equal(pods.namespaced, true);
    assert.deepEqual(pods.shortNames, ["po"]);
    assert.ok(pods.verbs.includes("list"));
    assert.ok(core.json.resources.some((r: { name: string }) => r.name === "pods/status"));
    const ns = core.json.resources.find((r: { name: string }) => r.name === "namespaces");
    assert.equal(ns.namespaced, false);
    const deployments = (await call(cluster(), "/apis/apps/v1")).json.resources.find(
      (r: { name: string }) => r.name === "deployments",
    );
    assert.deepEqual(deployments.categories, ["all"]);
    assert.equal((await call(cluster(), "/apis/example.com/v1")).status, 404);
  });

  test("aggregated discovery v2: content type, core alone in /api, ETag and 304", async () => {
    const api = await call(cluster(), "/api", { accept: AGGREGATED_ACCEPT });
    assert.equal(api.headers["content-type"], "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    assert.equal(api.json.kind, "APIGroupDiscoveryList");
    assert.deepEqual(
      api.json.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      [""],
    );
    const pods = api.json.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "pods");
    assert.deepEqual(pods.responseKind, { group: "", version: "v1", kind: "Pod" });
    assert.equal(pods.scope, "Namespaced");
    assert.equal(api.json.items[0].versions[0].freshness, "Current");
    const apis = await call(cluster(), "/apis", { accept: AGGREGATED_ACCEPT });
    const names = apis.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    for (const group of [
      "apps",
      "batch",
      "networking.k8s.io",
      "policy",
      "rbac.authorization.k8s.io",
      "autoscaling",
      "apiextensions.k8s.io",
    ]) {
      assert.ok(names.includes(group), group);
    }
    const etag = String(apis.headers.etag);
    assert.match(etag, /^"[0-9a-f]{128}"$/);
    const again = await call(cluster(), "/apis", { accept: AGGREGATED_ACCEPT, headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    const beta = await call(cluster(), "/apis", {
      accept: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
    });
    assert.equal(beta.json.apiVersion, "apidiscovery.k8s.io/v2beta1");
  });

  test("discovery rejects as=Table: 406 without the JSON fallback, plain JSON with it", async () => {
    const only = await call(cluster(), "/api/v1", { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    assert.equal(only.status, 406);
    assert.equal(only.json.reason, "NotAcceptable");
    assert.equal((await call(cluster(), "/api/v1", { accept: TABLE_ACCEPT })).json.kind, "APIResourceList");
  });
});

describe("objects, lists and errors", () => {
  before(() => {
    cluster().apply(
      ["a", "b", "c", "d", "e"].map((name, i) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cm-${name}`, namespace: "lists", labels: { tier: i % 2 ? "odd" : "even", app: "lists" } },
        data: { k: "v" },
      })),
    );
  });

  test("server fields on create; 409 on a second create; 422 for a bad name; 404 for a missing namespace", async () => {
    const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "made" }, data: { a: "1" } };
    const created = await call(cluster(), "/api/v1/namespaces/default/configmaps", { method: "POST", body });
    assert.equal(created.status, 201);
    assert.match(created.json.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(created.json.metadata.resourceVersion, /^\d+$/);
    assert.equal(created.json.metadata.creationTimestamp, "2026-12-02T15:10:00Z");
    assert.equal(created.json.metadata.namespace, "default");
    const duplicate = await call(cluster(), "/api/v1/namespaces/default/configmaps", { method: "POST", body });
    assert.equal(duplicate.status, 409);
    assert.deepEqual(
      { reason: duplicate.json.reason, message: duplicate.json.message, code: duplicate.json.code },
      { reason: "AlreadyExists", message: 'configmaps "made" already exists', code: 409 },
    );
    const bad = await call(cluster(), "/apis/apps/v1/namespaces/default/deployments", {
      method: "POST",
      body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "Bad_Name" }, spec: {} },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.reason, "Invalid");
    assert.match(bad.json.message, /^Deployment\.apps "Bad_Name" is invalid: metadata\.name: Invalid value/);
    const noNs = await call(cluster(), "/api/v1/namespaces/nowhere/configmaps", { method: "POST", body });
    assert.equal(noNs.status, 404);
    assert.equal(noNs.json.message, 'namespaces "nowhere" not found');
    const wrongKind = await call(cluster(), "/api/v1/namespaces/default/secrets", { method: "POST", body });
    assert.equal(wrongKind.status, 400);
  });

  test("404 bodies like kube-apiserver's, for objects and for unknown resources", async () => {
    const missing = await call(cluster(), "/apis/apps/v1/namespaces/default/deployments/nope");
    assert.deepEqual(missing.json, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'deployments.apps "nope" not found',
      reason: "NotFound",
      details: { name: "nope", group: "apps", kind: "deployments" },
      code: 404,
    });
    const pod = await call(cluster(), "/api/v1/namespaces/default/pods/x");
    assert.equal(pod.json.message, 'pods "x" not found');
    assert.equal((await call(cluster(), "/apis/example.com/v1/namespaces/default/widgets/w")).status, 404);
  });

  test("PUT with a stale resourceVersion is a 409 Conflict; PATCH merges; DELETE removes", async () => {
    const path = "/api/v1/namespaces/lists/configmaps/cm-a";
    const current = (await call(cluster(), path)).json;
    const updated = await call(cluster(), path, { method: "PUT", body: { ...current, data: { k: "v2" } } });
    assert.equal(updated.status, 200);
    assert.notEqual(updated.json.metadata.resourceVersion, current.metadata.resourceVersion);
    const stale = await call(cluster(), path, { method: "PUT", body: { ...current, data: { k: "v3" } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.reason, "Conflict");
    const patched = await call(cluster(), path, {
      method: "PATCH",
      body: { data: { extra: "x" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.deepEqual(patched.json.data, { k: "v2", extra: "x" });
    const deleted = await call(cluster(), "/api/v1/namespaces/default/configmaps/made", { method: "DELETE" });
    assert.equal(deleted.json.status, "Success");
    assert.equal((await call(cluster(), "/api/v1/namespaces/default/configmaps/made")).status, 404);
  });

  test("LIST: label and field selectors, cluster-wide, limit/continue with remainingItemCount", async () => {
    const names = (reply: { json: { items: Array<{ metadata: { name: string } }> } }) =>
      reply.json.items.map((i) => i.metadata.name);
    assert.deepEqual(names(await call(cluster(), "/api/v1/namespaces/lists/configmaps?labelSelector=tier%3Dodd")), [
      "cm-b",
      "cm-d",
    ]);
    assert.deepEqual(
      names(await call(cluster(), "/api/v1/namespaces/lists/configmaps?labelSelector=tier+in+(odd),app!%3Dx")),
      ["cm-b", "cm-d"],
    );
    assert.deepEqual(names(await call(cluster(), "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-c")), ["cm-c"]);
    assert.deepEqual(
      names(await call(cluster(), "/api/v1/configmaps?fieldSelector=metadata.namespace%3Dlists,metadata.name!%3Dcm-a")),
      ["cm-b", "cm-c", "cm-d", "cm-e"],
    );
    const bad = await call(cluster(), "/api/v1/configmaps?fieldSelector=spec.nope%3D1");
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /field label not supported: spec\.nope/);
    const first = await call(cluster(), "/api/v1/namespaces/lists/configmaps?limit=2");
    assert.deepEqual(names(first), ["cm-a", "cm-b"]);
    assert.equal(first.json.metadata.remainingItemCount, 3);
    const token = encodeURIComponent(first.json.metadata.continue);
    const second = await call(cluster(), `/api/v1/namespaces/lists/configmaps?limit=2&continue=${token}`);
    assert.deepEqual(names(second), ["cm-c", "cm-d"]);
    const last = await call(
      cluster(),
      `/api/v1/namespaces/lists/configmaps?limit=2&continue=${encodeURIComponent(second.json.metadata.continue)}`,
    );
    assert.deepEqual(names(last), ["cm-e"]);
    assert.equal(last.json.metadata.continue, undefined);
    assert.equal((await call(cluster(), "/api/v1/configmaps?continue=garbage")).status, 400);
  });
});

describe("server-side Tables", () => {
  before(() => {
    cluster().materialize(
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: tables}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
`,
      { createdAt: new Date(NOW.getTime() - 31 * 60_000) },
    );
  });

  test("Table v1 for a GET with includeObject default Metadata, wide cells included, Content-Type application/json", async () => {
    const reply = await call(cluster(), "/apis/apps/v1/namespaces/tables/deployments/web", { accept: TABLE_ACCEPT });
    assert.equal(reply.headers["content-type"], "application/json");
    assert.equal(reply.json.kind, "Table");
    assert.equal(reply.json.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(
      reply.json.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`),
      ["Name:0", "Ready:0", "Up-to-date:0", "Available:0", "Age:0", "Containers:1", "Images:1", "Selector:1"],
    );
    assert.deepEqual(reply.json.rows[0].cells, ["web", "2/2", 2, 2, "31m", "web", "nginx:1.27", "app=web"]);
    assert.equal(reply.json.rows[0].object.kind, "PartialObjectMetadata");
    assert.equal(reply.json.rows[0].object.metadata.name, "web");
  });

  test("includeObject=Object and None; a bad value is 400; v1beta1 answers in v1beta1", async () => {
    const path = "/api/v1/namespaces/tables/pods?labelSelector=app%3Dweb";
    const full = await call(cluster(), `${path}&includeObject=Object`, { accept: TABLE_ACCEPT });
    assert.equal(full.json.rows.length, 2);
    assert.equal(full.json.rows[0].object.kind, "Pod");
    assert.equal(full.json.rows[0].object.status.phase, "Running");
    assert.deepEqual(full.json.rows[0].cells.slice(1, 5), ["1/1", "Running", "0", "31m"]);
    const none = await call(cluster(), `${path}&includeObject=None`, { accept: TABLE_ACCEPT });
    assert.equal(none.json.rows[0].object, null);
    const bad = await call(cluster(), `${path}&includeObject=Everything`, { accept: TABLE_ACCEPT });
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /^Unable to convert to Table as requested: includeObject: Invalid value/);
    const beta = await call(cluster(), path, { accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io" });
    assert.equal(beta.json.apiVersion, "meta.k8s.io/v1beta1");
    assert.equal(beta.json.rows[0].object.apiVersion, "meta.k8s.io/v1beta1");
    const plain = await call(cluster(), path, { accept: "application/json" });
    assert.equal(plain.json.kind, "PodList");
    const refused = await call(cluster(), path, { accept: "application/vnd.kubernetes.protobuf" });
    assert.equal(refused.status, 406);
  });

  test("version-dependent columns: ServiceAccount has SECRETS on 1.34 and not on 1.35", async () => {
    const sa = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "demo" } };
    cluster().apply([sa]);
    sim.cluster("beta").apply([sa]);
    const columns = async (name: string) =>
      (
        await call(sim.cluster(name), "/api/v1/namespaces/default/serviceaccounts/demo", { accept: TABLE_ACCEPT })
      ).json.columnDefinitions.map((c: { name: string }) => c.name);
    assert.deepEqual(await columns("alpha"), ["Name", "Secrets", "Age"]);
    assert.deepEqual(await columns("beta"), ["Name", "Age"]);
  });

  test("a CRD makes its kind discoverable and servable, with its printer columns; deleting it removes both", async () => {
    cluster().apply(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
    - name: v1
      served: true
      storage: true
      additionalPrinterColumns:
        - {name: Size, type: integer, jsonPath: .spec.size}
        - {name: Color, type: string, jsonPath: .spec.color, priority: 1}
`);
    const discovery = await call(cluster(), "/apis", { accept: AGGREGATED_ACCEPT });
    const group = discovery.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === "example.com");
    assert.equal(group.versions[0].resources[0].resource, "widgets");
    const created = await call(cluster(), "/apis/example.com/v1/namespaces/default/widgets", {
      method: "POST",
      body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 3, color: "red" } },
    });
    assert.equal(created.status, 201);
    const table = await call(cluster(), "/apis/example.com/v1/namespaces/default/widgets", { accept: TABLE_ACCEPT });
    assert.deepEqual(
      table.json.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Size", "Color"],
    );
    assert.deepEqual(table.json.rows[0].cells, ["w1", 3, "red"]);
    assert.equal(
      (
        await call(cluster(), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", {
          method: "DELETE",
        })
      ).status,
      200,
    );
    assert.equal((await call(cluster(), "/apis/example.com/v1/namespaces/default/widgets/w1")).status, 404);
    assert.equal((await call(cluster(), "/apis/example.com/v1")).status, 404);
  });
});

describe("materialized state", () => {
  test("unhealthy knobs, omitted objects, load balancers, deterministic ages", async () => {
    const createdAt = new Date(NOW.getTime() - 3 * 3_600_000);
    const made = cluster().materialize(
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: crashy}
spec: {selector: {matchLabels: {app: crashy}}, template: {metadata: {labels: {app: crashy}}, spec: {containers: [{name: c, image: "bad:1"}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pully}
spec: {selector: {matchLabels: {app: pully}}, template: {metadata: {labels: {app: pully}}, spec: {containers: [{name: c, image: "nope:1"}]}}}
---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec: {type: LoadBalancer, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: lb-pending}
spec: {type: LoadBalancer, ports: [{port: 80}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: m, image: busybox}]}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: gone}
`,
      {
        namespace: "knobs",
        crashLoop: ["crashy"],
        imagePullBackOff: ["pully"],
        pendingLoadBalancer: ["lb-pending"],
        omit: ["ConfigMap/gone"],
        createdAt,
      },
    );
    assert.ok(!made.some((o) => o.metadata?.name === "gone"));
    const rows = async (path: string) =>
      (await call(cluster(), path, { accept: TABLE_ACCEPT })).json.rows.map((r: { cells: unknown[] }) => r.cells);
    const pods = await rows("/api/v1/namespaces/knobs/pods");
    const crashPod = pods.find((c: string[]) => c[0].startsWith("crashy-"));
    assert.deepEqual(crashPod.slice(1, 5), ["0/1", "CrashLoopBackOff", "5 (2m14s ago)", "3h"]);
    const pullPod = pods.find((c: string[]) => c[0].startsWith("pully-"));
    assert.deepEqual(pullPod.slice(1, 4), ["0/1", "ImagePullBackOff", "0"]);
    const jobPod = pods.find((c: string[]) => c[0].startsWith("migrate-"));
    assert.equal(jobPod[2], "Completed");
    const deployments = await rows("/apis/apps/v1/namespaces/knobs/deployments");
    assert.deepEqual(deployments[0].slice(0, 4), ["crashy", "0/1", 1, 0]);
    const services = await rows("/api/v1/namespaces/knobs/services");
    assert.match(services[0][3], /\.elb\.us-east-1\.amazonaws\.com$/);
    assert.equal(services[1][3], "<pending>");
    const jobs = await rows("/apis/batch/v1/namespaces/knobs/jobs");
    assert.deepEqual(jobs[0].slice(0, 5), ["migrate", "Complete", "1/1", "7s", "3h"]);
    // Deleting the Deployment takes its ReplicaSet and Pods with it (garbage collection).
    assert.ok(cluster().remove("apps/v1", "Deployment", "crashy", "knobs"));
    const after = await rows("/api/v1/namespaces/knobs/pods");
    assert.ok(!after.some((c: string[]) => c[0].startsWith("crashy-")));
  });

  test("apply rejects kinds the cluster does not serve, with the object named", () => {
    assert.throws(
      () => cluster().apply([{ apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g1" } }]),
      /no resource for example\.com\/v1 Gadget \(object "g1"\)/,
    );
    assert.throws(() => cluster().apply("kind: [unclosed"), /not valid/);
  });
});

describe("access, faults and statistics", () => {
  test("deny rules give kube-apiserver's 403 for that resource only", async () => {
    cluster().deny({ resource: "secrets", namespace: "default" });
    try {
      const list = await call(cluster(), "/api/v1/namespaces/default/secrets");
      assert.equal(list.status, 403);
      assert.equal(list.json.reason, "Forbidden");
      assert.match(
        list.json.message,
        /^secrets is forbidden: User "arn:aws:iam::\d+:user\/sim-admin" cannot list resource "secrets" in API group "" in the namespace "default"$/,
      );
      const one = await call(cluster(), "/api/v1/namespaces/default/secrets/x");
      assert.match(one.json.message, /^secrets "x" is forbidden: .* cannot get resource/);
      assert.equal((await call(cluster(), "/api/v1/namespaces/default/configmaps")).status, 200);
      assert.equal((await call(cluster(), "/api/v1/namespaces/other/secrets")).status, 200);
    } finally {
      cluster().allowAll();
    }
    cluster().deny({ resource: "deployments.apps" });
    try {
      const denied = await call(cluster(), "/apis/apps/v1/deployments");
      assert.match(
        denied.json.message,
        /^deployments\.apps is forbidden: .* in API group "apps" at the cluster scope$/,
      );
    } finally {
      cluster().allowAll();
    }
  });

  test("errors with Retry-After, connection resets, match limits, counted in the stats", async () => {
    cluster().resetStats();
    cluster().faults.set({
      errorRate: 1,
      errorStatus: 429,
      retryAfterSeconds: 2,
      match: (p) => p.includes("/configmaps"),
    });
    try {
      const limited = await call(cluster(), "/api/v1/namespaces/lists/configmaps");
      assert.equal(limited.status, 429);
      assert.equal(limited.headers["retry-after"], "2");
      assert.equal(limited.json.reason, "TooManyRequests");
      assert.equal((await call(cluster(), "/api/v1/namespaces/lists/secrets")).status, 200);
      cluster().faults.set({ errorStatus: 503 });
      assert.equal((await call(cluster(), "/api/v1/namespaces/lists/configmaps")).status, 503);
      cluster().faults.set({ errorRate: 0, resetRate: 1 });
      await assert.rejects(call(cluster(), "/api/v1/namespaces/lists/configmaps"), /socket hang up|ECONNRESET/);
    } finally {
      cluster().faults.clear();
    }
    assert.equal((await call(cluster(), "/api/v1/namespaces/lists/configmaps")).status, 200);
    const stats = cluster().stats();
    assert.equal(stats.total, 5);
    assert.equal(stats.byPath["/api/v1/namespaces/lists/configmaps"], 4);
    assert.deepEqual(
      stats.log.map((e) => e.status),
      [429, 200, 503, 0, 200],
    );
    assert.match(stats.log[0].user, /:user\/sim-admin$/);
  });

  test("latency: a read is answered as of its arrival, a write takes effect after it, and never under an error fault", async () => {
    const path = "/api/v1/namespaces/lists/configmaps";
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const original = cluster().get("v1", "ConfigMap", "cm-a", "lists");
    cluster().resetStats();
    cluster().faults.set({ latencyMs: 300 });
    try {
      const reading = call(cluster(), `${path}/cm-a`);
      await wait(100); // the GET has arrived; its latency is not over
      cluster().apply([{ ...original, data: { k: "changed" } }]);
      assert.deepEqual((await reading).json.data, original?.data);

      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "late" }, data: {} };
      const creating = call(cluster(), path, { method: "POST", body });
      await wait(100);
      assert.equal(cluster().get("v1", "ConfigMap", "late", "lists"), undefined, "created before its latency was over");
      assert.equal((await creating).status, 201);
      assert.ok(cluster().get("v1", "ConfigMap", "late", "lists"));

      cluster().faults.set({ errorRate: 1, errorStatus: 503 });
      const refused = await call(cluster(), path, { method: "POST", body: { ...body, metadata: { name: "refused" } } });
      assert.equal(refused.status, 503);
      assert.equal(cluster().get("v1", "ConfigMap", "refused", "lists"), undefined);
      // The server logs an exchange when its side ends, just after the client read the answer: wait (bounded).
      for (let i = 0; i < 100 && cluster().stats().log.length < 3; i++) await wait(20);
      assert.deepEqual(
        cluster()
          .stats()
          .log.map((e) => `${e.method} ${e.status}`),
        ["GET 200", "POST 201", "POST 503"],
      );
    } finally {
      cluster().faults.clear();
      cluster().apply([{ ...original, data: original?.data }]);
      cluster().remove("v1", "ConfigMap", "late", "lists");
    }
  });

  test("latency and slow bodies hold requests in flight together: maxInFlight counts them", async () => {
    cluster().resetStats();
    cluster().faults.set({ latencyMs: 150, slowBodyMs: 50 });
    try {
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => call(cluster(), "/api/v1/namespaces/lists/configmaps")),
      );
      assert.ok(replies.every((r) => r.status === 200 && r.json.items.length === 5));
    } finally {
      cluster().faults.clear();
    }
    // A request is logged when the server's side of it finishes, which can come just after the client read the
    // last byte of the answer: wait (bounded) for all six.
    for (let i = 0; i < 100 && cluster().stats().log.length < 6; i++) await new Promise((r) => setTimeout(r, 20));
    const stats = cluster().stats();
    assert.equal(stats.total, 6);
    assert.equal(stats.maxInFlight, 6);
    assert.equal(stats.log.length, 6);
    assert.equal(stats.log[0].accept, "");
  });
});
