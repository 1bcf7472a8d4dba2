/**
 * A synthetic status report of `kinds` × `perKind` resources (every 7th kind's first one Failed, with Slack
 * control characters in its message) and one MISSING entry: big releases for the renderers and the history.
 */
import type { ResourceEntry, StatusReport } from "../../shared/status/report.ts";

export const column = (name: string) => ({ name, type: "string", format: "", description: "", priority: 0 });

export function syntheticReport(kinds: number, perKind: number, nameLength = 20): StatusReport {
  const resources: ResourceEntry[] = [];
  let index = 0;
  for (let k = 0; k < kinds; k++) {
    for (let i = 0; i < perKind; i++) {
      const name = `r${k}-${i}-`.padEnd(nameLength, "x");
      resources.push({
        groupKey: `v1/Kind${k}`,
        apiVersion: `example.com/v1`,
        kind: `Kind${k}`,
        name,
        index: index++,
        columns: [column("Name"), column("Age")],
        rows: [[name, "5m"]],
        health:
          i === 0 && k % 7 === 0
            ? { status: "Failed", message: "broken <!channel> `x`" }
            : { status: "Current", message: "ok" },
      });
    }
  }
  return {
    release: {
      name: "huge",
      namespace: "shop",
      version: 7,
      info: {
        status: "deployed",
        last_deployed: "2025-11-20T10:00:00Z",
        description: "Upgrade <!here> complete",
        notes: "line1\nline2",
      },
      chart: { name: "huge", version: "1.0.0", appVersion: "1" },
      manifest: "",
      hooks: [],
    },
    cluster: "prod-eu",
    observedAt: "2025-11-20T10:05:00.123Z",
    resources,
    relatedPods: [],
    missing: [{ apiVersion: "v1", kind: "ConfigMap", name: "gone", reason: "not found" }],
    health: {
      ruleset: "kstatus",
      overall: "Failed",
      message: "some not Current",
      resources: resources.map((r) => ({
        apiVersion: r.apiVersion,
        kind: r.kind,
        name: r.name,
        status: r.health.status,
        message: r.health.message,
      })),
    },
    complete: false,
    counters: { requests: 1, retries: 0, maxInFlight: 1, durationMs: 12 },
  };
}
