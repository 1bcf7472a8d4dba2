/**
 * The changes between two snapshots, one detector per kind. A new kind (drift)
 * is one more detector in CHANGE_DETECTORS; the list, the API and the Slack
 * message render any kind generically ({kind, subject, from, to}).
 */
import { causeKey } from "./digest.ts";
import type { Change, Observation, Snapshot, SnapshotDrift, SnapshotResource } from "./model.ts";

type Comparable = Pick<
  Observation,
  | "revision"
  | "releaseStatus"
  | "health"
  | "resources"
  | "missing"
  | "error"
  | "drift"
  | "resourcesTotal"
  | "missingTotal"
  | "causes"
>;
export type ChangeDetector = (previous: Comparable, next: Comparable) => Change[];

const resourceKey = (r: Pick<SnapshotResource, "apiVersion" | "kind" | "name" | "namespace">) =>
  `${r.apiVersion.split("/").pop()}/${r.kind} ${r.name}${r.namespace ? ` (${r.namespace})` : ""}`;
const missingKey = (m: Observation["missing"][number]) =>
  `${m.apiVersion ? `${m.apiVersion.split("/").pop()}/` : ""}${m.kind ?? "?"} ${m.name ?? ""}`.trim();

export const CHANGE_DETECTORS: Record<string, ChangeDetector> = {
  health: (a, b) =>
    a.health.overall !== b.health.overall ? [{ kind: "health", from: a.health.overall, to: b.health.overall }] : [],
  revision: (a, b) => (a.revision !== b.revision ? [{ kind: "revision", from: a.revision, to: b.revision }] : []),
  releaseStatus: (a, b) =>
    a.releaseStatus !== b.releaseStatus ? [{ kind: "release-status", from: a.releaseStatus, to: b.releaseStatus }] : [],
  resourceHealth: (a, b) => {
    const before = new Map(a.resources.map((r) => [resourceKey(r), r.health]));
    const changes: Change[] = [];
    for (const r of b.resources) {
      const from = before.get(resourceKey(r));
      if (from !== undefined && from !== r.health) {
        changes.push({ kind: "resource-health", subject: resourceKey(r), from, to: r.health });
      }
    }
    return changes;
  },
  // A resource the release started or stopped managing (an upgrade's chart added or dropped it). Not while either
  // side could not read the cluster (no resources then), nor for one that went missing or came back (`missing`).
  resources: (a, b) => {
    if (a.error !== undefined || b.error !== undefined) return [];
    // A list cut to its bound keeps a different few when health moves: only the count says what changed.
    if (a.resourcesTotal !== undefined || b.resourcesTotal !== undefined) {
      const [from, to] = [a.resourcesTotal ?? a.resources.length, b.resourcesTotal ?? b.resources.length];
      return from === to ? [] : [{ kind: "resource-count", from, to }];
    }
    const brief = (r: SnapshotResource) => `${r.apiVersion.split("/").pop()}/${r.kind} ${r.name}`;
    const missing = new Set([...a.missing, ...b.missing].map(missingKey));
    const before = new Set(a.resources.map(resourceKey));
    const after = new Set(b.resources.map(resourceKey));
    return [
      ...b.resources
        .filter((r) => !before.has(resourceKey(r)) && !missing.has(brief(r)))
        .map((r): Change => ({ kind: "resource-added", subject: resourceKey(r), to: r.health })),
      ...a.resources
        .filter((r) => !after.has(resourceKey(r)) && !missing.has(brief(r)))
        .map((r): Change => ({ kind: "resource-removed", subject: resourceKey(r), from: r.health })),
    ];
  },
  // A resource's cause that is new or different (another reason or exit code); times and restarts are not.
  causes: (a, b) => {
    const before = new Set((a.causes ?? []).map(causeKey));
    return (b.causes ?? [])
      .filter((cause) => !before.has(causeKey(cause)))
      .map((cause): Change => ({ kind: "cause", subject: resourceKey(cause), to: cause.text }));
  },
  missing: (a, b) => {
    if (a.missingTotal !== undefined || b.missingTotal !== undefined) {
      const [from, to] = [a.missingTotal ?? a.missing.length, b.missingTotal ?? b.missing.length];
      return from === to ? [] : [{ kind: "missing-count", from, to }];
    }
    const before = new Map(a.missing.map((m) => [missingKey(m), m.reason]));
    const after = new Map(b.missing.map((m) => [missingKey(m), m.reason]));
    const changes: Change[] = [];
    for (const [key, reason] of after)
      if (!before.has(key)) changes.push({ kind: "missing-added", subject: key, to: reason });
    for (const [key, reason] of before)
      if (!after.has(key)) changes.push({ kind: "missing-resolved", subject: key, from: reason });
    return changes;
  },
  // A field that starts drifting (or drifts to another value, or by another manager) is a change event; one
  // that is back to the release's value is one too. Unknown on either side (drift not compared): nothing.
  drift: (a, b) => {
    // A snapshot of a deployed, readable release from before drift was recorded counts as "no drift".
    const previous = a.drift ?? (a.error === undefined && a.releaseStatus === "deployed" ? [] : undefined);
    if (!previous || !b.drift) return [];
    const key = (d: SnapshotDrift) => `${resourceKey(d)} ${d.field}`;
    const before = new Map(previous.map((d) => [key(d), d]));
    const after = new Map(b.drift.map((d) => [key(d), d]));
    const changes: Change[] = [];
    for (const [subject, d] of after) {
      const was = before.get(subject);
      if (!was) changes.push({ kind: "drift-started", subject, to: driftText(d) });
      else if (was.live !== d.live || was.changedBy !== d.changedBy)
        changes.push({ kind: "drift-changed", subject, from: driftText(was), to: driftText(d) });
    }
    for (const [subject, d] of before) {
      if (!after.has(subject)) changes.push({ kind: "drift-resolved", subject, from: driftText(d) });
    }
    return changes;
  },
  reachability: (a, b) => {
    if (a.error === undefined && b.error !== undefined) return [{ kind: "cluster-unreachable", to: b.error }];
    if (a.error !== undefined && b.error === undefined) return [{ kind: "cluster-reachable", from: a.error }];
    return [];
  },
};

export function changesBetween(previous: Comparable | Snapshot | undefined, next: Comparable): Change[] {
  if (!previous) return [{ kind: "first-seen", to: next.health.overall }];
  return Object.values(CHANGE_DETECTORS).flatMap((detect) => detect(previous, next));
}

/** `5 by kubectl (scale) at 2026-...`; a Secret's value is never shown ("changed" in snapshots from before values stopped being compared). */
function driftText(d: SnapshotDrift): string {
  const by = d.changedBy ? ` by ${d.changedBy}${d.subresource ? ` (${d.subresource})` : ""}` : "";
  const at = d.changedAt ? ` at ${d.changedAt}` : "";
  const value = d.release !== undefined ? `${d.release} -> ${d.live}` : d.live;
  return `${value}${by}${at}${d.conflicts ? ", next upgrade conflicts" : ""}${d.benign ? `, benign (${d.benign})` : ""}`;
}

/** One line per change, for tables, logs and Slack. */
export function describeChange(change: Change): string {
  const arrow = change.from !== undefined && change.to !== undefined ? `${change.from} -> ${change.to}` : undefined;
  switch (change.kind) {
    case "first-seen":
      return `first seen (${change.to})`;
    case "health":
      return `health ${arrow}`;
    case "revision":
      return `revision ${arrow}`;
    case "release-status":
      return `status ${arrow}`;
    case "resource-health":
      return `${change.subject} ${arrow}`;
    case "resource-added":
      return `${change.subject} added (${change.to})`;
    case "resource-removed":
      return `${change.subject} removed`;
    case "resource-count":
      return `resources ${arrow}`;
    case "cause":
      return `why: ${change.to}`;
    case "missing-count":
      return `missing ${arrow}`;
    case "missing-added":
      return `${change.subject} missing (${change.to})`;
    case "missing-resolved":
      return `${change.subject} back`;
    case "drift-started":
      return `${change.subject} drifted: ${change.to}`;
    case "drift-changed":
      return `${change.subject} drift ${change.from} => ${change.to}`;
    case "drift-resolved":
      return `${change.subject} back to the release's value (was ${change.from})`;
    case "cluster-unreachable":
      return `cluster unreachable: ${change.to}`;
    case "cluster-reachable":
      return "cluster reachable again";
    default:
      return [change.kind, change.subject, arrow ?? change.to ?? change.from].filter((p) => p !== undefined).join(" ");
  }
}
