/**
 * The health-change notification names what preceded the change (issue #34, docs/who.md): the attributed revision
 * or write between the last audit that saw the release as it was and the first that saw it changed ("revision 3 by
 * ci-deployer 2 min before"); older writes are not named; no ARN; a session name with markup is escaped. The
 * snapshot diff names who made the revision it arrives at.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { publishChange } from "../../shared/audit/change-events.ts";
import { recordObservation } from "../../shared/audit/record.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryNotificationClaims } from "../../shared/snapshots/memory-small-stores.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { diffSnapshots } from "../../shared/usecases/snapshots.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { NOW, observe, run, uniqueRelease } from "../history/fixtures.ts";
import { ACCOUNT, ALICE, found, HOSTILE, revisionSubject, STORE_CLOCK } from "./support.ts";

test("a revision made between two audits is named in the health-change message, older ones are not", async () => {
  const snapshots = new MemorySnapshotStore();
  const release = uniqueRelease();
  const healthy = await recordObservation(snapshots, observe(release, run(0)), 90);
  const failing = await recordObservation(
    snapshots,
    observe(release, run(5), { podHealth: "Failed", revision: 3 }),
    90,
  );
  const at = (minutes: number) => new Date(Date.parse("2026-01-01T00:00:00Z") + minutes * 60_000).toISOString();
  const subject = (revision: number) => revisionSubject(release.cluster, release.namespace, release.name, revision);
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  await attributions.settle([
    found(subject(1), ALICE, at(-30)),
    found(subject(2), HOSTILE, at(4)),
    found(subject(3), { ...ALICE, name: "ci-deployer" }, at(3)),
  ]);
  const posted: unknown[] = [];
  await publishChange(
    {
      notifications: new MemoryNotificationClaims(),
      logger: silentLogger,
      metrics: { count() {} },
      clock: { now: () => new Date(at(6)) },
      slack: { post: async (body) => void posted.push(body) },
      attributions,
    },
    failing.snapshot,
    healthy.snapshot,
  );
  assert.equal(posted.length, 1);
  const message = JSON.stringify(posted[0]);
  assert.match(
    message,
    /\*Before it\*\\n• revision 2 by &lt;img src=x onerror=alert\(1\)&gt;.* 1 min before\\n• revision 3 by ci-deployer 2 min before/,
  );
  assert.doesNotMatch(message, /alice@example\.com/, "revision 1, before the last healthy audit, is not named");
  assert.doesNotMatch(message, new RegExp(`${ACCOUNT}|arn:aws`));
  assert.doesNotMatch(message, /<img/);

  const plain: unknown[] = [];
  await publishChange(
    {
      notifications: new MemoryNotificationClaims(),
      logger: silentLogger,
      metrics: { count() {} },
      clock: { now: () => new Date(at(6)) },
      slack: { post: async (body) => void plain.push(body) },
    },
    failing.snapshot,
    healthy.snapshot,
  );
  assert.doesNotMatch(JSON.stringify(plain[0]), /Before it/, "no attributions: the message as before");
});

test("the snapshot diff names who made the revision it arrives at; the public audience gets no ARN", async () => {
  const snapshots = new MemorySnapshotStore();
  const release = uniqueRelease();
  const before = await recordObservation(snapshots, observe(release, run(0)), 90);
  const after = await recordObservation(snapshots, observe(release, run(5), { revision: 3 }), 90);
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  await attributions.settle([
    found(revisionSubject(release.cluster, release.namespace, release.name, 3), { ...ALICE, name: "ci-deployer" }),
  ]);
  const deps = { snapshots, clusters: "any" as const, clock: { now: () => NOW } };
  const diff = await diffSnapshots({ ...deps, attributions }, after.snapshot.id, before.snapshot.id, release);
  assert.equal(diff.revisionBy?.revision, 3);
  assert.equal(diff.revisionBy?.who.state === "found" && diff.revisionBy.who.name, "ci-deployer");
  assert.doesNotMatch(JSON.stringify(diff), new RegExp(`${ACCOUNT}|arn:aws`));
  const iam = await diffSnapshots({ ...deps, attributions, audience: "iam" }, after.snapshot.id);
  assert.equal(iam.revisionBy?.who.state === "found" && iam.revisionBy.who.arn, ALICE.arn);
  const plain = await diffSnapshots(deps, after.snapshot.id);
  assert.equal(plain.revisionBy, undefined);
});

test("the notification and the diff read the release's attributions only, not the cluster's logging state", async () => {
  const snapshots = new MemorySnapshotStore();
  const release = uniqueRelease();
  const before = await recordObservation(snapshots, observe(release, run(0)), 90);
  const after = await recordObservation(snapshots, observe(release, run(5), { podHealth: "Failed", revision: 3 }), 90);
  const reads: string[] = [];
  const attributions = new (class extends MemoryAttributionStore {
    override async forRelease(...args: Parameters<MemoryAttributionStore["forRelease"]>) {
      reads.push("forRelease");
      return super.forRelease(...args);
    }
    override async clusterLogging(cluster: string) {
      reads.push("clusterLogging");
      return super.clusterLogging(cluster);
    }
  })(STORE_CLOCK);
  await attributions.settle([found(revisionSubject(release.cluster, release.namespace, release.name, 3), ALICE)]);
  const notifications = new MemoryNotificationClaims();
  const slack = { post: async () => {} };
  const deps = { notifications, logger: silentLogger, metrics: { count() {} }, clock: { now: () => NOW }, slack };
  await publishChange({ ...deps, attributions }, after.snapshot, before.snapshot);
  await diffSnapshots({ snapshots, clusters: "any", clock: { now: () => NOW }, attributions }, after.snapshot.id);
  assert.deepEqual(reads, ["forRelease", "forRelease"]);
});
