/** The worker's SLO watch: burn state after each audit, one notification per change, on the memory stores. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import { watchSlo } from "../../shared/audit/slo-watch.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { observe, run } from "./fixtures.ts";

const MIN = 60_000;
const T0 = Date.parse("2026-01-01T00:00:00Z");
const manifest = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  annotations:\n    helm-status/slo: "99.5"\n';

test("the burn state is notified once per change, never again while it holds, and not for a release without an objective", async () => {
  const { snapshots, sloStates, notifications } = memoryHistoryStores();
  const posts: { text: string }[] = [];
  const metrics: [string, Record<string, string> | undefined][] = [];
  const lines: string[] = [];
  let now = T0;
  const deps = {
    snapshots,
    sloStates,
    notifications,
    clock: { now: () => new Date(now) },
    logger: { debug() {}, info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error() {} },
    metrics: { count: (name: string, _v: number, dims?: Record<string, string>) => metrics.push([name, dims]) },
    slack: { post: async (body: unknown) => void posts.push(body as { text: string }) },
    retentionDays: 90,
  };
  const api = { cluster: "eu", namespace: "shop", name: "api" };
  const audit = async (m: number, failed: boolean) => {
    now = T0 + m * MIN;
    await recordObservation(snapshots, observe(api, run(m), { podHealth: failed ? "Failed" : "Current" }), 90);
    return watchSlo(deps, api, manifest);
  };
  for (let m = 0; m <= 60; m += 5) assert.equal(await audit(m, false), "ok");
  assert.equal(posts.length, 0, "a release that starts ok says nothing");
  // A failure counts from its first sighting: at 65 none of it is covered yet.
  assert.equal(await audit(65, true), "ok");
  assert.equal(await audit(70, true), "page"); // 65..70 Failed: 5 m burns 200x, 1 h 16.7x (both over 14.4)
  assert.equal(await audit(75, true), "page");
  assert.deepEqual(
    posts.map((p) => p.text),
    ["shop/api on eu: SLO 99.5% ok → page"],
  );
  // Recovered at 80; by 150 the last hour is clean but 6 h and 3 d still burn over 1: a ticket.
  for (let m = 80; m <= 150; m += 5) await audit(m, false);
  assert.deepEqual(
    posts.map((p) => p.text),
    ["shop/api on eu: SLO 99.5% ok → page", "shop/api on eu: SLO 99.5% page → ticket"],
  );
  assert.equal(await sloStates.sloState(api, new Date(now)), "ticket");
  assert.deepEqual(metrics.at(-1), ["SloBurnState", { cluster: "eu", state: "ticket" }]);
  assert.equal(lines.filter((l) => l === "release SLO burn changed").length, 2);

  // No objective: nothing read, nothing counted.
  const before = metrics.length;
  assert.equal(await watchSlo(deps, api, "apiVersion: v1\nkind: Service\n"), undefined);
  assert.equal(metrics.length, before);
  // A second worker that read the old state loses the swap and stays quiet.
  assert.equal(await sloStates.swapSloState(api, "page", "ok", new Date(now), 0), "conflict");
});

test("a release without an annotation takes the registry's objective: per release first, then the cluster's default", async () => {
  const { snapshots, sloStates, notifications } = memoryHistoryStores();
  const posts: { text: string }[] = [];
  let now = T0;
  const registry = (slo?: { default?: number; releases?: Record<string, number> }) => ({
    list: () => [{ name: "eu", region: "eu-west-1", ...(slo ? { slo } : {}) }],
  });
  const deps = {
    snapshots,
    sloStates,
    notifications,
    clock: { now: () => new Date(now) },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    metrics: { count() {} },
    slack: { post: async (body: unknown) => void posts.push(body as { text: string }) },
    retentionDays: 90,
    clusters: registry({ default: 0.9, releases: { "shop/api": 0.995 } }),
  };
  const api = { cluster: "eu", namespace: "shop", name: "api" };
  const bare = "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n";
  for (let m = 0; m <= 60; m += 5) {
    now = T0 + m * MIN;
    await recordObservation(snapshots, observe(api, run(m), { podHealth: m >= 55 ? "Failed" : "Current" }), 90);
  }
  // 5 of the last 60 minutes Failed: 99.5% pages (the registry's per-release entry), 90% would not.
  assert.equal(await watchSlo(deps, api, bare), "page");
  assert.deepEqual(
    posts.map((p) => p.text),
    ["shop/api on eu: SLO 99.5% ok → page"],
  );
  assert.equal(await watchSlo({ ...deps, clusters: registry({ default: 0.9 }) }, api, bare), "ok");
  // The release's own annotation wins over the registry.
  assert.equal(await watchSlo({ ...deps, clusters: registry({ default: 0.9 }) }, api, manifest), "page");
  // No registry objective and no annotation: no SLO at all.
  assert.equal(await watchSlo({ ...deps, clusters: registry() }, api, bare), undefined);
});
