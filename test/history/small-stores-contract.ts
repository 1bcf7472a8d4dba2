/**
 * The contracts of the history's two small ports, run on the memory stores and on DynamoDB Local: notification
 * claims (on a snapshot that exists) and SLO burn states (beside a release's snapshots, never among them).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import { observe, run, uniqueRelease } from "./fixtures.ts";

export function notificationClaimsContract(
  label: string,
  makeStores: () => Promise<Pick<HistoryStores, "snapshots" | "notifications">>,
) {
  describe(`${label}: NotificationClaims contract`, () => {
    test("a change notification is claimed once, again after a failed post or a stale claim", async () => {
      const { snapshots, notifications: store } = await makeStores();
      const { snapshot } = await recordObservation(snapshots, observe(uniqueRelease(), run(0)), 90);
      const t = new Date("2026-01-01T00:00:00Z");
      assert.equal(await store.claimNotification(snapshot.id, t), true);
      assert.equal(await store.claimNotification(snapshot.id, t), false);
      await store.finishNotification(snapshot.id, "failed", t);
      assert.equal(await store.claimNotification(snapshot.id, t), true);
      assert.equal(await store.claimNotification(snapshot.id, new Date(t.getTime() + 600_000)), true);
      await store.finishNotification(snapshot.id, "sent", t);
      assert.equal(await store.claimNotification(snapshot.id, new Date(t.getTime() + 3_600_000)), false);
    });
  });
}

export function sloStateContract(
  label: string,
  makeStores: () => Promise<Pick<HistoryStores, "snapshots" | "sloStates">>,
) {
  describe(`${label}: SloStateStore contract`, () => {
    test("a release's SLO burn state moves once per change: from what it was, never from a stale read", async () => {
      const { snapshots, sloStates: store } = await makeStores();
      const release = uniqueRelease();
      const t = new Date("2026-01-01T00:00:00Z");
      const expires = Math.floor(t.getTime() / 1000) + 86_400;
      assert.equal(await store.sloState(release, t), undefined);
      assert.equal(await store.swapSloState(release, undefined, "page", t, expires), "ok");
      assert.equal(await store.swapSloState(release, undefined, "page", t, expires), "conflict", "a second worker");
      assert.equal(await store.sloState(release, t), "page");
      assert.equal(await store.swapSloState(release, "ok", "ticket", t, expires), "conflict");
      assert.equal(await store.swapSloState(release, "page", "ok", t, expires), "ok");
      assert.equal(await store.sloState(release, t), "ok");
      // Expired (TTL lags): read as none, and replaced as none.
      const later = new Date(t.getTime() + 2 * 86_400_000);
      assert.equal(await store.sloState(release, later), undefined);
      assert.equal(await store.swapSloState(release, undefined, "ticket", later, expires + 3 * 86_400), "ok");
      // Not a snapshot: listings and the latest snapshot do not see it.
      assert.equal(await snapshots.latest(release), undefined);
      assert.deepEqual((await snapshots.list(release, {}, t)).items, []);
    });
  });
}
