import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type SimCredentials, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import { type AttributionSubject, attributionKey, type LookupResult } from "../../shared/who/attribution.ts";
import {
  type CloudWatchAuditLogLookupOptions,
  createCloudWatchAuditLogLookup,
} from "../../shared/who/audit-log-lookup.ts";

// What the lookup says when the audit log cannot answer: logs not delivered yet, logging off, throttling, a
// refused role, a query that does not finish; and a cross-account role and another region, as the registry says.
const START = Date.parse("2026-12-02T15:10:00Z");
const ROLE = "arn:aws:iam::123456789012:role/audit-reader";
let clock = START;
let sim: SimulatedEks;
let bob: SimCredentials;

before(async () => {
  sim = await startSimulatedEks({
    clusters: [
      { name: "lagging" },
      { name: "never", auditLogging: false },
      { name: "switched-off" },
      { name: "busy" },
      { name: "euro", region: "eu-west-1" },
    ],
    now: () => new Date(clock),
    logs: { tps: 1000 },
  });
  sim.iam.addRole(ROLE, { externalId: "helm-status" });
  bob = sim.iam.addUser("bob").credentials;
});
after(async () => {
  await sim?.stop();
});

function lookupFor(options: Partial<CloudWatchAuditLogLookupOptions> = {}, registry?: ClusterEntry[]) {
  return createCloudWatchAuditLogLookup({
    registry: registry ?? sim.registryEntries(),
    connection: { endpoint: sim.logsEndpoint, credentials: sim.credentials },
    clock: { now: () => new Date(clock) },
    retry: { baseMs: 5, capMs: 20 },
    pollMs: 5,
    ...options,
  });
}

/** bob's create of revision `n` of release web, now, and its subject. */
function revisionMade(cluster: string, n: number): AttributionSubject {
  sim.cluster(cluster).recordAudit({
    credentials: bob,
    verb: "create",
    target: { apiVersion: "v1", kind: "Secret", name: `sh.helm.release.v1.web.v${n}`, namespace: "shop" },
  });
  return {
    type: "revision",
    cluster,
    namespace: "shop",
    release: "web",
    revision: n,
    storageKind: "Secret",
    createdAt: new Date(clock).toISOString(),
  };
}

function failed(result: LookupResult) {
  assert.equal(result.outcome, "failed", JSON.stringify(result));
  return result as Extract<LookupResult, { outcome: "failed" }>;
}

test("logs not delivered yet: searched, nothing found (the caller retries); found once the lag has passed", async () => {
  sim.cluster("lagging").audit.lagMs = 60_000;
  clock = START;
  const subject = revisionMade("lagging", 1);
  const lookup = lookupFor();
  const early = await lookup.lookup("lagging", [subject]);
  assert.equal(early.outcome, "searched");
  assert.equal(early.outcome === "searched" && early.found.size, 0);
  clock = START + 61_000;
  const later = await lookup.lookup("lagging", [subject]);
  assert.equal(later.outcome === "searched" && later.found.get(attributionKey(subject))?.identity.name, "bob");
});

test("audit logging never on (no log group): logging-off, with the command that turns it on", async () => {
  const result = await lookupFor().lookup("never", [revisionMade("never", 1)]);
  assert.deepEqual(result, {
    outcome: "logging-off",
    hint: `aws eks update-cluster-config --region us-east-1 --name never --logging '{"clusterLogging":[{"types":["audit"],"enabled":true}]}'`,
  });
});

test("audit logging switched off (the group stays): logging-off when nothing is found and DescribeCluster says so", async () => {
  clock = START + 5 * 60_000;
  const before = revisionMade("switched-off", 1);
  sim.cluster("switched-off").setAuditLogging(false);
  const after = revisionMade("switched-off", 2);
  const lookup = lookupFor();
  const some = await lookup.lookup("switched-off", [before, after]);
  assert.equal(some.outcome, "searched", "what was logged is found, whatever the setting now");
  assert.equal(some.outcome === "searched" && some.found.size, 1);
  const none = await lookup.lookup("switched-off", [after]);
  assert.equal(none.outcome, "logging-off");
  assert.equal((await lookupFor({ checkLogging: false }).lookup("switched-off", [after])).outcome, "searched");
});

test("throttling: retried with backoff within the budget; beyond it, failed and retryable", async () => {
  clock = START + 10 * 60_000;
  const subject = revisionMade("busy", 1);
  sim.logs.throttle(2);
  const retried = await lookupFor().lookup("busy", [subject]);
  assert.equal(retried.outcome === "searched" && retried.found.size, 1, JSON.stringify(retried));
  sim.logs.throttle(50);
  const result = failed(await lookupFor({ retry: { maxAttempts: 3, baseMs: 1, capMs: 2 } }).lookup("busy", [subject]));
  sim.logs.throttle(0);
  assert.equal(result.retryable, true);
  assert.match(result.reason, /ThrottlingException after 3 attempts/);
});

test("the account's concurrent queries all taken (LimitExceededException): retried, then failed and retryable", async () => {
  const subject = revisionMade("busy", 5);
  sim.logs.setLimits({ maxConcurrentQueries: 0 });
  try {
    const result = failed(
      await lookupFor({ retry: { maxAttempts: 2, baseMs: 1, capMs: 2 } }).lookup("busy", [subject]),
    );
    assert.equal(result.retryable, true);
    assert.match(result.reason, /LimitExceededException after 2 attempts/);
  } finally {
    sim.logs.setLimits({ maxConcurrentQueries: 30 });
  }
});

test("AccessDenied: failed, not retryable, the reason names the permission and no ARN or account", async () => {
  const subject = revisionMade("busy", 2);
  sim.iam.denyAction("*", "logs:StartQuery");
  try {
    const result = failed(await lookupFor().lookup("busy", [subject]));
    assert.equal(result.retryable, false);
    assert.match(result.reason, /logs:StartQuery/);
    assert.doesNotMatch(result.reason, /arn:|\d{12}/);
  } finally {
    sim.iam.allowAction("*", "logs:StartQuery");
  }
});

test("a query that does not finish in time is stopped (its slot freed) and failed as retryable", async () => {
  const subject = revisionMade("busy", 3);
  sim.logs.setLimits({ queryLatencyMs: 60_000, maxConcurrentQueries: 1 });
  try {
    const result = failed(await lookupFor({ queryTimeoutMs: 100 }).lookup("busy", [subject]));
    assert.equal(result.retryable, true);
    assert.match(result.reason, /did not finish within 100 ms/);
    sim.logs.setLimits({ queryLatencyMs: 0 });
    // Had the query not been stopped, it would still hold the only slot: LimitExceededException.
    const again = await lookupFor({ retry: { maxAttempts: 1 } }).lookup("busy", [subject]);
    assert.equal(again.outcome === "searched" && again.found.size, 1, JSON.stringify(again));
  } finally {
    sim.logs.setLimits({ queryLatencyMs: 0, maxConcurrentQueries: 30 });
  }
});

test("the caller's signal ends the lookup: failed, retryable", async () => {
  const subject = revisionMade("busy", 4);
  sim.logs.setLimits({ queryLatencyMs: 60_000 });
  try {
    const result = failed(await lookupFor().lookup("busy", [subject], AbortSignal.timeout(50)));
    assert.equal(result.retryable, true);
    assert.match(result.reason, /cancelled/);
  } finally {
    sim.logs.setLimits({ queryLatencyMs: 0 });
  }
});

test("the registry's role is assumed (with its ExternalId) and the cluster's region is searched", async () => {
  clock = START + 20 * 60_000;
  const subject = revisionMade("euro", 1);
  const registry: ClusterEntry[] = sim
    .registryEntries()
    .map((entry) => (entry.name === "euro" ? { ...entry, roleArn: ROLE, externalId: "helm-status" } : entry));
  const result = await lookupFor({}, registry).lookup("euro", [subject]);
  assert.equal(result.outcome === "searched" && result.found.size, 1, JSON.stringify(result));
  const wrongId = registry.map((entry) => (entry.name === "euro" ? { ...entry, externalId: "guess" } : entry));
  const refused = failed(await lookupFor({}, wrongId).lookup("euro", [subject]));
  assert.equal(refused.retryable, false);
  assert.doesNotMatch(refused.reason, /arn:|\d{12}/);
});

test("a cluster not in the registry, and subjects of another cluster: nothing is asked", async () => {
  const unknown = failed(await lookupFor().lookup("nowhere", []));
  assert.equal(unknown.retryable, false);
  const other = await lookupFor().lookup("busy", [revisionMade("lagging", 9)]);
  assert.deepEqual(other, { outcome: "searched", found: new Map(), queries: 0 });
});
