/**
 * What gets enqueued for attribution (shared/who/subjects.ts): each revision the release sync imports new (on the
 * simulated EKS: its storage kind and creationTimestamp), once; and the drift writes a report shows, one per
 * object, manager and time, without benign controllers or Helm's own later revision.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { cliAttributionQueue } from "../../bin/lib/store.ts";
import type { DriftedField } from "../../shared/drift/types.ts";
import { encodeHelmConfigMap, encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import {
  auditedDriftWrites,
  driftWriteSubjects,
  enqueueForAttribution,
  revisionSubject,
} from "../../shared/who/subjects.ts";
import { syncOnSimulator } from "../support/sync-sim.ts";
import { STORE_CLOCK } from "./support.ts";

const stack = syncOnSimulator("attributed");

const release = (name: string, version: number, status: ReleaseStatus = "deployed"): Release => ({
  name,
  namespace: "shop",
  version,
  manifest: `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-config\n`,
  info: { status, last_deployed: "2026-12-03T10:00:00Z", description: "Upgrade complete" },
  chart: { metadata: { name: "demo", version: "0.1.0" } },
});

test("the sync enqueues each revision it imports new, with its storage kind and creation time, once", async () => {
  const stores = { ...stack.fresh(), attributions: new MemoryAttributionStore(STORE_CLOCK) };
  stack
    .cluster()
    .apply([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
      encodeHelmSecret(release("web", 1, "superseded")),
      encodeHelmSecret(release("web", 2)),
      encodeHelmConfigMap(release("legacy", 1)),
    ]);
  await stack.sync(stores);
  const web = await stores.attributions.forRelease(stack.key("shop", "web"));
  assert.deepEqual(web.map((a) => a.key).sort(), ["rev#shop#web#1", "rev#shop#web#2"]);
  const [legacy] = await stores.attributions.forRelease(stack.key("shop", "legacy"));
  assert.equal(legacy.subject.type === "revision" && legacy.subject.storageKind, "ConfigMap");
  assert.ok(web.every((a) => a.subject.type === "revision" && a.subject.storageKind === "Secret"));
  assert.ok(web.every((a) => a.subject.type === "revision" && Number.isFinite(Date.parse(a.subject.createdAt))));

  // Helm's upgrade: revision 3 new, revision 2 relabelled superseded (not new: not enqueued again).
  stack.cluster().apply([encodeHelmSecret(release("web", 2, "superseded")), encodeHelmSecret(release("web", 3))]);
  const enqueued: string[] = [];
  const spy = stores.attributions;
  const counting = Object.assign(Object.create(spy), {
    enqueue: (subjects: Parameters<typeof spy.enqueue>[0], now: Date) => {
      enqueued.push(...subjects.map((s) => (s.type === "revision" ? `${s.release}.v${s.revision}` : s.name)));
      return spy.enqueue(subjects, now);
    },
  });
  await stack.sync({ ...stores, attributions: counting });
  assert.deepEqual(enqueued, ["web.v3"]);
  await stack.sync({ ...stores, attributions: counting });
  assert.deepEqual(enqueued, ["web.v3"]);
});

test("the sync without an attribution store, or with one that fails, syncs as before", async () => {
  const stores = stack.fresh();
  stack
    .cluster()
    .apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, encodeHelmSecret(release("api", 1))]);
  const imported = (await stack.sync(stores)).imported;
  assert.ok(imported >= 1);
  const failing = new MemoryAttributionStore(STORE_CLOCK);
  failing.enqueue = async () => {
    throw Object.assign(new Error("down"), { name: "StoreUnavailableError" });
  };
  const again = { ...stack.fresh(), attributions: failing };
  const summary = await stack.sync(again);
  assert.equal(summary.imported, imported);
  assert.equal(summary.complete, true);
});

const field = (change: Partial<DriftedField>): DriftedField => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  name: "web-config",
  namespace: "shop",
  field: "data.LOG_LEVEL",
  live: "debug",
  release: "warn",
  secret: false,
  changedBy: "kubectl-patch",
  operation: "Update",
  changedAt: "2026-12-04T10:00:05Z",
  helmOwns: false,
  conflicts: false,
  ...change,
});

test("drift writes: one per object, manager and time; none for benign owners, Helm's later revision, no manager or time", () => {
  const key = { cluster: "eu", namespace: "shop", name: "web" };
  const subjects = driftWriteSubjects(key, {
    checked: 3,
    conflicts: 0,
    benign: 1,
    fields: [
      field({}),
      field({ field: "data.OTHER" }),
      field({ changedAt: "2026-12-04T10:07:00Z" }),
      field({
        kind: "Deployment",
        apiVersion: "apps/v1",
        name: "web",
        field: "spec.replicas",
        changedBy: "kube-controller-manager",
        subresource: "scale",
        benign: "HPA",
      }),
      field({ changedBy: "helm", helmRevision: 5 }),
      field({ changedBy: undefined, note: "managedFields cleared" }),
      field({ changedAt: undefined }),
    ],
  });
  assert.deepEqual(subjects, [
    {
      type: "write",
      cluster: "eu",
      namespace: "shop",
      release: "web",
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "web-config",
      objectNamespace: "shop",
      manager: "kubectl-patch",
      operation: "Update",
      at: "2026-12-04T10:00:05Z",
    },
    { ...subjects[0], at: "2026-12-04T10:07:00Z" },
  ]);
  assert.deepEqual(driftWriteSubjects(key, undefined), []);
});

test("an audit enqueues the writes of the release's own namespace only, never of another namespace its manifest names", () => {
  const key = { cluster: "eu", namespace: "shop", name: "api" };
  const own = field({});
  const borrowed = field({ name: "ledger-settings", namespace: "payments", changedBy: "kubectl-edit" });
  const drift = (fields: ReturnType<typeof field>[]) => ({ checked: fields.length, conflicts: 0, benign: 0, fields });
  const subjects = auditedDriftWrites(key, {
    drift: drift([own, borrowed]),
    ownNamespaceView: { drift: drift([own]) },
  });
  assert.deepEqual(
    subjects.map((s) => `${s.objectNamespace}/${s.name}`),
    ["shop/web-config"],
  );
  // A read that stayed in the release's namespace has no separate view: its drift is the namespace's own.
  assert.equal(auditedDriftWrites(key, { drift: drift([own]) }).length, 1);
});

test("a revision without a creationTimestamp takes when the sync saw it; enqueue without a store does nothing", async () => {
  const seen = new Date("2026-12-04T10:00:00Z");
  const subject = revisionSubject(
    "eu",
    { namespace: "shop", release: "web", revision: 2 },
    { kind: "Secret", metadata: {} },
    seen,
  );
  assert.equal(subject.createdAt, seen.toISOString());
  await enqueueForAttribution({ logger: { debug() {}, info() {}, warn() {}, error() {} } }, [subject], seen);
});

test("the CLI enqueues where a worker looks up: a shared table yes; its embedded store or WHO_LOOKUP=off no", () => {
  const config = { driver: "memory" as const, region: "us-east-1", tableName: "releases" };
  assert.ok(cliAttributionQueue({ config, embedded: false }, true));
  assert.equal(cliAttributionQueue({ config, embedded: true }, true), undefined);
  assert.equal(cliAttributionQueue({ config, embedded: false }, false), undefined);
});
