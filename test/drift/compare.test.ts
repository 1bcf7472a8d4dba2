import assert from "node:assert/strict";
import { test } from "node:test";
import { compareObject, detectDrift, quantitiesEqual } from "../../shared/drift/index.ts";
import { driftHeaderLine, driftHealthLines } from "../../shared/render/status/drift.ts";
import type { StatusReport } from "../../shared/status/report.ts";

// One line per case: [what, manifest fragment, live fragment, drifted fields expected].
type Case = [string, Record<string, unknown>, Record<string, unknown>, string[]];
const container = (extra: Record<string, unknown>) => ({
  spec: { template: { spec: { containers: [{ name: "app", ...extra }] } } },
});
const limits = (values: Record<string, unknown>) => container({ resources: { limits: values } });
const servicePort = (targetPort: unknown, protocol?: string) => ({
  spec: { ports: [{ port: 80, ...(protocol ? { protocol } : {}), targetPort }] },
});
const podSpec = (spec: Record<string, unknown>) => ({ spec: { template: { spec } } });
const env = (...pairs: [string, string][]) => container({ env: pairs.map(([name, value]) => ({ name, value })) });
const LIMIT_CPU = "spec.template.spec.containers[name=app].resources.limits.cpu";
// biome-ignore format: one case per line
const CASES: Case[] = [
  ["quantity 500m = 0.5", limits({ cpu: "500m" }), limits({ cpu: "0.5" }), []],
  ["quantity 1Gi = 1073741824", limits({ memory: "1Gi" }), limits({ memory: "1073741824" }), []],
  ["quantity 1024Mi = 1Gi", limits({ memory: "1024Mi" }), limits({ memory: "1Gi" }), []],
  ["quantity 1 (a number) = 1000m", limits({ cpu: 1 }), limits({ cpu: "1000m" }), []],
  ["quantity 250m != 0.5", limits({ cpu: "250m" }), limits({ cpu: "0.5" }), [LIMIT_CPU]],
  ["port 8080 = 8080", servicePort(8080), servicePort(8080, "TCP"), []],
  ["port named = named", servicePort("http"), servicePort("http", "TCP"), []],
  ["port \"8080\" != 8080 (int-or-string keeps its type)", servicePort("8080"), servicePort(8080, "TCP"), ["spec.ports[port=80].targetPort"]],
  ["ports by key, protocol defaulted", container({ ports: [{ containerPort: 80 }] }), container({ ports: [{ containerPort: 80, protocol: "TCP" }] }), []],
  ["containers by name, not position", podSpec({ containers: [{ name: "a" }, { name: "b", image: "y" }] }), podSpec({ containers: [{ name: "b", image: "y" }, { name: "a" }] }), []],
  ["env by name, not position", env(["A", "1"], ["B", "2"]), env(["B", "2"], ["A", "1"]), []],
  ["env value changed", env(["A", "1"]), env(["A", "2"]), ["spec.template.spec.containers[name=app].env[name=A].value"]],
  ["volume item gone", podSpec({ volumes: [{ name: "v", emptyDir: {} }] }), podSpec({ volumes: [] }), ["spec.template.spec.volumes[name=v]"]],
  ["empty string = absent", { spec: { serviceAccountName: "" } }, { spec: {} }, []],
  ["empty map = absent", { metadata: { annotations: {} } }, { metadata: {} }, []],
  ["empty list = absent", podSpec({ tolerations: [] }), podSpec({}), []],
  ["null = absent", { spec: { replicas: null } }, { spec: {} }, []],
  ["a default the manifest does not set is not drift", container({ image: "x" }), container({ image: "x", imagePullPolicy: "Always" }), []],
  ["an atomic list keeps its order", container({ args: ["a", "b"] }), container({ args: ["b", "a"] }), ["spec.template.spec.containers[name=app].args"]],
  ["number 1 = 1.0", { spec: { replicas: 1 } }, { spec: { replicas: 1.0 } }, []],
  ["status is never compared", { status: { replicas: 3 } }, { status: { replicas: 1 } }, []],
  ["a label key with dots", { metadata: { labels: { "app.kubernetes.io/name": "a" } } }, { metadata: { labels: { "app.kubernetes.io/name": "b" } } }, ["metadata.labels[app.kubernetes.io/name]"]],
];

for (const [what, manifest, live, expected] of CASES) {
  test(`compare: ${what}`, () => {
    const fields = compareObject({ manifest: { kind: "X", ...manifest }, live }).map((d) => d.field);
    assert.deepEqual(fields, expected);
  });
}

test("quantities compare exactly (no float rounding)", () => {
  assert.ok(quantitiesEqual("1.5Gi", "1536Mi"));
  assert.ok(quantitiesEqual("1e3", "1k"));
  assert.ok(!quantitiesEqual("100000000000000001m", "100000000000000000m"));
});

test("Secret values are never compared: only a key the manifest sets that is gone live is a row", () => {
  const manifest = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
    data: { a: "b25l", b: "dHdv", gone: "eA==" },
    stringData: { c: "three", d: "four" },
  };
  // As the fetch hands it over: values redacted, keys kept (a live stringData.c is stored as data.c).
  const live = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
    data: { a: "<redacted>", b: "<redacted>", c: "<redacted>" },
  };
  const report = detectDrift({ objects: [{ apiVersion: "v1", kind: "Secret", name: "s", manifest, live }] });
  assert.deepEqual(
    report.fields.map((f) => [f.field, f.release, f.live, f.secret]),
    [
      ["data.gone", undefined, "<absent>", true],
      ["stringData.d", undefined, "<absent>", true],
    ],
  );
  assert.ok(!JSON.stringify(report).includes("dHdv") && !JSON.stringify(report).includes("four"));
});

test("attribution: the last non-Helm owner, its time, helm ownership, SSA conflicts and the HPA as benign", () => {
  const managedFields = [
    {
      manager: "helm",
      operation: "Apply",
      apiVersion: "apps/v1",
      time: "2026-12-02T15:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:spec": {
          "f:template": {
            "f:spec": { "f:containers": { 'k:{"name":"app"}': { ".": {}, "f:name": {}, "f:image": {} } } },
          },
        },
      },
    },
    {
      manager: "kube-controller-manager",
      operation: "Update",
      apiVersion: "apps/v1",
      subresource: "scale",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:replicas": {} } },
    },
  ];
  const manifest = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "w" },
    spec: { replicas: 1, template: { spec: { containers: [{ name: "app", image: "a:1" }] } } },
  };
  const live = {
    ...manifest,
    metadata: { name: "w", managedFields },
    spec: { replicas: 4, template: { spec: { containers: [{ name: "app", image: "a:2" }] } } },
  };
  const report = detectDrift({ objects: [{ apiVersion: "apps/v1", kind: "Deployment", name: "w", manifest, live }] });
  const [replicas, image] = report.fields;
  assert.deepEqual(
    [
      replicas.field,
      replicas.release,
      replicas.live,
      replicas.changedBy,
      replicas.subresource,
      replicas.changedAt,
      replicas.benign,
      replicas.conflicts,
      replicas.helmOwns,
    ],
    ["spec.replicas", "1", "4", "kube-controller-manager", "scale", undefined, "HPA", true, false],
  );
  assert.deepEqual(
    [image.changedBy, image.helmOwns, image.conflicts, image.note !== undefined],
    [undefined, true, false, true],
  );
});

test("a deployed revision after a failed upgrade: Helm's own later writes are Helm's (which revision), not a webhook's", () => {
  const managedFields = [
    {
      manager: "helm",
      operation: "Apply",
      apiVersion: "v1",
      time: "2026-12-02T15:10:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { "f:level": {} } },
    },
  ];
  const manifest = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { level: "info" } };
  const live = { ...manifest, metadata: { name: "c", managedFields }, data: { level: "debug" } };
  const objects = [{ apiVersion: "v1", kind: "ConfigMap", name: "c", manifest, live }];
  const later = [
    { version: 2, status: "failed", deployedAt: "2026-12-02T15:00:00Z" },
    { version: 3, status: "pending-upgrade", deployedAt: "2026-12-02T15:10:00.5Z" },
  ];
  const [field] = detectDrift({ objects, applyMethod: "ssa", laterRevisions: later }).fields;
  assert.deepEqual(
    [field.changedBy, field.operation, field.changedAt, field.helmRevision, field.conflicts, field.note],
    [
      "helm",
      "Apply",
      "2026-12-02T15:10:00Z",
      3,
      false,
      "Helm's own write: revision 3 (pending-upgrade), after this one",
    ],
  );
  const report = { drift: { checked: 1, fields: [field], conflicts: 0, benign: 0 } } as unknown as StatusReport;
  assert.equal(driftHeaderLine(report.drift), "DRIFT: 1 field written by Helm's later revision 3\n");
  assert.equal(driftHealthLines(report.drift).size, 0, "not a change behind Helm's back");
  // Without later revisions (the deployed revision is the latest) the same entry is unattributed, as before.
  const [alone] = detectDrift({ objects, applyMethod: "ssa" }).fields;
  assert.deepEqual([alone.changedBy, alone.helmRevision, alone.helmOwns], [undefined, undefined, true]);
});

test("a multi-line value stays on one line, escaped, so both sides show", () => {
  const manifest = { apiVersion: "v1", kind: "ConfigMap", data: { conf: "a = 1\nb = 2\n" } };
  const live = { ...manifest, data: { conf: "a = 1\nb = 3\n" } };
  const [field] = detectDrift({ objects: [{ apiVersion: "v1", kind: "ConfigMap", name: "c", manifest, live }] }).fields;
  assert.deepEqual([field.release, field.live], ['"a = 1\\nb = 2\\n"', '"a = 1\\nb = 3\\n"']);
});
