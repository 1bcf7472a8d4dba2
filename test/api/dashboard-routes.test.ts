/**
 * The dashboard's side of the API with real API Gateway v2 events: the static files (public, hashed names
 * cached for a year, a CSP, nothing outside the folder), the browser's settings, and the /dashboard/api mount
 * (a JWT authorizer's claims decide what a person sees; no claims is a 401; only GET; sign-in off: everything).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { DashboardConfig } from "../../functions/api/dashboard-config.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { observe, recordAudited, run } from "../history/fixtures.ts";
import { makeRelease } from "../store/fixtures.ts";
import {
  bodyJson,
  httpApiEvent,
  lambdaContext,
  signedTokenEvent,
  testApiHandler,
  unreachedClusters,
} from "./support.ts";

const assets = mkdtempSync(join(tmpdir(), "dashboard-assets-"));
mkdirSync(join(assets, "assets"));
writeFileSync(join(assets, "index.html"), "<!doctype html><title>helm status</title>");
writeFileSync(join(assets, "assets", "app-ABCD1234.js"), "console.log(1)");

const clusters = unreachedClusters([
  { name: "eu", region: "eu-west-1" },
  { name: "us", region: "us-east-1" },
]);
const store = new MemoryReleaseStore();
await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop" }));
await store.putRevision("us", makeRelease({ name: "db", namespace: "data" }));
// Audits of each release 20 (Failed), 15 and 10 minutes before the handler's "now", as the worker
// records them (with the rollups): the history routes have data, the fleet report a worst list.
const history = memoryHistoryStores();
for (const release of [
  { cluster: "eu", namespace: "shop", name: "api" },
  { cluster: "us", namespace: "data", name: "db" },
]) {
  for (const minutes of [-20, -15, -10]) {
    await recordAudited(history, observe(release, run(minutes), { podHealth: minutes === -20 ? "Failed" : "Current" }));
  }
}

function handlerWith(dashboard: Partial<DashboardConfig>) {
  return testApiHandler({
    store,
    clusters,
    clock: { now: () => new Date("2026-01-01T00:00:00Z") },
    historyStores: history,
    history: { auditIntervalSeconds: 300, retentionDays: 90 },
    dashboard: {
      auth: "jwt",
      groupsClaim: "cognito:groups",
      access: parseViewerAccessMap(
        "groups:\n  - group: us-team\n    clusters: [us]\n  - group: data-team\n    clusters: '*'\n    namespaces: [data]\n",
        "test",
      ),
      assetsDir: assets,
      connectOrigins: ["https://cognito-idp.eu-west-1.amazonaws.com", "https://*.amazoncognito.com"],
      oidc: { issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc", clientId: "app", scopes: "openid" },
      ...dashboard,
    },
  });
}
const handler = handlerWith({});

/** A request API Gateway's JWT authorizer let through (a signed token and its claims); no claims: no authorizer. */
async function withClaims(path: string, claims?: Record<string, unknown>, method = "GET") {
  const event = claims ? await signedTokenEvent(method, path, claims) : httpApiEvent(method, path);
  return handler(event, lambdaContext());
}

test("the static files: the page revalidated, hashed assets immutable, a CSP naming the issuer, nothing outside", async () => {
  const page = await handler(httpApiEvent("GET", "/dashboard/"), lambdaContext());
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers?.["content-type"]), /text\/html/);
  assert.equal(page.headers?.["cache-control"], "no-cache");
  assert.match(
    String(page.headers?.["content-security-policy"]),
    /connect-src 'self' https:\/\/cognito-idp\.eu-west-1\.amazonaws\.com/,
  );
  assert.equal(page.headers?.["referrer-policy"], "no-referrer");
  const script = await handler(httpApiEvent("GET", "/dashboard/assets/app-ABCD1234.js"), lambdaContext());
  assert.equal(script.headers?.["cache-control"], "public, max-age=31536000, immutable");
  const bare = await handler(httpApiEvent("GET", "/dashboard"), lambdaContext());
  assert.equal(bare.statusCode, 308);
  for (const path of ["/dashboard/assets/nope.js", "/dashboard/..%2f..%2fetc%2fpasswd", "/dashboard/../package.json"]) {
    assert.equal((await handler(httpApiEvent("GET", path), lambdaContext())).statusCode, 404, path);
  }
  const config = bodyJson(await handler(httpApiEvent("GET", "/dashboard/config.json"), lambdaContext()));
  assert.deepEqual(config, {
    apiBase: "/dashboard/api",
    auth: {
      mode: "oidc",
      issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc",
      clientId: "app",
      scopes: "openid",
    },
  });
});

test("the /dashboard/api mount: the claims' groups decide; no claims 401; only GET; IAM routes unchanged", async () => {
  const usTeam = { sub: "u1", "cognito:groups": ["us-team", "other"] };
  const fleet = bodyJson(await withClaims("/dashboard/api/fleet/releases", usTeam)) as { releases: { name: string }[] };
  assert.deepEqual(
    fleet.releases.map((r) => r.name),
    ["db"],
  );
  const denied = await withClaims("/dashboard/api/clusters/eu/namespaces/shop/releases/api/history", usTeam);
  assert.equal(denied.statusCode, 403);
  assert.equal((bodyJson(denied) as { error: { code: string } }).error.code, "AccessDenied");
  const unknown = await withClaims("/dashboard/api/clusters/mars/namespaces/shop/releases/api/history", usTeam);
  assert.equal(unknown.statusCode, 403, "the same answer whether the cluster exists or not");
  const clustersSeen = bodyJson(await withClaims("/dashboard/api/clusters", usTeam)) as {
    clusters: { name: string }[];
  };
  assert.deepEqual(
    clustersSeen.clusters.map((c) => c.name),
    ["us"],
  );
  assert.equal((await withClaims("/dashboard/api/fleet/releases")).statusCode, 401);
  assert.equal((await withClaims("/dashboard/api/clusters/us/releases/import", usTeam, "POST")).statusCode, 405);
  const iam = bodyJson(await handler(httpApiEvent("GET", "/fleet/releases"), lambdaContext())) as { total: number };
  assert.equal(iam.total, 2, "an IAM caller sees the whole registry, as before");
  const open = handlerWith({ auth: "off" });
  const anyone = bodyJson(await open(httpApiEvent("GET", "/dashboard/api/fleet/releases"), lambdaContext())) as {
    total: number;
  };
  assert.equal(anyone.total, 2, "sign-in off (npm start): everything");
});

test("?counts=false: the rows alone (from the FLEET index), in the person's scope; another value is a 400", async () => {
  type Rows = { releases: { cluster: string; name: string; driftCount?: number }[]; counts?: object; total?: number };
  const rows = bodyJson(
    await handler(httpApiEvent("GET", "/fleet/releases?counts=false&health=Current"), lambdaContext()),
  ) as Rows;
  assert.deepEqual(
    rows.releases.map((r) => `${r.cluster}/${r.name}:${r.driftCount}`),
    ["eu/api:0", "us/db:0"],
  );
  // Only audited healths asked for: the index answers even its last page (no never-audited row can follow).
  assert.equal(rows.counts, undefined, "no join held: no counts");
  assert.equal(rows.total, undefined);
  const usTeam = { sub: "u1", "cognito:groups": ["us-team"] };
  const mounted = bodyJson(
    await withClaims("/dashboard/api/fleet/releases?counts=false&health=Current", usTeam),
  ) as Rows;
  assert.deepEqual(
    mounted.releases.map((r) => r.name),
    ["db"],
  );
  const bad = await handler(httpApiEvent("GET", "/fleet/releases?counts=maybe"), lambdaContext());
  assert.equal(bad.statusCode, 400);
  assert.match(String(bad.body), /counts.*not true or false/);
});

test("the reliability, status-at and history reads on the mount: the registry and the person's grants, both", async () => {
  const usTeam = { sub: "u1", "cognito:groups": ["us-team"] };
  const code = async (path: string, claims = usTeam) => (await withClaims(path, claims)).statusCode;
  const releasesIn = async (path: string, claims = usTeam) => {
    const result = await withClaims(path, claims);
    assert.equal(result.statusCode, 200, path);
    const report = bodyJson(result) as { releases: number; worst: { release: { cluster: string } }[] };
    return { count: report.releases, clusters: report.worst.map((row) => row.release.cluster) };
  };
  assert.deepEqual(await releasesIn("/dashboard/api/fleet/reliability"), { count: 1, clusters: ["us"] });
  assert.equal(await code("/dashboard/api/fleet/reliability?cluster=eu"), 403);
  assert.equal(await code("/dashboard/api/clusters/us/namespaces/data/releases/db/reliability"), 200);
  assert.equal(await code("/dashboard/api/clusters/eu/namespaces/shop/releases/api/reliability"), 403);
  const at = encodeURIComponent(new Date(Date.parse("2026-01-01T00:00:00Z") - 15 * 60_000).toISOString());
  assert.equal(await code(`/dashboard/api/clusters/us/namespaces/data/releases/db/status?at=${at}`), 200);
  assert.equal(await code(`/dashboard/api/clusters/eu/namespaces/shop/releases/api/status?at=${at}`), 403);

  // A namespace-wide grant on every cluster: the namespace is checked too, and the registry still bounds it.
  const dataTeam = { sub: "u2", "cognito:groups": ["data-team"] };
  assert.equal(await code("/dashboard/api/clusters/us/namespaces/data/releases/db/history", dataTeam), 200);
  assert.equal(await code("/dashboard/api/clusters/eu/namespaces/shop/releases/api/history", dataTeam), 403);
  assert.equal(await code("/dashboard/api/clusters/eu/namespaces/shop/releases/api/snapshots", dataTeam), 403);
  assert.equal(await code("/dashboard/api/clusters/eu/namespaces/shop/releases/api/reliability", dataTeam), 403);
  assert.equal(await code("/dashboard/api/clusters/mars/namespaces/data/releases/db/history", dataTeam), 404);
  assert.deepEqual(await releasesIn("/dashboard/api/fleet/reliability", dataTeam), { count: 1, clusters: ["us"] });
  assert.deepEqual(await releasesIn("/dashboard/api/fleet/reliability?namespace=shop", dataTeam), {
    count: 0,
    clusters: [],
  });

  const iam = bodyJson(await handler(httpApiEvent("GET", "/fleet/reliability"), lambdaContext())) as {
    releases: number;
  };
  assert.equal(iam.releases, 2, "an IAM caller: the whole registry");
});
