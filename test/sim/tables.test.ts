import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { builtinResources } from "../../local/sim/kube/registry.ts";
import { humanDuration } from "../../local/sim/kube/tables/common.ts";
import { customResourcePrinter, evaluateJsonPath } from "../../local/sim/kube/tables/custom.ts";
import type { KubeObject, ServerVersion } from "../../local/sim/kube/types.ts";

const NOW = new Date("2026-12-02T15:10:00Z");
const V134: ServerVersion = { major: 1, minor: 34 };
const V135: ServerVersion = { major: 1, minor: 35 };
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function printerOf(kind: string) {
  const type = builtinResources().find((t) => t.kind === kind);
  assert.ok(type, kind);
  return type.printer;
}

function table(kind: string, object: KubeObject, version = V134) {
  const printer = printerOf(kind);
  const columns = printer.columns(version);
  const row = printer.row(object, { now: NOW, version });
  assert.equal(row.cells.length, columns.length, `${kind}: one cell per column`);
  return {
    headers: columns.filter((c) => c.priority === 0).map((c) => c.name.toUpperCase()),
    wide: columns.filter((c) => c.priority > 0).map((c) => c.name.toUpperCase()),
    cells: row.cells,
    conditions: row.conditions,
  };
}

const meta = (name: string, age = 31 * MIN, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: "default",
  creationTimestamp: ago(age),
  ...extra,
});

describe("HumanDuration", () => {
  test("the upstream vectors and the reference's examples", () => {
    const cases: Array<[number, string]> = [
      [-2000, "<invalid>"],
      [-1500, "0s"],
      [-999, "0s"],
      [0, "0s"],
      [1000, "1s"],
      [119_000, "119s"],
      [120_000, "2m"],
      [121_000, "2m1s"],
      [134_000, "2m14s"],
      [5 * MIN, "5m"],
      [9 * MIN + 59_000, "9m59s"],
      [10 * MIN, "10m"],
      [179 * MIN, "179m"],
      [3 * HOUR, "3h"],
      [3 * HOUR + 4 * MIN, "3h4m"],
      [7 * HOUR + 59 * MIN, "7h59m"],
      [8 * HOUR, "8h"],
      [47 * HOUR + 59 * MIN, "47h"],
      [48 * HOUR, "2d"],
      [49 * HOUR, "2d1h"],
      [7 * DAY + 23 * HOUR, "7d23h"],
      [8 * DAY, "8d"],
      [10 * DAY, "10d"],
      [729 * DAY, "729d"],
      [730 * DAY, "2y"],
      [731 * DAY, "2y1d"],
      [8 * 365 * DAY - DAY, "7y364d"],
      [8 * 365 * DAY, "8y"],
      [9 * 365 * DAY, "9y"],
    ];
    for (const [ms, text] of cases) assert.equal(humanDuration(ms), text, `${ms} ms`);
  });
});

describe("Pod", () => {
  const container = (status: Record<string, unknown>) => ({ name: "app", ready: false, restartCount: 0, ...status });
  const pod = (
    status: Record<string, unknown>,
    spec: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: meta("web-1", 3 * DAY, extra),
    spec: { containers: [{ name: "app" }], ...spec },
    status,
  });

  test("columns and a running ready pod, wide cells included", () => {
    const t = table(
      "Pod",
      pod(
        {
          phase: "Running",
          podIPs: [{ ip: "10.0.1.5" }],
          containerStatuses: [container({ ready: true, state: { running: {} } })],
        },
        { nodeName: "ip-10-0-1-5.ec2.internal" },
      ),
    );
    assert.deepEqual(t.headers, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    assert.deepEqual(t.wide, ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]);
    assert.deepEqual(t.cells, [
      "web-1",
      "1/1",
      "Running",
      "0",
      "3d",
      "10.0.1.5",
      "ip-10-0-1-5.ec2.internal",
      "<none>",
      "<none>",
    ]);
  });

  test("CrashLoopBackOff with restarts and the time since the last one", () => {
    const t = table(
      "Pod",
      pod({
        phase: "Running",
        containerStatuses: [
          container({
            restartCount: 5,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { exitCode: 1, finishedAt: ago(134_000) } },
          }),
        ],
      }),
    );
    assert.deepEqual(t.cells.slice(1, 4), ["0/1", "CrashLoopBackOff", "5 (2m14s ago)"]);
  });

  test("Completed adds the Completed row condition; failed pods too", () => {
    const done = table(
      "Pod",
      pod({
        phase: "Succeeded",
        containerStatuses: [container({ state: { terminated: { exitCode: 0, reason: "Completed" } } })],
      }),
    );
    assert.deepEqual(done.cells.slice(1, 4), ["0/1", "Completed", "0"]);
    assert.deepEqual(done.conditions, [
      { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
    ]);
    const failed = table(
      "Pod",
      pod({ phase: "Failed", containerStatuses: [container({ state: { terminated: { exitCode: 137 } } })] }),
    );
    assert.equal(failed.cells[2], "ExitCode:137");
    assert.equal(failed.conditions?.[0].reason, "Failed");
  });

  test("init containers: Init:i/n, Init:<waiting reason>, Init:ExitCode, and sidecars counted in READY", () => {
    const spec = { initContainers: [{ name: "init-a" }, { name: "init-b" }] };
    const running = table(
      "Pod",
      pod({ phase: "Pending", initContainerStatuses: [{ name: "init-a", state: { running: {} } }] }, spec),
    );
    assert.equal(running.cells[2], "Init:0/2");
    const second = table(
      "Pod",
      pod(
        {
          phase: "Pending",
          initContainerStatuses: [
            { name: "init-a", state: { terminated: { exitCode: 0 } } },
            { name: "init-b", restartCount: 3, state: { waiting: { reason: "CrashLoopBackOff" } } },
          ],
        },
        spec,
      ),
    );
    assert.deepEqual(second.cells.slice(2, 4), ["Init:CrashLoopBackOff", "3"]);
    const exit = table(
      "Pod",
      pod(
        { phase: "Pending", initContainerStatuses: [{ name: "init-a", state: { terminated: { exitCode: 2 } } }] },
        spec,
      ),
    );
    assert.equal(exit.cells[2], "Init:ExitCode:2");
    const sidecar = table(
      "Pod",
      pod(
        {
          phase: "Running",
          conditions: [
            { type: "Initialized", status: "True" },
            { type: "Ready", status: "True" },
          ],
          initContainerStatuses: [{ name: "proxy", started: true, ready: true, state: { running: {} } }],
          containerStatuses: [container({ ready: true, state: { running: {} } })],
        },
        { initContainers: [{ name: "proxy", restartPolicy: "Always" }] },
      ),
    );
    assert.deepEqual(sidecar.cells.slice(1, 3), ["2/2", "Running"]);
  });

  test("Terminating, NodeLost, SchedulingGated, ContainerCreating, and NotReady after a completed container", () => {
    const deleting = { deletionTimestamp: ago(MIN) };
    assert.equal(table("Pod", pod({ phase: "Running" }, {}, deleting)).cells[2], "Terminating");
    assert.equal(table("Pod", pod({ phase: "Running", reason: "NodeLost" }, {}, deleting)).cells[2], "Unknown");
    assert.equal(table("Pod", pod({ phase: "Succeeded" }, {}, deleting)).cells[2], "Succeeded");
    assert.equal(
      table(
        "Pod",
        pod({ phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }] }),
      ).cells[2],
      "SchedulingGated",
    );
    assert.equal(
      table(
        "Pod",
        pod({
          phase: "Pending",
          containerStatuses: [container({ state: { waiting: { reason: "ContainerCreating" } } })],
        }),
      ).cells[2],
      "ContainerCreating",
    );
    const twoContainers = pod(
      {
        phase: "Running",
        containerStatuses: [
          container({ name: "a", ready: true, state: { running: {} } }),
          container({ name: "b", state: { terminated: { exitCode: 0, reason: "Completed" } } }),
        ],
      },
      { containers: [{ name: "a" }, { name: "b" }] },
    );
    assert.equal(table("Pod", twoContainers).cells[2], "NotReady");
  });

  test("readiness gates count true conditions", () => {
    const t = table(
      "Pod",
      pod(
        { phase: "Running", conditions: [{ type: "example.com/gate", status: "True" }] },
        { readinessGates: [{ conditionType: "example.com/gate" }, { conditionType: "other" }] },
      ),
    );
    assert.equal(t.cells[8], "1/2");
  });
});

describe("Service", () => {
  const svc = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: meta("demo"),
    spec,
    status,
  });
  test("ClusterIP: <none> external IP, port/proto, wide selector", () => {
    const t = table(
      "Service",
      svc({
        type: "ClusterIP",
        clusterIPs: ["10.96.12.34"],
        ports: [{ port: 80, protocol: "TCP" }],
        selector: { b: "2", a: "1" },
      }),
    );
    assert.deepEqual(t.headers, ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]);
    assert.deepEqual(t.cells, ["demo", "ClusterIP", "10.96.12.34", "<none>", "80/TCP", "31m", "a=1,b=2"]);
  });
  test("LoadBalancer: <pending>, then sorted unique ingress addresses; NodePorts in PORT(S)", () => {
    const spec = {
      type: "LoadBalancer",
      clusterIPs: ["10.100.0.5"],
      ports: [{ port: 443, nodePort: 31443, protocol: "TCP" }],
    };
    assert.deepEqual(table("Service", svc(spec)).cells.slice(3, 5), ["<pending>", "443:31443/TCP"]);
    const ready = table(
      "Service",
      svc(spec, { loadBalancer: { ingress: [{ hostname: "b.elb" }, { ip: "1.2.3.4" }, { ip: "1.2.3.4" }] } }),
    );
    assert.equal(ready.cells[3], "1.2.3.4,b.elb");
  });
  test("ExternalName, headless and no ports", () => {
    assert.deepEqual(
      table("Service", svc({ type: "ExternalName", externalName: "db.example.com" })).cells.slice(2, 5),
      ["<none>", "db.example.com", "<none>"],
    );
    assert.equal(table("Service", svc({ type: "ClusterIP", clusterIPs: ["None"] })).cells[2], "None");
  });
});

describe("workloads", () => {
  const template = {
    spec: {
      containers: [
        { name: "web", image: "nginx:1.16.0" },
        { name: "log", image: "busybox" },
      ],
    },
  };
  const selector = {
    matchLabels: { app: "demo" },
    matchExpressions: [{ key: "tier", operator: "In", values: ["web", "api"] }],
  };
  test("Deployment: READY string, UP-TO-DATE/AVAILABLE sent as integers", () => {
    const t = table("Deployment", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta("demo"),
      spec: { replicas: 3, selector, template },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    });
    assert.deepEqual(t.headers, ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    assert.deepEqual(t.wide, ["CONTAINERS", "IMAGES", "SELECTOR"]);
    assert.deepEqual(t.cells, [
      "demo",
      "2/3",
      3,
      2,
      "31m",
      "web,log",
      "nginx:1.16.0,busybox",
      "app=demo,tier in (api,web)",
    ]);
  });
  test("ReplicaSet, StatefulSet, DaemonSet", () => {
    const rs = table("ReplicaSet", {
      metadata: meta("demo-abc"),
      spec: { replicas: 2, selector, template },
      status: { replicas: 2, readyReplicas: 1 },
    });
    assert.deepEqual(rs.headers, ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    assert.deepEqual(rs.cells.slice(0, 5), ["demo-abc", 2, 2, 1, "31m"]);
    const sts = table("StatefulSet", {
      metadata: meta("db"),
      spec: { replicas: 3, template },
      status: { readyReplicas: 3 },
    });
    assert.deepEqual(sts.headers, ["NAME", "READY", "AGE"]);
    assert.deepEqual(sts.cells, ["db", "3/3", "31m", "web,log", "nginx:1.16.0,busybox"]);
    const ds = table("DaemonSet", {
      metadata: meta("agent"),
      spec: { selector, template: { spec: { ...template.spec, nodeSelector: { "kubernetes.io/os": "linux" } } } },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    });
    assert.deepEqual(ds.headers, [
      "NAME",
      "DESIRED",
      "CURRENT",
      "READY",
      "UP-TO-DATE",
      "AVAILABLE",
      "NODE SELECTOR",
      "AGE",
    ]);
    assert.deepEqual(ds.cells.slice(0, 8), ["agent", 3, 3, 2, 3, 2, "kubernetes.io/os=linux", "31m"]);
  });
  test("Job: STATUS (1.30+), COMPLETIONS forms, DURATION while running and once complete", () => {
    const job = (spec: Record<string, unknown>, status: Record<string, unknown>) => ({
      metadata: meta("migrate", HOUR),
      spec: { template, ...spec },
      status,
    });
    const complete = table(
      "Job",
      job(
        { completions: 1 },
        {
          succeeded: 1,
          startTime: ago(HOUR),
          completionTime: ago(HOUR - 7000),
          conditions: [{ type: "Complete", status: "True" }],
        },
      ),
    );
    assert.deepEqual(complete.headers, ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    assert.deepEqual(complete.cells.slice(0, 5), ["migrate", "Complete", "1/1", "7s", "60m"]);
    const running = table("Job", job({ parallelism: 3 }, { startTime: ago(5 * MIN) }));
    assert.deepEqual(running.cells.slice(1, 4), ["Running", "0/1 of 3", "5m"]);
    const failed = table("Job", job({}, { conditions: [{ type: "Failed", status: "True" }] }));
    assert.deepEqual(failed.cells.slice(1, 4), ["Failed", "0/1", ""]);
    const old = table("Job", job({ completions: 2 }, { succeeded: 1 }), { major: 1, minor: 29 });
    assert.deepEqual(old.headers, ["NAME", "COMPLETIONS", "DURATION", "AGE"]);
    assert.deepEqual(old.cells.slice(0, 2), ["migrate", "1/2"]);
  });
  test("CronJob: TIMEZONE <none>, SUSPEND as a string, LAST SCHEDULE", () => {
    const t = table("CronJob", {
      metadata: meta("nightly", 10 * DAY),
      spec: { schedule: "0 3 * * *", suspend: false, jobTemplate: { spec: { template } } },
      status: { active: [{ name: "x" }], lastScheduleTime: ago(3 * HOUR) },
    });
    assert.deepEqual(t.headers, ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"]);
    assert.deepEqual(t.cells.slice(0, 7), ["nightly", "0 3 * * *", "<none>", "False", 1, "3h", "10d"]);
    const unset = table("CronJob", { metadata: meta("n"), spec: { schedule: "@daily", timeZone: "Etc/UTC" } });
    assert.deepEqual(unset.cells.slice(2, 6), ["Etc/UTC", "<unset>", 0, "<none>"]);
  });
});

describe("config, identity and policy kinds", () => {
  test("ConfigMap and Secret DATA counts; Secret TYPE", () => {
    assert.deepEqual(
      table("ConfigMap", { metadata: meta("c"), data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }).cells,
      ["c", 3, "31m"],
    );
    const secret = table("Secret", { metadata: meta("s"), type: "helm.sh/release.v1", data: { release: "x" } });
    assert.deepEqual(secret.headers, ["NAME", "TYPE", "DATA", "AGE"]);
    assert.deepEqual(secret.cells, ["s", "helm.sh/release.v1", 1, "31m"]);
  });
  test("ServiceAccount: SECRETS up to 1.34, gone in 1.35", () => {
    const sa = { metadata: meta("demo") };
    assert.deepEqual(table("ServiceAccount", sa, V134).headers, ["NAME", "SECRETS", "AGE"]);
    assert.deepEqual(table("ServiceAccount", sa, V134).cells, ["demo", 0, "31m"]);
    assert.deepEqual(table("ServiceAccount", sa, V135).headers, ["NAME", "AGE"]);
    assert.deepEqual(table("ServiceAccount", sa, V135).cells, ["demo", "31m"]);
  });
  test("Role and ClusterRole use the default convertor: NAME, CREATED AT (RFC3339)", () => {
    const printer = printerOf("ClusterRole");
    assert.deepEqual(
      printer.columns(V134).map((c) => [c.name, c.type]),
      [
        ["Name", "string"],
        ["Created At", "date"],
      ],
    );
    assert.deepEqual(table("Role", { metadata: meta("reader") }).cells, ["reader", ago(31 * MIN)]);
  });
  test("RoleBinding: ROLE kind/name, subjects in wide cells", () => {
    const t = table("RoleBinding", {
      metadata: meta("rb"),
      roleRef: { kind: "ClusterRole", name: "view" },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "User", name: "bob" },
        { kind: "Group", name: "devs" },
        { kind: "ServiceAccount", name: "demo", namespace: "default" },
      ],
    });
    assert.deepEqual(t.headers, ["NAME", "ROLE", "AGE"]);
    assert.deepEqual(t.cells, ["rb", "ClusterRole/view", "31m", "alice, bob", "devs", "default/demo"]);
  });
  test("Ingress: CLASS, HOSTS (3 then + N more...), ADDRESS, PORTS with TLS", () => {
    const t = table("Ingress", {
      metadata: meta("web"),
      spec: {
        ingressClassName: "alb",
        rules: ["a", "b", "c", "d"].map((h) => ({ host: `${h}.example.com` })),
        tls: [{}],
      },
      status: { loadBalancer: { ingress: [{ hostname: "k8s-web.elb.amazonaws.com" }] } },
    });
    assert.deepEqual(t.headers, ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]);
    assert.deepEqual(t.cells, [
      "web",
      "alb",
      "a.example.com,b.example.com,c.example.com + 1 more...",
      "k8s-web.elb.amazonaws.com",
      "80, 443",
      "31m",
    ]);
    assert.deepEqual(table("Ingress", { metadata: meta("bare"), spec: {} }).cells.slice(1, 5), [
      "<none>",
      "*",
      "",
      "80",
    ]);
  });
  test("PersistentVolumeClaim: capacity and modes only once bound", () => {
    const bound = table("PersistentVolumeClaim", {
      metadata: meta("data"),
      spec: { volumeName: "pvc-1", storageClassName: "gp2", volumeMode: "Filesystem" },
      status: { phase: "Bound", capacity: { storage: "8Gi" }, accessModes: ["ReadWriteOnce", "ReadWriteOncePod"] },
    });
    assert.deepEqual(bound.headers, [
      "NAME",
      "STATUS",
      "VOLUME",
      "CAPACITY",
      "ACCESS MODES",
      "STORAGECLASS",
      "VOLUMEATTRIBUTESCLASS",
      "AGE",
    ]);
    assert.deepEqual(bound.cells, ["data", "Bound", "pvc-1", "8Gi", "RWO,RWOP", "gp2", "<unset>", "31m", "Filesystem"]);
    const pending = table("PersistentVolumeClaim", { metadata: meta("p"), spec: {}, status: { phase: "Pending" } });
    assert.deepEqual(pending.cells.slice(1, 5), ["Pending", "", "", ""]);
  });
  test("HorizontalPodAutoscaler: REFERENCE, TARGETS with resource prefix, MINPODS string", () => {
    const t = table("HorizontalPodAutoscaler", {
      metadata: meta("web"),
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "web" },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 75 } } },
          { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } } },
          { type: "Pods", pods: { target: { averageValue: "1k" } } },
        ],
      },
      status: {
        currentReplicas: 2,
        currentMetrics: [{ type: "Resource", resource: { current: { averageUtilization: 10 } } }],
      },
    });
    assert.deepEqual(t.headers, ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]);
    assert.deepEqual(t.cells, [
      "web",
      "Deployment/web",
      "cpu: 10%/75%, memory: <unknown>/500Mi + 1 more...",
      "2",
      10,
      2,
      "31m",
    ]);
    const none = table("HorizontalPodAutoscaler", {
      metadata: meta("x"),
      spec: { scaleTargetRef: { kind: "Deployment", name: "x" }, maxReplicas: 3 },
    });
    assert.deepEqual(none.cells.slice(2, 6), ["<none>", "<unset>", 3, 0]);
  });
  test("NetworkPolicy, PodDisruptionBudget, Namespace", () => {
    assert.deepEqual(table("NetworkPolicy", { metadata: meta("np"), spec: { podSelector: {} } }).cells, [
      "np",
      "<none>",
      "31m",
    ]);
    assert.deepEqual(
      table("NetworkPolicy", { metadata: meta("np"), spec: { podSelector: { matchLabels: { app: "x" } } } }).cells[1],
      "app=x",
    );
    const pdb = table("PodDisruptionBudget", {
      metadata: meta("pdb"),
      spec: { minAvailable: 1 },
      status: { disruptionsAllowed: 0 },
    });
    assert.deepEqual(pdb.headers, ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]);
    assert.deepEqual(pdb.cells, ["pdb", "1", "N/A", 0, "31m"]);
    assert.deepEqual(
      table("Namespace", { metadata: { name: "x", creationTimestamp: ago(2 * DAY) }, status: { phase: "Terminating" } })
        .cells,
      ["x", "Terminating", "2d"],
    );
  });
});

describe("custom resources", () => {
  test("no printer columns: NAME, AGE (date rendered as HumanDuration)", () => {
    const printer = customResourcePrinter(undefined);
    assert.deepEqual(
      printer.columns(V134).map((c) => [c.name, c.type]),
      [
        ["Name", "string"],
        ["Age", "date"],
      ],
    );
    assert.deepEqual(printer.row({ metadata: meta("w1") }, { now: NOW, version: V134 }).cells, ["w1", "31m"]);
  });
  test("additionalPrinterColumns: JSONPath, typed cells, priority, null when missing", () => {
    const printer = customResourcePrinter([
      { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      { name: "Paused", type: "boolean", jsonPath: ".spec.paused", priority: 1 },
      { name: "Missing", type: "string", jsonPath: ".status.nothing" },
      { name: "Synced", type: "date", jsonPath: ".status.lastSync" },
    ]);
    const columns = printer.columns(V134);
    assert.deepEqual(
      columns.map((c) => [c.name, c.priority]),
      [
        ["Name", 0],
        ["Ready", 0],
        ["Replicas", 0],
        ["Paused", 1],
        ["Missing", 0],
        ["Synced", 0],
      ],
    );
    const row = printer.row(
      {
        metadata: meta("w1"),
        spec: { replicas: 3, paused: false },
        status: {
          conditions: [
            { type: "Synced", status: "False" },
            { type: "Ready", status: "True" },
          ],
          lastSync: ago(5 * MIN),
        },
      },
      { now: NOW, version: V134 },
    );
    assert.deepEqual(row.cells, ["w1", "True", 3, false, null, "5m"]);
  });
  test("JSONPath subset: indices, wildcards, escaped dots", () => {
    const object = { metadata: { labels: { "app.kubernetes.io/name": "demo" } }, items: [{ a: 1 }, { a: 2 }] };
    assert.equal(evaluateJsonPath(object, ".metadata.labels.app\\.kubernetes\\.io/name"), "demo");
    assert.equal(evaluateJsonPath(object, ".items[1].a"), 2);
    assert.equal(evaluateJsonPath(object, ".items[-1].a"), 2);
    assert.equal(evaluateJsonPath(object, "{.items[*].a}"), 1);
    assert.equal(evaluateJsonPath(object, ".items[5].a"), undefined);
  });
});
