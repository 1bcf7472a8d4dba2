/**
 * The run-length key: a digest over what says how a release is doing, never over
 * what changes by itself (ages, timestamps, "(2m14s ago)" restart cells, request
 * counters). Equal digests extend the latest snapshot instead of writing a new one.
 *
 * Each part is one entry of DIGEST_PARTS, so a new dimension (drift) adds a part
 * here and a detector in changes.ts, nothing else.
 */
import { createHash } from "node:crypto";
import type { Cause } from "../why/causes.ts";
import type { Observation } from "./model.ts";

/** Restart counts climb on every crash of a crash-looping pod; the verdict (Failed) is what the history tracks. */
const VOLATILE_CELLS = new Set(["RESTARTS"]);

export type DigestPart = (observation: Observation) => unknown;

export const DIGEST_PARTS: Record<string, DigestPart> = {
  revision: (o) => o.revision,
  releaseStatus: (o) => o.releaseStatus,
  health: (o) => [o.health.overall, stripTimes(o.health.message)],
  resources: (o) =>
    o.resources
      .map((r) => [
        r.apiVersion,
        r.kind,
        r.namespace ?? "",
        r.name,
        r.health,
        stripTimes(r.message),
        Object.entries(r.cells)
          .filter(([column]) => !VOLATILE_CELLS.has(column))
          .map(([column, value]) => `${column}=${stripTimes(value)}`)
          .sort(),
      ])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  missing: (o) =>
    o.missing
      .map((m) => [m.apiVersion ?? "", m.kind ?? "", m.namespace ?? "", m.name ?? "", m.reason])
      .sort((a, b) => a.join("|").localeCompare(b.join("|"))),
  // Why (shared/why): which container waits or ended for which reason and exit code. Restarts, ages and pod names
  // tick by themselves (a crash loop restarts every few minutes, a new pod gets a new name): left out. No causes
  // leave the digest as it was before they were kept.
  causes: (o) => (o.causes?.length ? o.causes.map(causeKey).sort() : undefined),
  // A list cut to its bound (observation.ts): how many there were, so a resource added past the bound is a change.
  // Uncut lists leave the digest as it was before the bound existed.
  totals: (o) =>
    o.resourcesTotal === undefined && o.missingTotal === undefined ? undefined : [o.resourcesTotal, o.missingTotal],
  error: (o) => (o.error === undefined ? null : stripTimes(o.error)),
  // Who changed which field to what; when is left out (the same drift seen again is the same snapshot).
  // No drift leaves the digest as it was before drift existed (undefined parts are left out).
  drift: (o) =>
    !o.drift?.length
      ? undefined
      : o.drift
          .map((d) => [d.apiVersion, d.kind, d.namespace ?? "", d.name, d.field, d.live, d.changedBy ?? ""])
          .sort((a, b) => a.join("|").localeCompare(b.join("|"))),
};

/** What a cause is, without what ticks by itself: the resource, each troubled container's reasons and exit codes. */
export function causeKey(cause: Cause): string {
  const containers = cause.pods.flatMap((pod) => [
    ...(pod.unschedulable !== undefined ? ["unschedulable"] : []),
    ...pod.containers.map((c) =>
      [
        c.init ? "init" : "",
        c.container,
        c.waiting?.reason,
        c.terminated?.reason,
        c.terminated?.exitCode,
        c.lastTerminated?.reason,
        c.lastTerminated?.exitCode,
      ].join(":"),
    ),
  ]);
  return [cause.apiVersion, cause.kind, cause.namespace ?? "", cause.name, cause.health, ...containers].join("|");
}

export function digestOf(observation: Observation): string {
  const parts = Object.keys(DIGEST_PARTS)
    .sort()
    .map((name) => [name, DIGEST_PARTS[name](observation)])
    .filter(([, value]) => value !== undefined);
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

/** "5 (2m14s ago)" -> "5", "for 3m20s" -> "for <t>", ISO timestamps -> <t>: what ticks by itself. */
export function stripTimes(text: string): string {
  return text
    .replace(/\s*\((?:\d+[smhdwy])+ ago\)/g, "")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, "<t>")
    .replace(/\b(?:\d+[smhd]){1,4}\b/g, "<t>");
}
