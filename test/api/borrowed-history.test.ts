/**
 * Issue #38 item 3, the history: the audits read every object of a release (the product's full scope) and the
 * snapshots keep it; every read of a snapshot filters it by the reader's grants. A shop release whose manifest names
 * payments' ConfigMap and Deployment is audited twice on the simulated EKS (payments' ConfigMap deleted between);
 * a shop-only person then reads the listing, one snapshot (JSON and its text), the diff, status?at and the timeline
 * on the dashboard's mount with a real signed token: nothing of payments, a count of what was left out.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ApiHandler } from "../../functions/api/handler.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { observationFromReport } from "../../shared/audit/observation.ts";
import { recordObservation } from "../../shared/audit/record.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { runIdFor } from "../../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { auditedState } from "../../shared/usecases/audit-release.ts";
import { simConnector } from "../status/sim-connector.ts";
import { makeRelease } from "../store/fixtures.ts";
import { BORROWING_MANIFEST, borrowingObjects, LEDGER_VALUE } from "../support/borrowing-release.ts";
import { bodyText, httpApiEvent, lambdaContext, signedTokenEvent, testApiHandler } from "./support.ts";

const NOW = Date.now();
const FIRST = NOW - 10 * 60_000;
const SECOND = NOW - 5 * 60_000;
const PREFIX = "/clusters/eu/namespaces/shop/releases/api";

let sim: SimulatedEks;
let handler: ApiHandler;
let ids: string[] = [];

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "eu" }] });
  const cluster = sim.cluster("eu");
  cluster.apply([...borrowingObjects()]);
  const release = makeRelease({ name: "api", namespace: "shop", manifest: BORROWING_MANIFEST });
  const store = new MemoryReleaseStore();
  await store.putRevision("eu", release);
  const connector = simConnector(sim);
  const history = memoryHistoryStores();
  const { snapshots } = history;
  // Two audits as the worker runs them: the full read, the observation, the record.
  for (const at of [FIRST, SECOND]) {
    if (at === SECOND) cluster.remove("v1", "ConfigMap", "ledger-settings", "payments");
    const kube = createKubeReader({ connector, clock: { now: () => new Date(at) } });
    const report = await auditedState({ kube, logger: silentLogger }, "eu", release, undefined).finally(() =>
      kube.close(),
    );
    const observation = observationFromReport(report, runIdFor(new Date(at)), report.observedAt);
    const recorded = await recordObservation(snapshots, observation, 90);
    ids.push(recorded.snapshot.id);
  }
  ids = [...new Set(ids)];
  handler = testApiHandler({
    store,
    clusters: connector,
    clock: { now: () => new Date(NOW) },
    historyStores: history,
    history: { auditIntervalSeconds: 300, retentionDays: 90 },
    dashboard: {
      auth: "jwt",
      groupsClaim: "groups",
      access: parseViewerAccessMap(
        'groups:\n  - group: shop-team\n    clusters: [eu]\n    namespaces: [shop]\n  - group: platform\n    clusters: "*"\n',
        "test",
      ),
      assetsDir: "dashboard/dist",
      connectOrigins: [],
    },
  });
});
after(async () => {
  await sim?.stop();
});

async function get(group: string | undefined, path: string) {
  const event = group
    ? await signedTokenEvent("GET", `/dashboard/api${path}`, { sub: group, groups: [group] })
    : httpApiEvent("GET", path);
  const result = await handler(event, lambdaContext());
  assert.equal(result.statusCode, 200, `${path}: ${bodyText(result)}`);
  return bodyText(result);
}

test("the audits recorded two snapshots; the history's verdict is the release's own namespace's", async () => {
  assert.equal(ids.length, 2, "payments' ConfigMap going missing is a new snapshot (the full read saw it)");
  const list = JSON.parse(await get(undefined, `${PREFIX}/snapshots`));
  assert.deepEqual(
    list.snapshots.map((s: { health: { overall: string } }) => s.health.overall),
    ["Current", "Current"],
    "not NotFound: another namespace's object does not decide the verdict everyone sees",
  );
  const iamText = await get(undefined, `${PREFIX}/snapshots/${ids[1]}?output=table`);
  assert.match(iamText, /ledger-settings +not found/, "an IAM caller reads the full text");
});

test("a shop-only person reads every form of the history without anything of payments", async () => {
  const paths = [
    `${PREFIX}/snapshots`,
    `${PREFIX}/snapshots/${ids[1]}`,
    `${PREFIX}/snapshots/${ids[1]}?output=table`,
    `${PREFIX}/snapshots/${ids[0]}?output=yaml`,
    `${PREFIX}/snapshots/${ids[1]}/diff`,
    `${PREFIX}/snapshots/${ids[1]}/diff?output=table`,
    `${PREFIX}/status?at=-1m`,
    `${PREFIX}/status?at=-1m&output=json`,
    `${PREFIX}/status?at=-1m&against=-7m`,
    `${PREFIX}/timeline?since=1h`,
  ];
  for (const path of paths) {
    const body = await get("shop-team", path);
    assert.doesNotMatch(body, /ledger|payments|registry\.example/, path);
    assert.ok(!body.includes(LEDGER_VALUE), path);
  }
  const shown = JSON.parse(await get("shop-team", `${PREFIX}/snapshots/${ids[0]}`));
  assert.deepEqual(shown.outsideAccess, { resources: 2 });
  const second = JSON.parse(await get("shop-team", `${PREFIX}/snapshots/${ids[1]}`));
  assert.deepEqual([second.counters.resources, second.counters.missing, second.missing], [1, 0, []]);
  assert.deepEqual(
    shown.resources.map((r: { name: string }) => r.name),
    ["api-settings"],
  );
  const text = await get("shop-team", `${PREFIX}/snapshots/${ids[1]}?output=table`);
  assert.match(text, /^OUTSIDE ACCESS: 2 resources in namespaces your access does not cover/m);
  assert.match(
    text,
    /^==> v1\/ConfigMap\nNAME +DATA +AGE\napi-settings +1 /m,
    "its own namespace's tables as recorded",
  );
  const at = await get("shop-team", `${PREFIX}/status?at=-1m`);
  assert.match(at, /^SNAPSHOT: .*\nNAME: api\n/);
  assert.match(at, /OUTSIDE ACCESS: 2 resources/);
});

test("a person granted every namespace reads the history as it was recorded", async () => {
  const text = await get("platform", `${PREFIX}/snapshots/${ids[1]}?output=table`);
  assert.match(text, /ledger-settings +not found/);
  const diff = JSON.parse(await get("platform", `${PREFIX}/snapshots/${ids[1]}/diff`));
  assert.ok(diff.changes.some((c: { subject?: string }) => c.subject?.includes("ledger-settings")));
});
