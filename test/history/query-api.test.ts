/** The history routes with real API Gateway v2 events (stores in memory; the DynamoDB side has its contract run). */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, testApiHandler } from "../api/support.ts";
import { NOW, observe, run } from "./fixtures.ts";

const history = memoryHistoryStores();
const { snapshots, auditRuns } = history;
const release = { cluster: "eu", namespace: "shop", name: "api" };
const base = "/clusters/eu/namespaces/shop/releases/api/snapshots";
const ids: string[] = [];
const handler = testApiHandler({
  store: new MemoryReleaseStore(),
  clock: { now: () => NOW },
  historyStores: history,
});
const get = (path: string, headers: Record<string, string> = {}) =>
  handler(httpApiEvent("GET", path, { headers }), lambdaContext());

before(async () => {
  ids.push((await recordObservation(snapshots, observe(release, run(0)), 90)).snapshot.id);
  await recordObservation(snapshots, observe(release, run(5)), 90);
  ids.push(
    (
      await recordObservation(
        snapshots,
        observe(release, run(10), { podHealth: "Failed", text: "NAME: api\nHEALTH: Failed\n" }),
        90,
      )
    ).snapshot.id,
  );
  await auditRuns.startRun(run(10), "2026-01-01T00:10:00.000Z");
  await auditRuns.recordSent(run(10), [{ id: "eu-0", releases: 1, cluster: "eu" }]);
  await auditRuns.completeMessage(
    run(10),
    "eu-0",
    { done: 1, failed: 0, unhealthy: 1, changed: 1 },
    "2026-01-01T00:10:04.000Z",
  );
});

test("list: the documented JSON, newest first, run-length counts and changes", async () => {
  const result = await get(base);
  assert.equal(result.statusCode, 200);
  const body = bodyJson(result) as { snapshots: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(body.snapshots[0]), [
    "id",
    "firstSeenAt",
    "lastSeenAt",
    "seenCount",
    "revision",
    "releaseStatus",
    "health",
    "missing",
    "changes",
  ]);
  assert.deepEqual(
    body.snapshots.map((s) => [s.id, s.seenCount]),
    [
      [ids[1], 1],
      [ids[0], 2],
    ],
  );
  const yaml = await get(`${base}?output=yaml&limit=1`);
  assert.match(bodyText(yaml), /^snapshots:\n/m);
  assert.match(bodyText(yaml), /cursor: /);
});

test("show: JSON with resources; ?output=table is the status text as it was", async () => {
  const json = bodyJson(await get(`${base}/${encodeURIComponent(ids[1])}`)) as {
    resources: unknown[];
    previousId: string;
  };
  assert.equal(json.resources.length, 2);
  assert.equal(json.previousId, ids[0]);
  const table = await get(`${base}/${ids[1]}?output=table`);
  assert.equal(String(table.headers?.["content-type"]).split(";")[0], "text/plain");
  assert.equal(bodyText(table), "NAME: api\nHEALTH: Failed\n");
});

test("diff: against the previous snapshot by default, or ?against=; a unified diff and the structured changes", async () => {
  const body = bodyJson(await get(`${base}/${ids[1]}/diff`)) as {
    from: string;
    to: string;
    diff: string;
    changes: { kind: string }[];
  };
  assert.equal(body.from, ids[0]);
  assert.match(body.diff, /^={67}\n|^Index: /m);
  assert.match(body.diff, /-HEALTH: Current\n\+HEALTH: Failed/);
  assert.deepEqual(
    body.changes.map((c) => c.kind),
    ["health", "resource-health"],
  );
  const text = bodyText(await get(`${base}/${ids[1]}/diff?against=${ids[0]}&output=table`));
  assert.match(text, /^@@ /m);
});

test("fleet and audits", async () => {
  const fleet = bodyJson(await get("/fleet/health?health=Failed,Unknown")) as { releases: { snapshotId: string }[] };
  assert.deepEqual(
    fleet.releases.map((r) => r.snapshotId),
    [ids[1]],
  );
  const audits = bodyJson(await get("/audits")) as { audits: { runId: string; unhealthy: number }[] };
  assert.equal(audits.audits[0].runId, run(10));
  const one = bodyJson(await get(`/audits/${run(10)}`)) as { durationMs: number; planned: number };
  assert.equal(one.planned, 1);
  assert.equal(one.durationMs, 4000);
});

test("bad input is a 4xx JSON error saying what is wrong", async () => {
  const cases: [string, number, RegExp][] = [
    [`${base}?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z`, 400, /since .* is after until/],
    [`${base}?since=yesterday`, 400, /since "yesterday" is not a time/],
    [`${base}?sinse=1h`, 400, /sinse/],
    [`${base}/not-an-id`, 400, /invalid snapshot id/],
    [`${base}/eu.shop.api@20990101T000000Z`, 404, /not found/],
    [`${base}/eu.shop.web@${run(0)}`, 404, /not found/],
    [`${base}/${ids[0]}/diff`, 400, /first of its release/],
    [`/clusters/eu/namespaces/shop/releases/web/snapshots?cursor=${bodyJsonCursor()}`, 400, /cursor/],
    ["/fleet/health?health=Sick", 400, /health "Sick" is not one of/],
    ["/fleet/health?cluster=mars", 404, /mars/],
    ["/clusters/mars/namespaces/shop/releases/api/snapshots", 404, /mars/],
    ["/audits/20000101T000000Z", 404, /audit run 20000101T000000Z not found/],
    ["/audits/bogus", 404, /not found/],
  ];
  for (const [path, status, message] of cases) {
    const result = await get(path.replace("CURSOR", await cursorOf()));
    assert.equal(result.statusCode, status, `${path}: ${result.body}`);
    assert.match((bodyJson(result) as { error: { message: string } }).error.message, message, path);
  }
});

test("a corrupt stored snapshot is a 500 that leaks nothing (the log names it)", async () => {
  const { snapshot } = await recordObservation(snapshots, observe({ ...release, name: "broken" }, run(0)), 90);
  snapshots.corrupt(snapshot.id);
  const result = await get(`/clusters/eu/namespaces/shop/releases/broken/snapshots/${snapshot.id}`);
  assert.equal(result.statusCode, 500);
  assert.equal((bodyJson(result) as { error: { code: string } }).error.code, "SnapshotCorrupt");
});

function bodyJsonCursor(): string {
  return "CURSOR";
}

async function cursorOf(): Promise<string> {
  const page = bodyJson(await get(`${base}?limit=1`)) as { cursor: string };
  return page.cursor;
}
