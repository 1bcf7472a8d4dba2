import assert from "node:assert/strict";
import { after, test } from "node:test";
import { builtinKinds, builtinMapping } from "../../shared/kube/builtin-kinds.ts";
import { DiscoveryCache, resolveKinds } from "../../shared/kube/discovery.ts";
import { ConnectionPools } from "../../shared/kube/http.ts";
import { ClusterLimit } from "../../shared/kube/limiter.ts";
import { KubeSession } from "../../shared/kube/session.ts";
import { simConnector } from "../status/sim-connector.ts";
import { simulatedEksForFile } from "../support/sim.ts";

/** Discovery against the simulated EKS: aggregated first, legacy per group-version, the TTL cache. */

const sim = simulatedEksForFile({ clusters: [{ name: "disco" }] });
const pools = new ConnectionPools();
const clusterLimit = new ClusterLimit({ maxInFlight: 16 });
let cache = new DiscoveryCache();
const newSession = () => new KubeSession({ cluster: "disco", connector: simConnector(sim()), pools, clusterLimit });
after(() => pools.close());

const kinds = [
  { apiVersion: "v1", kind: "ConfigMap" },
  { apiVersion: "apps/v1", kind: "Deployment" },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" },
  { apiVersion: "example.com/v1", kind: "Widget" },
  { apiVersion: "apps/v1", kind: "NoSuchKind" },
];

async function resolve(options: { now: number; ttlMs?: number; legacyOnly?: boolean }) {
  const session = newSession();
  try {
    const result = await resolveKinds(cache, session, kinds, options);
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
  cache = new DiscoveryCache();
  const cold = await resolve({ now: 0 });
  assert.deepEqual(summary(cold.result), expected);
  assert.equal(cache.mode("disco"), "aggregated");
  assert.equal(cold.requests, 2);
  // Within the TTL, the unknown kinds trigger exactly one refresh (2 requests), not one per kind.
  const warm = await resolve({ now: 1000 });
  assert.deepEqual(summary(warm.result), expected);
  assert.equal(warm.requests, 2);
  const known = newSession();
  await resolveKinds(cache, known, kinds.slice(0, 3), { now: 2000 });
  assert.equal(known.counters.requests, 0, "all known: no request at all");
  known.close();
});

test("legacy discovery: only the group-versions the manifest uses; an unserved group-version is an unknown kind", async () => {
  cache = new DiscoveryCache();
  const cold = await resolve({ now: 0, legacyOnly: true });
  assert.deepEqual(summary(cold.result), expected);
  assert.equal(cache.mode("disco"), "legacy");
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
  cache = new DiscoveryCache();
  await resolve({ now: 0, ttlMs: 1000 });
  const expired = await resolve({ now: 5000, ttlMs: 1000 });
  assert.equal(expired.requests, 2);
});

test("the static table of built-in kinds says what discovery says (plural, scope) for every kind both know", async () => {
  cache = new DiscoveryCache();
  const all = builtinKinds().map((key) => {
    const [apiVersion, kind] = key.split("|");
    return { apiVersion, kind };
  });
  const session = newSession();
  try {
    const discovered = await resolveKinds(cache, session, all, { now: 0 });
    let compared = 0;
    for (const gvk of all) {
      const lookup = discovered.get(`${gvk.apiVersion}|${gvk.kind}`);
      if (!lookup || !("mapping" in lookup)) continue; // the simulator serves a subset of the built-ins
      assert.deepEqual(builtinMapping(gvk), lookup.mapping, `${gvk.apiVersion} ${gvk.kind}`);
      compared++;
    }
    assert.ok(compared >= 20, `compared ${compared} kinds`);
  } finally {
    session.close();
  }
});
