/**
 * A release of ~20,000 resources through the history on DynamoDB Local (issue #39 item 9): its snapshot used to
 * exceed DynamoDB's 400 KB item size, so every delivery of its audit message failed into the DLQ. The observation
 * is bounded now (unhealthy resources kept first, the rest counted) and the real engine takes it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { observationFromReport, RESOURCES_KEPT_BYTES } from "../../shared/audit/observation.ts";
import { recordObservation } from "../../shared/audit/record.ts";
import { describeChange } from "../../shared/snapshots/changes.ts";
import { dynamoDbHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import type { StatusReport } from "../../shared/status/report.ts";
import { createDocumentClient } from "../../shared/store/config.ts";
import { syntheticReport } from "../support/synthetic-report.ts";
import { run, uniqueRelease } from "./fixtures.ts";

const credentials = { accessKeyId: "test", secretAccessKey: "test" };
let engine: DynamoDbLocal;
const tableName = `big-snapshots-${process.pid}`;

before(async () => {
  engine = await startDynamoDbLocal();
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: engine.endpoint, credentials });
  await ensureSnapshotsTable(client, { tableName, region: "us-east-1", endpoint: engine.endpoint });
  client.destroy();
});
after(async () => {
  await engine?.stop();
});

const open = () =>
  dynamoDbHistoryStores({
    client: createDocumentClient({ region: "us-east-1", endpoint: engine.endpoint, tableName, credentials }),
    tableName,
    region: "us-east-1",
    endpoint: engine.endpoint,
  }).snapshots;

/** 200 kinds × 100 = 20,000 resources (29 Failed), with 3,000 MISSING entries, as one release's report. */
function hugeReport(release: { cluster: string; namespace: string; name: string }, perKind = 100): StatusReport {
  const report = syntheticReport(200, perKind, 40);
  report.cluster = release.cluster;
  report.release.namespace = release.namespace;
  report.release.name = release.name;
  report.missing = Array.from({ length: 3000 }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    name: `gone-${i}`.padEnd(40, "x"),
    reason: "not found" as const,
    message: "configmaps not found",
  }));
  return report;
}

test("a 20,000-resource release is recorded: its lists bounded, the unhealthy ones kept, the totals counted", async () => {
  const store = open();
  const release = uniqueRelease();
  const report = hugeReport(release);
  const observation = observationFromReport(report, run(0), "2026-01-01T00:00:00.000Z");
  assert.equal(observation.resourcesTotal, 20_000);
  assert.equal(observation.missingTotal, 3000);
  assert.ok(observation.resources.length < 20_000 && observation.resources.length > 100);
  assert.ok(JSON.stringify(observation.resources).length <= RESOURCES_KEPT_BYTES);
  // Every Failed resource is among those kept, ahead of the healthy ones.
  const failed = report.resources.filter((r) => r.health.status === "Failed").length;
  assert.ok(failed > 0);
  assert.equal(observation.resources.slice(0, failed).filter((r) => r.health === "Failed").length, failed);

  const recorded = await recordObservation(store, observation, 90);
  assert.equal(recorded.outcome, "created");
  const stored = await store.get(recorded.snapshot.id, new Date("2026-01-01T00:01:00Z"));
  assert.equal(stored.resourcesTotal, 20_000);
  assert.equal(stored.missingTotal, 3000);
  assert.equal(stored.resources.length, observation.resources.length);
  assert.ok(stored.text?.includes("r199-99-"), "the status text is kept whole (gzip, within its budget)");

  // The same report again extends it; one resource more is a new snapshot that says the count changed.
  const again = await recordObservation(store, observationFromReport(report, run(5), "2026-01-01T00:05:00.000Z"), 90);
  assert.equal(again.outcome, "extended");
  const grown = hugeReport(release, 101);
  const next = await recordObservation(store, observationFromReport(grown, run(10), "2026-01-01T00:10:00.000Z"), 90);
  assert.equal(next.outcome, "created");
  assert.deepEqual(next.snapshot.changes.map(describeChange), ["resources 20000 -> 20200"]);
});

test("a release under the bound keeps every entry, in order, and no totals", () => {
  const release = uniqueRelease();
  const small = syntheticReport(3, 4);
  small.cluster = release.cluster;
  const observation = observationFromReport(small, run(0), "2026-01-01T00:00:00.000Z");
  assert.equal(observation.resources.length, 12);
  assert.equal(observation.resourcesTotal, undefined);
  assert.equal(observation.missingTotal, undefined);
  assert.deepEqual(
    observation.resources.map((r) => r.name),
    small.resources.map((r) => r.name),
  );
});
