/**
 * The events about a release's objects: from one LIST of a namespace's events (core v1, bounded by `limit`), those
 * whose involved object is one the release owns (its manifest objects, their pods and the ReplicaSets between, by
 * uid), deduplicated as `kubectl describe` folds them (same object, reason and message: counts added, first and last
 * seen widened), Warning first, newest first. Pure: events in, plain data out; never throws on a shape it does not
 * know (it skips that event).
 */
import { isRecord } from "../input/values.ts";
import { oneLine } from "./containers.ts";

/** Events kept per report, after folding: the newest Warnings say why; more is noise (the text route has these). */
export const EVENTS_KEPT = 20;
/** An event message as kept: one line, at most this long (a 1 MB message is cluster data, not an explanation). */
const MESSAGE_CHARS = 300;

export interface ReleaseEvent {
  type: "Warning" | "Normal";
  reason: string;
  message: string;
  /** The involved object: `Pod api-7d9-x2`, `ReplicaSet api-7d9`, `Deployment api`. */
  object: { kind: string; name: string; namespace?: string; uid: string };
  count: number;
  firstSeen?: string;
  lastSeen?: string;
}

/** What a report says of events: those kept, why none could be read, whether the namespace had more than one page. */
export interface ReleaseEvents {
  items: ReleaseEvent[];
  unread?: string;
  more?: true;
}

/** The uids the release's events may name: its manifest objects, their pods, and the pods' owners (ReplicaSets, Jobs). */
export function ownedUids(objects: readonly unknown[], pods: readonly unknown[]): Set<string> {
  const uids = new Set<string>();
  const metadataOf = (object: unknown) => (isRecord(object) && isRecord(object.metadata) ? object.metadata : {});
  for (const object of [...objects, ...pods]) {
    const uid = metadataOf(object).uid;
    if (typeof uid === "string") uids.add(uid);
  }
  for (const pod of pods) {
    const owners = metadataOf(pod).ownerReferences;
    if (!Array.isArray(owners)) continue;
    for (const owner of owners) if (isRecord(owner) && typeof owner.uid === "string") uids.add(owner.uid);
  }
  return uids;
}

/** The events involving `uids`, folded, Warning first then newest first, at most `kept`. */
export function releaseEvents(
  items: readonly unknown[],
  uids: ReadonlySet<string>,
  kept = EVENTS_KEPT,
): ReleaseEvent[] {
  const folded = new Map<string, ReleaseEvent>();
  for (const item of items) {
    const event = eventOf(item);
    if (!event || !uids.has(event.object.uid)) continue;
    const key = `${event.object.uid}|${event.type}|${event.reason}|${event.message}`;
    const seen = folded.get(key);
    if (!seen) {
      folded.set(key, event);
      continue;
    }
    seen.count += event.count;
    if (event.firstSeen && (!seen.firstSeen || event.firstSeen < seen.firstSeen)) seen.firstSeen = event.firstSeen;
    if (event.lastSeen && (!seen.lastSeen || event.lastSeen > seen.lastSeen)) seen.lastSeen = event.lastSeen;
  }
  return [...folded.values()]
    .sort((a, b) => rank(a) - rank(b) || (b.lastSeen ?? "").localeCompare(a.lastSeen ?? ""))
    .slice(0, kept);
}

const rank = (event: ReleaseEvent) => (event.type === "Warning" ? 0 : 1);

function eventOf(item: unknown): ReleaseEvent | undefined {
  if (!isRecord(item)) return undefined;
  const involved = isRecord(item.involvedObject)
    ? item.involvedObject
    : isRecord(item.regarding)
      ? item.regarding
      : undefined;
  if (!involved || typeof involved.uid !== "string" || typeof involved.kind !== "string") return undefined;
  if (typeof involved.name !== "string" || typeof item.reason !== "string") return undefined;
  const text = typeof item.message === "string" ? item.message : typeof item.note === "string" ? item.note : "";
  const series = isRecord(item.series) ? item.series : undefined;
  const count =
    typeof series?.count === "number"
      ? series.count
      : typeof item.count === "number" && item.count > 0
        ? item.count
        : typeof item.deprecatedCount === "number" && item.deprecatedCount > 0
          ? item.deprecatedCount
          : 1;
  const event: ReleaseEvent = {
    type: item.type === "Warning" ? "Warning" : "Normal",
    reason: oneLine(item.reason, 100),
    message: oneLine(text, MESSAGE_CHARS),
    object: {
      kind: involved.kind,
      name: involved.name,
      ...(typeof involved.namespace === "string" ? { namespace: involved.namespace } : {}),
      uid: involved.uid,
    },
    count,
  };
  const first = timeOf(item.firstTimestamp) ?? timeOf(item.deprecatedFirstTimestamp) ?? timeOf(item.eventTime);
  const last =
    timeOf(series?.lastObservedTime) ??
    timeOf(item.lastTimestamp) ??
    timeOf(item.deprecatedLastTimestamp) ??
    timeOf(item.eventTime) ??
    first;
  if (first) event.firstSeen = first;
  if (last) event.lastSeen = last;
  return event;
}

function timeOf(value: unknown): string | undefined {
  return typeof value === "string" && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

/** `BackOff ×12 "Back-off restarting failed container"`: an event as a link of a cause chain. */
export function describeEvent(event: ReleaseEvent): string {
  return `event ${event.reason}${event.count > 1 ? ` ×${event.count}` : ""} "${event.message}"`;
}
