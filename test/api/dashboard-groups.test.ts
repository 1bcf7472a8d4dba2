/**
 * Issue #38 item 4: group names that escalate. API Gateway's JWT authorizer flattens a list claim to `[a b]`, and the
 * groups were once split on spaces and commas from it: a group named `contractors platform-admins` read as
 * `platform-admins`. Now the groups are the verified token's own list, compared exactly; the map refuses names no
 * token could carry exactly. Real signed tokens, real API Gateway v2 events, the real handler.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { dashboardConfigFromEnv } from "../../functions/api/dashboard-config.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { makeRelease } from "../store/fixtures.ts";
import { bodyJson, lambdaContext, signedTokenEvent, testApiHandler } from "./support.ts";

const store = new MemoryReleaseStore();
await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop" }));
await store.putRevision("eu", makeRelease({ name: "ledger", namespace: "payments" }));

const handler = testApiHandler({
  store,
  clock: { now: () => new Date("2026-01-01T00:00:00Z") },
  dashboard: {
    auth: "jwt",
    groupsClaim: "groups",
    access: parseViewerAccessMap(
      "groups:\n  - group: platform-admins\n    clusters: '*'\n  - group: contractors\n    clusters: [eu]\n    namespaces: [shop]\n",
      "test",
    ),
    assetsDir: "dashboard/dist",
    connectOrigins: [],
  },
});

async function ask(path: string, groups: unknown) {
  return handler(await signedTokenEvent("GET", path, { sub: "someone", groups }), lambdaContext());
}
const LEDGER = "/dashboard/api/clusters/eu/namespaces/payments/releases/ledger/history";

for (const name of ["contractors platform-admins", "x,platform-admins", "platform-admins ", "x\nplatform-admins"]) {
  test(`a group named ${JSON.stringify(name)} is not platform-admins`, async () => {
    const ledger = await ask(LEDGER, [name]);
    assert.equal(ledger.statusCode, 403, "payments is platform-admins' only");
    const seen = bodyJson(await ask("/dashboard/api/clusters", [name])) as { clusters: unknown[] };
    assert.deepEqual(seen.clusters, [], "no binding matches: no cluster is listed");
  });
}

test("the exact group still reads; a contractor reads shop only", async () => {
  assert.equal((await ask(LEDGER, ["platform-admins"])).statusCode, 200);
  assert.equal((await ask(LEDGER, ["contractors"])).statusCode, 403);
  const shop = "/dashboard/api/clusters/eu/namespaces/shop/releases/api/history";
  assert.equal((await ask(shop, ["contractors", "platform-admins x"])).statusCode, 200);
  assert.equal((await ask(LEDGER, ["contractors", "platform-admins x"])).statusCode, 403);
});

test("claims of one token with the header of another are refused (401): the groups come from the verified token", async () => {
  const verified = await signedTokenEvent("GET", LEDGER, { sub: "someone", groups: ["contractors"] });
  const other = await signedTokenEvent("GET", LEDGER, { sub: "someone-else", groups: ["platform-admins"] });
  verified.headers.authorization = other.headers.authorization;
  assert.equal((await handler(verified, lambdaContext())).statusCode, 401);
  const bare = await signedTokenEvent("GET", LEDGER, { sub: "someone", groups: ["platform-admins"] });
  delete bare.headers.authorization;
  assert.equal((await handler(bare, lambdaContext())).statusCode, 401);
});

test("access-map group names no token could carry exactly are refused at start", () => {
  for (const name of ["platform-admins ", " platform-admins", "", "  "]) {
    assert.throws(
      () =>
        dashboardConfigFromEnv({
          DASHBOARD_ACCESS: JSON.stringify({ groups: [{ group: name, clusters: "*" }] }),
        }),
      (error: Error & { code?: string }) =>
        error.code === "InvalidDashboardConfig" && /groups\[0\]\.group/.test(error.message),
      JSON.stringify(name),
    );
  }
  assert.throws(
    () =>
      parseViewerAccessMap('groups:\n  - groups: [ok, "platform-admins "]\n    clusters: "*"\n', "DASHBOARD_ACCESS"),
    /DASHBOARD_ACCESS: groups\[0\]\.group: group "platform-admins " has leading or trailing white space/,
  );
});
