/**
 * The CPU drift detection itself costs per status, measured directly (the with/without rows of the bench differ
 * by less than their own noise on a loaded machine): detectDrift over a report's live objects and their manifest,
 * once as read (no drift) and once with every Deployment drifted on two fields and carrying managedFields
 * (attribution work included). See docs/drift.md.
 */
import { type DriftObject, detectDrift } from "../shared/drift/detect.ts";
import { parseManifest } from "../shared/manifest/manifest.ts";
import type { StatusReport } from "../shared/status/report.ts";

const RUNS = 200;

export function driftInputs(report: StatusReport, manifest: string): { clean: DriftObject[]; drifted: DriftObject[] } {
  const { objects } = parseManifest(manifest);
  const clean: DriftObject[] = [];
  for (const entry of report.resources) {
    const object = objects.find((o) => o.kind === entry.kind && o.name === entry.name);
    if (!object || !entry.object) continue;
    clean.push({ ...entry, manifest: object.object, live: entry.object });
  }
  const drifted = clean.map((input) => (input.kind === "Deployment" ? { ...input, live: drift(input.live) } : input));
  return { clean, drifted };
}

function drift(live: Record<string, unknown>): Record<string, unknown> {
  // biome-ignore lint/suspicious/noExplicitAny: a bench fixture
  const copy = structuredClone(live) as any;
  copy.spec.replicas = 7;
  const container = copy.spec.template.spec.containers[0];
  container.image = `${container.image}-changed`;
  copy.metadata.managedFields = [
    {
      manager: "helm",
      operation: "Apply",
      apiVersion: "apps/v1",
      time: "2026-12-02T15:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:spec": {
          "f:selector": {},
          "f:template": {
            "f:spec": { "f:containers": { [`k:{"name":"${container.name}"}`]: { ".": {}, "f:name": {} } } },
          },
        },
      },
    },
    {
      manager: "kubectl",
      operation: "Update",
      apiVersion: "apps/v1",
      subresource: "scale",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:replicas": {} } },
    },
    {
      manager: "kubectl-set",
      operation: "Update",
      apiVersion: "apps/v1",
      time: "2026-12-02T15:20:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:spec": {
          "f:template": { "f:spec": { "f:containers": { [`k:{"name":"${container.name}"}`]: { "f:image": {} } } } },
        },
      },
    },
  ];
  return copy;
}

/** Median-free but warm: CPU ms per detectDrift call over `objects`, after a warm-up. */
export function detectCpuMs(objects: DriftObject[], applyMethod = "ssa"): { ms: number; fields: number } {
  let fields = 0;
  for (let i = 0; i < RUNS / 4; i++) fields = detectDrift({ objects, applyMethod }).fields.length;
  const before = process.threadCpuUsage();
  for (let i = 0; i < RUNS; i++) detectDrift({ objects, applyMethod });
  const used = process.threadCpuUsage(before);
  return { ms: (used.user + used.system) / 1000 / RUNS, fields };
}
