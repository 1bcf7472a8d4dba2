/**
 * The attribution worker's branches (shared/who/attribute.ts) on the memory store with a small in-test lookup:
 * found, not found yet (backoff, then not-found past the retry window), logging off (said once), failures
 * (retryable or not), bounded work per run that resumes, the deadline, a lookup that throws. The real lookup on the
 * simulator: test/who/attribution-e2e.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { attributeCluster } from "../../shared/who/attribute.ts";
import {
  type AttributionSubject,
  type AuditLogLookup,
  attributionKey,
  type LookupResult,
  type WriteEvidence,
} from "../../shared/who/attribution.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { revision } from "./attribution-store-contract.ts";
import { STORE_CLOCK } from "./support.ts";

const T0 = Date.parse("2026-12-04T10:00:00.000Z");
const MIN = 60_000;

function fakeClock(at = T0) {
  let now = at;
  return { now: () => new Date(now), set: (ms: number) => (now = ms) };
}

const evidenceFor = (subject: AttributionSubject): WriteEvidence => ({
  identity: { name: "alice@example.com", type: "assumed-role", role: "Admin" },
  verb: "create",
  at: "2026-12-04T10:00:01Z",
  auditId: `audit-${attributionKey(subject)}`,
});

/** Answers from `answer`, recording every subject it was asked about. */
function fakeLookup(answer: (subjects: readonly AttributionSubject[]) => LookupResult | Promise<LookupResult>) {
  const asked: string[] = [];
  let calls = 0;
  const lookup: AuditLogLookup = {
    async lookup(_cluster, subjects) {
      calls++;
      asked.push(...subjects.map(attributionKey));
      return answer(subjects);
    },
  };
  return { lookup, asked, calls: () => calls };
}

const findAll = (subjects: readonly AttributionSubject[]): LookupResult => ({
  outcome: "searched",
  found: new Map(subjects.map((s) => [attributionKey(s), evidenceFor(s)])),
  queries: 1,
});
const findNone = (): LookupResult => ({ outcome: "searched", found: new Map(), queries: 1 });
const revisions = (n: number) => Array.from({ length: n }, (_, i) => revision("eu", "web", i + 1));
const noJitter = { random: () => 0.999999 };

test("found: settled with the evidence, never looked up again", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(3), clock.now());
  const fake = fakeLookup(findAll);
  const summary = await attributeCluster("eu", { store, lookup: fake.lookup, clock });
  assert.deepEqual(
    { looked: summary.looked, found: summary.found, lookups: summary.lookups, queries: summary.queries },
    {
      looked: 3,
      found: 3,
      lookups: 1,
      queries: 1,
    },
  );
  const kept = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.ok(kept.every((a) => a.state === "found" && a.attempts === 1 && a.nextAttemptAt === undefined));
  assert.equal(kept[0].evidence?.auditId, `audit-${kept[0].key}`);
  await store.enqueue(revisions(3), clock.now());
  clock.set(T0 + 60 * MIN);
  await attributeCluster("eu", { store, lookup: fake.lookup, clock });
  assert.equal(fake.calls(), 1);
  assert.equal(new Set(fake.asked).size, fake.asked.length);
  assert.deepEqual((await store.clusterLogging("eu"))?.enabled, true);
});

test("not found yet: pending with a growing backoff inside the retry window, then not-found", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  const [subject] = revisions(1);
  await store.enqueue([subject], clock.now());
  const fake = fakeLookup(findNone);
  const deps = {
    store,
    lookup: fake.lookup,
    clock,
    options: { retryWindowMs: 10 * MIN, firstBackoffMs: MIN, ...noJitter },
  };
  const waits: number[] = [];
  for (let run = 0; run < 20; run++) {
    const [due] = await store.due("eu", new Date(T0 + 24 * 60 * MIN), 1);
    if (!due) break;
    clock.set(Date.parse(due.nextAttemptAt ?? due.enqueuedAt));
    await attributeCluster("eu", deps);
    const [after] = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
    if (after.nextAttemptAt) waits.push(Date.parse(after.nextAttemptAt) - clock.now().getTime());
  }
  // createdAt is T0: looks at 0, +1, +3, +7 min, then the window's end (10 min), then not found.
  assert.deepEqual(
    waits.map((w) => Math.round(w / MIN)),
    [1, 2, 4, 3],
  );
  const [settled] = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.equal(settled.state, "not-found");
  assert.equal(settled.attempts, 5);
  assert.equal(settled.nextAttemptAt, undefined);
  assert.match(settled.reason ?? "", /no matching audit event within 10 min/);
  assert.equal(fake.calls(), 5);
});

test("found on a later attempt: looked up again only while pending", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(2), clock.now());
  let arrived = false;
  const fake = fakeLookup((subjects) => (arrived ? findAll(subjects) : findNone()));
  await attributeCluster("eu", { store, lookup: fake.lookup, clock });
  assert.equal((await store.due("eu", clock.now(), 10)).length, 0);
  arrived = true;
  clock.set(T0 + 5 * MIN);
  const summary = await attributeCluster("eu", { store, lookup: fake.lookup, clock });
  assert.equal(summary.found, 2);
  const kept = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.ok(kept.every((a) => a.state === "found" && a.attempts === 2));
});

test("logging off: everything due settled so, no guess, said once per cluster", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(250), clock.now());
  const hint =
    'aws eks update-cluster-config --name eu --logging \'{"clusterLogging":[{"types":["audit"],"enabled":true}]}\'';
  const fake = fakeLookup(() => ({ outcome: "logging-off", hint }));
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) };
  const summary = await attributeCluster("eu", {
    store,
    lookup: fake.lookup,
    clock,
    logger,
    options: { batchSize: 100 },
  });
  assert.equal(summary.loggingOff, 250);
  assert.equal(fake.calls(), 1);
  const kept = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.ok(kept.every((a) => a.state === "logging-off" && a.reason === hint));
  assert.deepEqual(await store.clusterLogging("eu"), { enabled: false, hint, checkedAt: clock.now().toISOString() });
  await store.enqueue([revision("eu", "web", 999)], clock.now());
  await attributeCluster("eu", { store, lookup: fake.lookup, clock, logger });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^audit logs are off for eu: aws eks update-cluster-config/);
});

test("failed, not retryable: failed with the reason, the run stops; retryable: pending, failed past the window", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(150), clock.now());
  const denied = fakeLookup(() => ({ outcome: "failed", reason: "AccessDenied on the log group", retryable: false }));
  const summary = await attributeCluster("eu", { store, lookup: denied.lookup, clock, options: { batchSize: 100 } });
  assert.deepEqual([summary.failed, summary.stopped, denied.calls()], [100, "failed", 1]);
  assert.equal((await store.due("eu", clock.now(), 1000)).length, 50);

  const throttled = fakeLookup(() => ({ outcome: "failed", reason: "ThrottlingException", retryable: true }));
  const deps = { store, lookup: throttled.lookup, clock, options: { retryWindowMs: 10 * MIN } };
  const retried = await attributeCluster("eu", deps);
  assert.equal(retried.retrying, 50);
  clock.set(T0 + 11 * MIN);
  const late = await attributeCluster("eu", deps);
  assert.equal(late.failed, 50);
  const kept = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.equal(kept.filter((a) => a.reason === "AccessDenied on the log group").length, 100);
  assert.equal(kept.filter((a) => a.reason === "still failing after the retry window: ThrottlingException").length, 50);
});

test("10,000 revisions after a first sync: bounded per run, resumed, each looked up once", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(10_000), clock.now());
  const fake = fakeLookup(findAll);
  const runs: number[] = [];
  for (let run = 0; run < 30; run++) {
    const summary = await attributeCluster("eu", { store, lookup: fake.lookup, clock });
    if (summary.looked === 0) break;
    runs.push(summary.lookups);
    clock.set(clock.now().getTime() + MIN);
  }
  assert.equal(runs.length, 20);
  assert.ok(runs.every((lookups) => lookups === 5));
  assert.equal(fake.asked.length, 10_000);
  assert.equal(new Set(fake.asked).size, 10_000);
});

test("the deadline: an aborted run looks nothing up; a lookup cut off leaves its batch due as it was", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(200), clock.now());
  const aborted = AbortSignal.abort();
  const fake = fakeLookup(findAll);
  const summary = await attributeCluster("eu", { store, lookup: fake.lookup, clock }, aborted);
  assert.deepEqual([summary.looked, summary.stopped, fake.calls()], [0, "deadline", 0]);

  const controller = new AbortController();
  const cutOff: AuditLogLookup = {
    async lookup() {
      controller.abort();
      throw new DOMException("aborted", "AbortError");
    },
  };
  const cut = await attributeCluster(
    "eu",
    { store, lookup: cutOff, clock, options: { batchSize: 100 } },
    controller.signal,
  );
  assert.equal(cut.stopped, "deadline");
  // The real lookup answers a failure (retryable) when the signal aborts its query: not the subjects' attempt either.
  const late = new AbortController();
  const answersFailed: AuditLogLookup = {
    async lookup() {
      late.abort();
      return { outcome: "failed", reason: "the query was stopped", retryable: true };
    },
  };
  const stopped = await attributeCluster("eu", { store, lookup: answersFailed, clock }, late.signal);
  assert.equal(stopped.stopped, "deadline");
  const due = await store.due("eu", clock.now(), 1000);
  assert.equal(due.length, 200);
  assert.ok(due.every((a) => a.attempts === 0));
});

test("a lookup that throws is a retryable failure whose reason names no message (it may carry an ARN)", async () => {
  const store = new MemoryAttributionStore(STORE_CLOCK);
  const clock = fakeClock();
  await store.enqueue(revisions(1), clock.now());
  const throwing: AuditLogLookup = {
    async lookup() {
      throw Object.assign(new Error("User: arn:aws:sts::111122223333:assumed-role/x is not authorized"), {
        name: "Oops",
      });
    },
  };
  const summary = await attributeCluster("eu", { store, lookup: throwing, clock });
  assert.equal(summary.retrying, 1);
  clock.set(T0 + 31 * MIN);
  await attributeCluster("eu", { store, lookup: throwing, clock });
  const [kept] = await store.forRelease({ cluster: "eu", namespace: "shop", name: "web" });
  assert.equal(kept.state, "failed");
  assert.equal(kept.reason, "still failing after the retry window: lookup error (Oops)");
  assert.doesNotMatch(JSON.stringify(kept), /arn:aws/);
});
