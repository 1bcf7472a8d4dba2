/**
 * AttributionStore, one contract on both implementations (run from attribution-store.test.ts on memory and
 * DynamoDB Local): enqueue once, the due queue (order, limit, backoff), settle, per-release reads, cluster logging.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Clock } from "../../shared/ports.ts";
import {
  ATTRIBUTION_RETENTION_DAYS,
  type Attribution,
  type AttributionStore,
  type RevisionSubject,
  type WriteEvidence,
  type WriteSubject,
} from "../../shared/who/attribution.ts";
import { uniqueName } from "../store/fixtures.ts";
import { revisionSubject } from "./support.ts";

export const revision = (cluster: string, release: string, n: number, namespace = "shop"): RevisionSubject =>
  revisionSubject(cluster, namespace, release, n, "2026-12-04T10:00:00Z");

export const write = (cluster: string, release: string, at: string): WriteSubject => ({
  type: "write",
  cluster,
  namespace: "shop",
  release,
  apiVersion: "v1",
  kind: "ConfigMap",
  name: `${release}-config`,
  objectNamespace: "shop",
  manager: "kubectl-patch",
  operation: "Update",
  at,
});

const evidence: WriteEvidence = {
  identity: { name: "alice@example.com", type: "assumed-role", role: "Admin", accountId: "111122223333" },
  verb: "create",
  at: "2026-12-04T10:00:01Z",
  userAgent: "Helm/4.1.0",
  sourceIp: "10.0.0.1",
  auditId: "a-1",
};

const T0 = new Date("2026-12-04T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);
const keys = (list: Attribution[]) => list.map((a) => a.key);

/** `clock`: what the store reads "now" from (expiry); absent, the wall clock. */
export function attributionStoreContract(label: string, makeStore: (clock?: Clock) => Promise<AttributionStore>): void {
  describe(`${label}: attribution store`, () => {
    test("enqueue keeps a subject once, whoever enqueues it and however often; a settled one stays settled", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      const subjects = [
        revision(cluster, "web", 1),
        revision(cluster, "web", 2),
        write(cluster, "web", "2026-12-04T10:00:05Z"),
      ];
      assert.equal(await store.enqueue(subjects, T0), 3);
      assert.equal(await store.enqueue([...subjects, subjects[0]], later(1000)), 0);
      const [first] = await store.due(cluster, T0, 1);
      await store.settle([{ ...first, state: "found", evidence, attempts: 1, nextAttemptAt: undefined }]);
      assert.equal(await store.enqueue(subjects, later(2000)), 0);
      const kept = await store.forRelease({ cluster, namespace: "shop", name: "web" });
      assert.equal(kept.length, 3);
      const found = kept.find((a) => a.key === first.key);
      assert.equal(found?.state, "found");
      assert.deepEqual(found?.evidence, evidence);
      for (const a of kept.filter((k) => k.key !== first.key)) {
        assert.equal(a.state, "pending");
        assert.equal(a.attempts, 0);
        assert.equal(a.enqueuedAt, T0.toISOString());
      }
    });

    test("a revision Helm wrote again under its number (uninstall, install) is looked up afresh; its old author is not shown", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      const first = revision(cluster, "web", 1);
      assert.equal(await store.enqueue([first], T0), 1);
      const [due] = await store.due(cluster, T0, 1);
      await store.settle([{ ...due, state: "found", evidence, attempts: 1, nextAttemptAt: undefined }]);
      const reinstalled = { ...first, createdAt: "2026-12-05T08:00:00Z" };
      assert.equal(await store.enqueue([reinstalled], later(1000)), 1);
      // The same again, or the old object's document again (a re-push): what is kept stays.
      assert.equal(await store.enqueue([reinstalled], later(2000)), 0);
      assert.equal(await store.enqueue([first], later(3000)), 0);
      const [kept] = await store.forRelease({ cluster, namespace: "shop", name: "web" });
      assert.equal(kept.state, "pending");
      assert.equal(kept.evidence, undefined);
      assert.equal((kept.subject as RevisionSubject).createdAt, "2026-12-05T08:00:00Z");
      assert.deepEqual(
        (await store.due(cluster, later(1000), 10)).map((a) => a.key),
        [kept.key],
      );
    });

    test("due: one cluster's pending ones due now, earliest due then oldest enqueued, at most limit", async () => {
      const store = await makeStore();
      const [eu, us] = [uniqueName("eu"), uniqueName("us")];
      await store.enqueue([revision(eu, "web", 1), revision(eu, "web", 2)], T0);
      await store.enqueue([revision(eu, "api", 1)], later(1000));
      await store.enqueue([revision(us, "web", 1)], T0);
      assert.deepEqual(await store.due(eu, later(-1), 10), []);
      assert.deepEqual(keys(await store.due(eu, T0, 10)), ["rev#shop#web#1", "rev#shop#web#2"]);
      assert.deepEqual(keys(await store.due(eu, later(1000), 10)), [
        "rev#shop#web#1",
        "rev#shop#web#2",
        "rev#shop#api#1",
      ]);
      assert.deepEqual(keys(await store.due(eu, later(1000), 2)), ["rev#shop#web#1", "rev#shop#web#2"]);
      assert.deepEqual(await store.due(eu, later(1000), 0), []);
      assert.deepEqual(keys(await store.due(us, later(1000), 10)), ["rev#shop#web#1"]);
      const [due] = await store.due(us, T0, 1);
      assert.equal(due.state, "pending");
      assert.equal(due.cluster, us);
      assert.deepEqual(due.subject, revision(us, "web", 1));
    });

    test("settle: a backed-off one is due again at its next attempt, behind fresh ones; a settled one leaves the queue", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      await store.enqueue([revision(cluster, "web", 1), revision(cluster, "web", 2), revision(cluster, "web", 3)], T0);
      const [one, two, three] = await store.due(cluster, T0, 10);
      await store.settle([
        { ...one, attempts: 1, nextAttemptAt: later(60_000).toISOString() },
        { ...two, state: "not-found", attempts: 4, nextAttemptAt: undefined, reason: "no audit event within 30 min" },
      ]);
      assert.deepEqual(keys(await store.due(cluster, later(59_999), 10)), [three.key]);
      await store.enqueue([revision(cluster, "web", 4)], later(30_000));
      assert.deepEqual(keys(await store.due(cluster, later(60_000), 10)), [three.key, "rev#shop#web#4", one.key]);
      await store.settle([
        { ...three, state: "failed", attempts: 1, nextAttemptAt: undefined, reason: "AccessDenied" },
      ]);
      const kept = await store.forRelease({ cluster, namespace: "shop", name: "web" });
      const byKey = new Map(kept.map((a) => [a.key, a]));
      assert.equal(byKey.get(one.key)?.attempts, 1);
      assert.equal(byKey.get(two.key)?.reason, "no audit event within 30 min");
      assert.equal(byKey.get(three.key)?.state, "failed");
      assert.deepEqual(keys(await store.due(cluster, later(3_600_000), 10)), ["rev#shop#web#4", one.key]);
    });

    test("forRelease: its revisions and the writes its drift showed, not another release's or namespace's", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      await store.enqueue(
        [
          revision(cluster, "web", 1),
          write(cluster, "web", "2026-12-04T10:00:05Z"),
          revision(cluster, "api", 1),
          revision(cluster, "web", 1, "other"),
        ],
        T0,
      );
      const kept = await store.forRelease({ cluster, namespace: "shop", name: "web" });
      assert.deepEqual(keys(kept).sort(), [
        "rev#shop#web#1",
        "write#shop#v1#ConfigMap#web-config#kubectl-patch##2026-12-04T10:00:05Z",
      ]);
      assert.deepEqual(await store.forRelease({ cluster: uniqueName("none"), namespace: "shop", name: "web" }), []);
      // One kind only: history reads its revisions, a status its drift writes.
      const web = { cluster, namespace: "shop", name: "web" };
      assert.deepEqual(keys(await store.forRelease(web, "revision")), ["rev#shop#web#1"]);
      assert.deepEqual(keys(await store.forRelease(web, "write")), [
        "write#shop#v1#ConfigMap#web-config#kubectl-patch##2026-12-04T10:00:05Z",
      ]);
    });

    test("130 subjects at once (more than a batch): all kept, handed out in bounded slices", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      const many = Array.from({ length: 130 }, (_, i) => revision(cluster, "web", i + 1));
      assert.equal(await store.enqueue(many, T0), 130);
      assert.equal(await store.enqueue(many, T0), 0);
      const first = await store.due(cluster, T0, 100);
      assert.equal(first.length, 100);
      await store.settle(
        first.map((a) => ({ ...a, state: "found" as const, evidence, attempts: 1, nextAttemptAt: undefined })),
      );
      const rest = await store.due(cluster, T0, 100);
      assert.equal(rest.length, 30);
      assert.equal(new Set([...keys(first), ...keys(rest)]).size, 130);
    });

    test("retention: a settled attribution expires ATTRIBUTION_RETENTION_DAYS after it was enqueued, a pending one never", async () => {
      let now = T0;
      const store = await makeStore({ now: () => now });
      const cluster = uniqueName("c");
      const subjects = [
        revision(cluster, "web", 1),
        write(cluster, "web", "2026-12-04T10:00:05Z"),
        revision(cluster, "web", 2),
      ];
      await store.enqueue(subjects, T0);
      const due = await store.due(cluster, T0, 3);
      const rev = due.find((a) => a.key === "rev#shop#web#1");
      const wrote = due.find((a) => a.subject.type === "write");
      assert.ok(rev && wrote);
      await store.settle([
        { ...rev, state: "found", evidence, attempts: 1, nextAttemptAt: undefined },
        { ...wrote, state: "not-found", attempts: 3, nextAttemptAt: undefined, reason: "no audit event" },
      ]);
      const retention = ATTRIBUTION_RETENTION_DAYS * 86_400_000;
      now = later(retention - 1000);
      assert.equal((await store.forRelease({ cluster, namespace: "shop", name: "web" })).length, 3);
      now = later(retention);
      const left = await store.forRelease({ cluster, namespace: "shop", name: "web" });
      assert.deepEqual(keys(left), ["rev#shop#web#2"]);
      assert.equal(left[0].state, "pending");
    });

    test("cluster logging: unknown, then what the last lookup found", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      assert.equal(await store.clusterLogging(cluster), undefined);
      const off = {
        enabled: false,
        checkedAt: T0.toISOString(),
        hint: `aws eks update-cluster-config --name ${cluster} --logging ...`,
      };
      await store.setClusterLogging(cluster, off);
      assert.deepEqual(await store.clusterLogging(cluster), off);
      await store.setClusterLogging(cluster, { enabled: true, checkedAt: later(1000).toISOString() });
      assert.deepEqual(await store.clusterLogging(cluster), { enabled: true, checkedAt: later(1000).toISOString() });
    });
  });
}
