/**
 * A status that does not compare live objects (`?drift=false`, `--no-drift`, MCP `drift: false`) has no write to
 * name: it does not read the release's attributions (no DynamoDB Query for nothing).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { simConnector } from "../status/sim-connector.ts";
import { simulatedEksForFile } from "../support/sim.ts";
import { STORE_CLOCK, webRevision } from "./support.ts";

const CLUSTER = "demo-us";
const clock = { now: () => new Date("2026-12-02T15:00:00Z") };
const sim = simulatedEksForFile({ clusters: [{ name: CLUSTER }], now: clock.now });
const key = { cluster: CLUSTER, namespace: "shop", name: "web" };

/** The memory store, counting every call made on it. */
function counted(): { store: AttributionStore; calls: string[] } {
  const calls: string[] = [];
  const inner = new MemoryAttributionStore(STORE_CLOCK);
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return value.apply(target, args);
      };
    },
  }) as AttributionStore;
  return { store, calls };
}

test("drift off: the attributions are not read; drift on: read once", async () => {
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, webRevision(1, "deployed"));
  for (const drift of [false, true]) {
    const { store: attributions, calls } = counted();
    const kube = createKubeReader({ connector: simConnector(sim()), clock });
    try {
      const report = await releaseStatus({ store, kube, logger: silentLogger, attributions }, { ...key, drift });
      assert.equal(report.drift === undefined, !drift);
    } finally {
      await kube.close();
    }
    assert.equal(calls.length > 0, drift, `drift ${drift}: ${calls.join(", ") || "no call"}`);
  }
});
