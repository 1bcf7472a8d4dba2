import { randomBytes } from "node:crypto";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";

export interface ReleaseSpec {
  name?: string;
  namespace?: string;
  version?: number;
  status?: ReleaseStatus;
  manifest?: string;
  description?: string;
  chartVersion?: string;
}

/** A release in Helm's JSON field order, with a test hook, values, labels and notes. */
export function makeRelease(spec: ReleaseSpec = {}): Release {
  const name = spec.name ?? "demo";
  const version = spec.version ?? 1;
  return {
    name,
    info: {
      first_deployed: "2026-12-02T15:00:00.123456789Z",
      last_deployed: `2026-12-02T15:${String(version % 60).padStart(2, "0")}:00.5+02:00`,
      description: spec.description ?? (version === 1 ? "Install complete" : "Upgrade complete"),
      status: spec.status ?? "deployed",
      notes: "1. Get the application URL <here> & there\n",
    },
    chart: {
      metadata: { name: "demo", version: spec.chartVersion ?? "0.1.0", appVersion: "1.16.0", apiVersion: "v2" },
    },
    config: { replicaCount: 2, image: { tag: "1.16.0" }, password: "not-a-real-secret" },
    manifest:
      spec.manifest ??
      `---\n# Source: ${name}/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  labels:\n    rev: "${version}"\n`,
    hooks: [
      {
        name: `${name}-test-connection`,
        kind: "Pod",
        path: `${name}/templates/tests/test-connection.yaml`,
        manifest: `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}-test-connection\n`,
        events: ["test"],
        last_run: { started_at: "2026-12-02T15:11:00Z", completed_at: "2026-12-02T15:11:05Z", phase: "Succeeded" },
        weight: 0,
        delete_policies: ["before-hook-creation"],
      },
    ],
    version,
    namespace: spec.namespace ?? "default",
    labels: { team: "platform" },
    apply_method: "ssa",
  };
}

let counter = 0;
/** Unique names so tests sharing one engine never see each other's releases. */
export function uniqueName(prefix = "rel"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

/** High-entropy printable text: gzip cannot shrink it much, so it must be chunked. */
export function highEntropyManifest(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  checksum-${i}: ${randomBytes(48).toString("base64")}\n`;
    lines.push(line);
    size += line.length;
  }
  return `---\n# Source: big/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\ndata:\n${lines.join("")}`.slice(
    0,
    bytes,
  );
}
