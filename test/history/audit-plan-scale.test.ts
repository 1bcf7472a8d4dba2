/**
 * The planner at fleet size (issue #36, docs/scale.md "Fixes"), counted on fauxqs (real SQS calls) and the memory
 * audit runs: 20 clusters of 50 releases next to one of 5,000 (its releases split into bounded messages), every
 * batch at most 10 messages, every message under SQS's 256 KB, the run's SENT markers written 25 to a
 * BatchWriteItem, and the round trips made one after the other counted. A cluster name of 100 characters (EKS's
 * longest) is sent too: SQS allows a batch entry id of 80.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { type AuditMessage, parseAuditMessage } from "../../shared/audit/audit-message.ts";
import { sqsAuditQueue } from "../../shared/audit/sqs-audit-queue.ts";
import { registryScope } from "../../shared/clusters/scope.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryAuditRuns } from "../../shared/snapshots/memory-audit-runs.ts";
import { MemoryRollups } from "../../shared/snapshots/memory-small-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { planAudit } from "../../shared/usecases/audit-plan.ts";
import { makeRelease } from "../store/fixtures.ts";
import { drainBodies, freshQueue, type LocalSqs, startTestSqs } from "../support/fauxqs.ts";

let sqs: LocalSqs;
before(async () => {
  sqs = await startTestSqs();
});
after(async () => sqs?.stop());

const clock = { now: () => new Date("2026-12-04T12:05:00Z") };
const LONG = `c${"x".repeat(99)}`;

/** Counts SendMessageBatch calls and how many were in flight at once (a middleware on the client). */
function countSends(client: SQSClient) {
  const counts = { calls: 0, inFlight: 0, maxInFlight: 0, entries: [] as number[], longestId: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== "SendMessageBatchCommand") return next(args);
      counts.calls++;
      const entries = (args.input as { Entries: { Id: string }[] }).Entries;
      counts.entries.push(entries.length);
      counts.longestId = Math.max(counts.longestId, ...entries.map((e) => e.Id.length));
      counts.maxInFlight = Math.max(counts.maxInFlight, ++counts.inFlight);
      try {
        return await next(args);
      } finally {
        counts.inFlight--;
      }
    },
    { step: "initialize", name: `countSends${Math.random()}` },
  );
  return counts;
}

test("20 clusters x 50 releases and one of 5,000: bounded messages, batches and marker writes", async () => {
  const store = new MemoryReleaseStore();
  const sizes: Record<string, number> = { [LONG]: 5_000 };
  for (let c = 0; c < 20; c++) sizes[`c${String(c).padStart(2, "0")}`] = 50;
  for (const [cluster, count] of Object.entries(sizes)) {
    for (let i = 0; i < count; i++) {
      await store.putRevision(cluster, makeRelease({ name: `release-${i}`, namespace: "namespace" }));
    }
  }
  const { queueUrl } = await freshQueue(sqs);
  const sends = countSends(sqs.client);
  const auditRuns = new MemoryAuditRuns(new MemoryRollups());
  // The SENT markers as the DynamoDB store writes them: one BatchWriteItem per 25 of a call.
  const recorded: number[] = [];
  const recordSent = auditRuns.recordSent.bind(auditRuns);
  auditRuns.recordSent = async (runId, parts) => {
    recorded.push(parts.length);
    return recordSent(runId, parts);
  };
  const plan = await planAudit(
    {
      store,
      auditRuns,
      queue: sqsAuditQueue(sqs.client, queueUrl),
      clusters: registryScope(Object.keys(sizes).map((name) => ({ name, region: "us-east-1" }))),
      clock,
      logger: silentLogger,
    },
    { runId: "20261204T120500Z", releasesPerMessage: 10 },
  );
  assert.equal(plan.run.planned, 6_000);
  assert.equal(plan.sent, 600, "the 5,000-release cluster in 500 messages of 10, the others 5 each");
  assert.equal(sends.calls, 60);
  assert.ok(sends.entries.every((n) => n <= 10));
  assert.ok(sends.longestId <= 80, "SQS refuses a batch entry id past 80 characters (fauxqs does not check)");
  const bodies = await drainBodies(sqs.client, queueUrl, 600, 100);
  assert.equal(bodies.length, 600);
  const messages: AuditMessage[] = bodies.map(parseAuditMessage);
  assert.ok(Math.max(...bodies.map((b) => Buffer.byteLength(b))) < 256 * 1024);
  assert.equal(messages.filter((m) => m.cluster === LONG).length, 500);
  assert.equal(new Set(messages.flatMap((m) => m.releases.map((r) => `${m.cluster}/${r.name}`))).size, 6_000);
  // Before the waves: 60 SendMessageBatch and 60 BatchWriteItem one after the other (120 round trips in a row).
  const batchWrites = recorded.reduce((n, parts) => n + Math.ceil(parts / 25), 0);
  assert.equal(batchWrites, 24, "SENT markers: 24 BatchWriteItem calls (before: 60)");
  assert.equal(sends.maxInFlight, 5);
  assert.equal(recorded.length + batchWrites, 36, "sequential round trips: 12 waves of (5 sends at once + 2 writes)");
});
