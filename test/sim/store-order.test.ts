/**
 * The simulator's object store lists in key order (namespace, then name), as etcd range reads give kube-apiserver,
 * from a sorted key index kept across LISTs: a namespace is its own run of keys (`ns-1` never picks up `ns-10`),
 * and creates and deletes between LISTs show in the next one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinResources } from "../../local/sim/kube/registry.ts";
import { ObjectStore } from "../../local/sim/kube/store.ts";

const secrets = builtinResources().find((type) => type.kind === "Secret")!;
const namespaces = builtinResources().find((type) => type.kind === "Namespace")!;
const secret = (namespace: string, name: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { namespace, name },
});
const names = (objects: { metadata?: { namespace?: string; name?: string } }[]) =>
  objects.map((o) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name}`);

test("lists in key order per namespace and across all, after creates and deletes", () => {
  const store = new ObjectStore();
  const now = new Date("2026-12-03T00:00:00Z");
  for (const [namespace, name] of [
    ["ns-10", "b"],
    ["ns-1", "z"],
    ["ns-1", "a"],
    ["ns-2", "m"],
    ["ns-10", "a"],
  ]) {
    store.create(secrets, secret(namespace, name), now);
  }
  assert.deepEqual(names(store.list(secrets, "ns-1")), ["ns-1/a", "ns-1/z"]);
  assert.deepEqual(names(store.list(secrets, "ns-10")), ["ns-10/a", "ns-10/b"]);
  assert.deepEqual(names(store.list(secrets, "ns-3")), []);
  assert.deepEqual(names(store.list(secrets)), ["ns-1/a", "ns-1/z", "ns-10/a", "ns-10/b", "ns-2/m"]);
  store.create(secrets, secret("ns-1", "m"), now);
  store.remove(secrets, "ns-1", "a");
  assert.deepEqual(names(store.list(secrets, "ns-1")), ["ns-1/m", "ns-1/z"]);
  // A cluster-scoped kind lists every object whatever namespace is asked.
  store.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "b" } }, now);
  store.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } }, now);
  assert.deepEqual(names(store.list(namespaces, "ns-1")), ["/a", "/b"]);
  store.dropType(secrets);
  assert.deepEqual(store.list(secrets), []);
});
