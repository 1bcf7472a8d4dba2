/**
 * Issue #38 item 3: borrowed reads. A shop tenant stores a release whose manifest names payments' ConfigMap and
 * Deployment (and a cluster-scoped ClusterRole); the product reads every cluster with its own broad identity. A
 * person granted only shop must not see what payments holds: those objects are not even requested for them, the
 * answer counts them and says nothing else. IAM callers (the whole registry) and people granted payments see them.
 * The real API handler, real signed tokens on the dashboard mount, the simulated EKS and its request log.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ApiHandler } from "../../functions/api/handler.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { simConnector } from "../status/sim-connector.ts";
import { makeRelease } from "../store/fixtures.ts";
import { BORROWING_MANIFEST, borrowingObjects, LEDGER_VALUE } from "../support/borrowing-release.ts";
import { bodyText, httpApiEvent, lambdaContext, signedTokenEvent, testApiHandler } from "./support.ts";

const MANIFEST = `${BORROWING_MANIFEST}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ledger-admin
rules: []
`;

let sim: SimulatedEks;
let handler: ApiHandler;
let kube: ReturnType<typeof createKubeReader>;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "eu" }] });
  sim.cluster("eu").apply([
    ...borrowingObjects(),
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "ledger-admin" },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
    },
  ]);
  const store = new MemoryReleaseStore();
  await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop", manifest: MANIFEST }));
  const connector = simConnector(sim);
  kube = createKubeReader({ connector });
  handler = testApiHandler({
    store,
    clusters: connector,
    kube,
    dashboard: {
      auth: "jwt",
      groupsClaim: "groups",
      access: parseViewerAccessMap(
        [
          "groups:",
          "  - group: shop-team",
          "    clusters: [eu]",
          "    namespaces: [shop]",
          "  - group: shop-and-payments",
          "    clusters: [eu]",
          "    namespaces: [shop, payments]",
          "  - group: platform",
          '    clusters: "*"',
        ].join("\n"),
        "test",
      ),
      assetsDir: "dashboard/dist",
      connectOrigins: [],
    },
  });
});
after(async () => {
  await kube?.close();
  await sim?.stop();
});

const STATUS = "/clusters/eu/namespaces/shop/releases/api/status";

async function asViewer(group: string, output: "json" | "table") {
  sim.cluster("eu").resetStats();
  const event = await signedTokenEvent("GET", `/dashboard/api${STATUS}?output=${output}`, {
    sub: group,
    groups: [group],
  });
  const result = await handler(event, lambdaContext());
  assert.equal(result.statusCode, 200, bodyText(result));
  const paths = sim
    .cluster("eu")
    .stats()
    .log.map((entry) => entry.path);
  return { body: bodyText(result), paths };
}

test("a shop-only person: payments' objects and the ClusterRole are not read, not shown, only counted", async () => {
  for (const output of ["json", "table"] as const) {
    const { body, paths } = await asViewer("shop-team", output);
    assert.ok(
      paths.some((path) => path.includes("/namespaces/shop/configmaps/api-settings")),
      "its own is read",
    );
    assert.deepEqual(
      paths.filter((path) => path.includes("/namespaces/payments/") || path.includes("clusterroles")),
      [],
      "no borrowed read: nothing outside shop is even requested",
    );
    assert.ok(!body.includes(LEDGER_VALUE), "no payments data (the JSON's manifest is the tenant's own text)");
    if (output === "table") {
      assert.match(body, /^OUTSIDE ACCESS: 3 resources in namespaces your access does not cover/m);
      assert.doesNotMatch(body, /ledger/, "not their kinds or names either (the text holds no manifest)");
      assert.doesNotMatch(body, /registry\.example/);
      assert.match(body, /^HEALTH: Current /m, "the verdict is over what was read");
    } else {
      const document = JSON.parse(body);
      assert.deepEqual(document.outsideAccess, { resources: 3 });
      assert.deepEqual(Object.keys(document.info.resources), ["v1/ConfigMap"]);
      assert.deepEqual(document.missing, []);
      assert.deepEqual(document.drift.fields, [], "no drift oracle on payments' ConfigMap either");
      assert.ok(document.health.resources.every((h: { namespace?: string }) => h.namespace === "shop"));
    }
  }
});

test("a person granted payments too sees its objects; the ClusterRole stays outside (no namespace grant covers it)", async () => {
  const { body, paths } = await asViewer("shop-and-payments", "json");
  const document = JSON.parse(body);
  assert.deepEqual(document.outsideAccess, { resources: 1 });
  assert.ok(body.includes(LEDGER_VALUE), "payments' ConfigMap is theirs to read");
  assert.ok(paths.some((path) => path.includes("/namespaces/payments/configmaps/ledger-settings")));
  assert.ok(!paths.some((path) => path.includes("clusterroles")));
});

test("a person granted every namespace and an IAM caller see everything, as before", async () => {
  const platform = JSON.parse((await asViewer("platform", "json")).body);
  assert.equal(platform.outsideAccess, undefined);
  assert.ok(platform.info.resources["v1/ClusterRole"]);
  const iam = await handler(httpApiEvent("GET", `${STATUS}?output=json`), lambdaContext());
  const document = JSON.parse(bodyText(iam));
  assert.equal(document.outsideAccess, undefined);
  assert.ok(bodyText(iam).includes(LEDGER_VALUE));
  assert.deepEqual(
    document.drift.fields.map((f: { name: string; field: string }) => `${f.name} ${f.field}`),
    ["ledger-settings data.LEDGER_KEY", "ledger-admin rules"],
  );
});
