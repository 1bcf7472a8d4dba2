/**
 * A namespace crowded with events (issue #33's bad input): 10,000 Warning events of another app, about a pod named
 * exactly like the release's but another release's (another uid), named before the release's own in key order, so
 * the one bounded page the status reads holds none of the release's. The release's unready pod's own events are
 * then read by uid (one small LIST), cited by its cause chain; the other app's are never shown.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { EVENTS_LIST_LIMIT } from "../../shared/kube/events.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { releaseOnSimForFile } from "../support/release-on-sim.ts";

const CLUSTER = "crowded";
const MANIFEST = `---\n${JSON.stringify({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "api", namespace: "shop" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "api" } },
    template: {
      metadata: { labels: { app: "api" } },
      spec: { containers: [{ name: "api", image: "example/api:1.0", env: [{ name: "SIM_EXIT_CODE", value: "1" }] }] },
    },
  },
})}\n`;

let podUid: string;
const {
  sim,
  kube: reader,
  store,
} = releaseOnSimForFile({
  cluster: CLUSTER,
  manifest: MANIFEST,
  release: "api",
  arrange(cluster) {
    cluster.materialize(MANIFEST, { namespace: "shop", createdAt: new Date(Date.now() - 5 * 60_000) });
    const pod = cluster.list("v1", "Pod", "shop").find((p) => p.metadata?.name?.startsWith("api-"))!;
    podUid = pod.metadata!.uid!;
    const now = new Date().toISOString();
    cluster.apply(
      Array.from({ length: 10_000 }, (_, i) => ({
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `aaa-noise.${String(i).padStart(5, "0")}`, namespace: "shop" },
        type: "Warning",
        reason: "NoiseBackOff",
        message: "another app's crash loop",
        involvedObject: { kind: "Pod", name: pod.metadata!.name, namespace: "shop", uid: "another-release-pod" },
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
      })),
    );
  },
});

test("10,000 events of another app: one bounded page, then the release's unready pod's own by uid; theirs never shown", async () => {
  const cluster = sim().cluster(CLUSTER);
  cluster.resetStats();
  const report = await releaseStatus(
    { store, kube: reader(), logger: silentLogger },
    { cluster: CLUSTER, namespace: "shop", name: "api", drift: false, freshness: false },
  );
  const eventLists = cluster
    .stats()
    .log.filter((entry) => entry.path === "/api/v1/namespaces/shop/events")
    .map((entry) => decodeURIComponent(entry.query));
  assert.deepEqual(eventLists, [
    `fieldSelector=type=Warning&limit=${EVENTS_LIST_LIMIT}`,
    `fieldSelector=involvedObject.uid=${podUid},type=Warning&limit=20`,
  ]);
  assert.equal(report.events?.more, true);
  assert.ok(report.events?.items.length, "the release's own events");
  assert.ok(
    report.events.items.every((e) => e.reason !== "NoiseBackOff"),
    "another release's events: never",
  );
  assert.equal(report.events.items[0].reason, "BackOff");
  assert.match(report.causes?.[0].text ?? "", /→ event BackOff ×\d+ "Back-off restarting failed container api/);
  const text = renderStatusText(report);
  assert.doesNotMatch(text, /NoiseBackOff|another app/);
  assert.match(
    text,
    /\nNOTE\nthe namespace has more Warning events than one page: the first was read, then the unready pods' own\n/,
  );
});
