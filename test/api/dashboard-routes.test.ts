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
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import type { DashboardConfig } from "../../functions/api/dashboard-config.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { makeRelease } from "../store/fixtures.ts";
import { bodyJson, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

const assets = mkdtempSync(join(tmpdir(), "dashboard-assets-"));
mkdirSync(join(assets, "assets"));
writeFileSync(join(assets, "index.html"), "<!doctype html><title>helm status</title>");
writeFileSync(join(assets, "assets", "app-ABCD1234.js"), "console.log(1)");

const clusters = {
  list: () => [
    { name: "eu", region: "eu-west-1" },
    { name: "us", region: "us-east-1" },
  ],
  access: async () => Promise.reject(new Error("unused")),
  invalidate: () => {},
};
const store = new MemoryReleaseStore();
await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop" }));
await store.putRevision("us", makeRelease({ name: "db", namespace: "data" }));

function handlerWith(dashboard: Partial<DashboardConfig>) {
  return createApiHandler({
    store,
    clusters,
    kube: createKubeReader({ connector: clusters }),
    clock: { now: () => new Date("2026-01-01T00:00:00Z") },
    logger: new RecordingLogger(),
    metrics: new RecordingMetrics(),
    settings: apiSettingsFromEnv({}),
    snapshots: new MemorySnapshotStore(),
    dashboard: {
      auth: "jwt",
      groupsClaim: "cognito:groups",
      access: parseViewerAccessMap("groups:\n  - group: us-team\n    clusters: [us]\n", "test"),
      assetsDir: assets,
      connectOrigins: ["https://cognito-idp.eu-west-1.amazonaws.com", "https://*.amazoncognito.com"],
      oidc: { issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc", clientId: "app", scopes: "openid" },
      ...dashboard,
    },
  });
}
const handler = handlerWith({});

/** What API Gateway's JWT authorizer adds (claims as strings, a list flattened to "[a b]"). */
function withClaims(path: string, claims?: Record<string, string>, method = "GET") {
  const event = httpApiEvent(method, path);
  const context = event.requestContext as unknown as Record<string, unknown>;
  context.authorizer = claims ? { jwt: { claims, scopes: [] } } : undefined;
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
  const usTeam = { sub: "u1", "cognito:groups": "[us-team other]" };
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
