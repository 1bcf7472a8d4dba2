import assert from "node:assert/strict";
import { test } from "node:test";
import { clearDiscoveryCache, discoveryMode, resolveKinds } from "../../shared/kube/discovery.ts";
import { KubeSession } from "../../shared/kube/session.ts";
import { simConnector } from "../status/sim-connector.ts";
import { simulatedEksForFile } from "../support/sim.ts";

/** Discovery against the simulated EKS: aggregated first, legacy per group-version, the TTL cache. */

const sim = simulatedEksForFile({ clusters: [{ name: "disco" }] });

const kinds = [
  { apiVersion: "v1", kind: "ConfigMap" },
  { apiVersion: "apps/v1", kind: "Deployment" },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" },
  { apiVersion: "example.com/v1", kind: "Widget" },
  { apiVersion: "apps/v1", kind: "NoSuchKind" },
];

async function resolve(options: { now: number; ttlMs?: number; legacyOnly?: boolean }) {
  const session = new KubeSession({ cluster: "disco", connector: simConnector(sim()) });
  try {
    const result = await resolveKinds(session, kinds, options);
    return { result, requests: session.counters.requests };
  } finally {
    session.close();
  }
}

function summary(result: Awaited<ReturnType<typeof resolve>>["result"]) {
  return [...result.values()].map((lookup) =>
    "mapping" in lookup ? `${lookup.mapping.resource}:${lookup.mapping.namespaced}` : lookup.unknown,
  );
}

const expected = [
  "configmaps:true",
  "deployments:true",
  "clusterroles:false",
  'no matches for kind "Widget" in version "example.com/v1"',
  'no matches for kind "NoSuchKind" in version "apps/v1"',
];

test("aggregated discovery: two requests for the whole cluster, then cached; a miss refreshes once", async () => {
  clearDiscoveryCache();
  const cold = await resolve({ now: 0 });
  assert.deepEqual(summary(cold.result), expected);
  assert.equal(discoveryMode("disco"), "aggregated");
  assert.equal(cold.requests, 2);
  // Within the TTL, the unknown kinds trigger exactly one refresh (2 requests), not one per kind.
  const warm = await resolve({ now: 1000 });
  assert.deepEqual(summary(warm.result), expected);
  assert.equal(warm.requests, 2);
  const known = new KubeSession({ cluster: "disco", connector: simConnector(sim()) });
  await resolveKinds(known, kinds.slice(0, 3), { now: 2000 });
  assert.equal(known.counters.requests, 0, "all known: no request at all");
  known.close();
});

test("legacy discovery: only the group-versions the manifest uses; an unserved group-version is an unknown kind", async () => {
  clearDiscoveryCache();
  const cold = await resolve({ now: 0, legacyOnly: true });
  assert.deepEqual(summary(cold.result), expected);
  assert.equal(discoveryMode("disco"), "legacy");
  // /api, /apis, then /api/v1, /apis/apps/v1, /apis/rbac.authorization.k8s.io/v1, /apis/example.com/v1 (404).
  assert.equal(cold.requests, 6);
  const paths = sim()
    .cluster("disco")
    .stats()
    .log.map((entry) => entry.path);
  assert.ok(paths.includes("/apis/example.com/v1"));
  assert.ok(!paths.includes("/apis/batch/v1"), "group-versions the manifest does not use are not read");
});

test("the TTL: an expired entry is read again", async () => {
  clearDiscoveryCache();
  await resolve({ now: 0, ttlMs: 1000 });
  const expired = await resolve({ now: 5000, ttlMs: 1000 });
  assert.equal(expired.requests, 2);
});
