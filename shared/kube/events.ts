/**
 * The events of a release's namespace, read in the status's one wave beside the GETs and the pods LISTs: one
 * core v1 LIST of the namespace's Warning events, bounded by `limit` (kube-apiserver keeps events for its
 * `--event-ttl`, 1 h by default). Matching them to the release's objects is shared/why/events.ts's; this only
 * reads. A forbidden or failed LIST is an outcome with its message, never the status's failure.
 */
import type { ManifestObject } from "../manifest/manifest.ts";
import type { ReadOutcome } from "./read-outcome.ts";
import type { KubeSession } from "./session.ts";

/** Warning events read per namespace: one page, the API server's own bound; the newest that matter fit in it. */
export const EVENTS_LIST_LIMIT = 200;

export interface EventsAnswer {
  namespace: string;
  outcome: ReadOutcome;
  /** Why they could not be read (outcomes other than `found`). */
  message?: string;
  /** The Event objects as listed (plain JSON; no Secret data can be in an Event). */
  items?: unknown[];
  /** The namespace had more Warning events than one page holds. */
  more?: boolean;
}

/** Kinds whose trouble kubelet, the scheduler or a controller reports as events about what they own. */
const EVENTFUL = new Set([
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "ReplicaSet",
  "ReplicationController",
  "Job",
  "CronJob",
  "Pod",
  "PersistentVolumeClaim",
  "HorizontalPodAutoscaler",
]);

/** Whether the release has anything events would explain: no workload, no extra request. */
export function wantsEvents(objects: readonly ManifestObject[]): boolean {
  return objects.some((object) => EVENTFUL.has(object.kind));
}

export async function listWarningEvents(session: KubeSession, namespace: string): Promise<EventsAnswer> {
  const path =
    `/api/v1/namespaces/${encodeURIComponent(namespace)}/events` +
    `?fieldSelector=${encodeURIComponent("type=Warning")}&limit=${EVENTS_LIST_LIMIT}`;
  const result = await session.request(path, "application/json");
  if (result.kind === "deadline") return { namespace, outcome: "not-read-in-time", message: result.message };
  if (result.kind === "failed") return { namespace, outcome: "error", message: result.message };
  const { status, body } = result.response;
  if (status === 403) return { namespace, outcome: "forbidden", message: "list events forbidden" };
  if (status < 200 || status >= 300) return { namespace, outcome: "error", message: `HTTP ${status}` };
  try {
    const list = JSON.parse(body) as { items?: unknown; metadata?: { continue?: unknown } };
    const items = Array.isArray(list.items) ? list.items : [];
    const more = typeof list.metadata?.continue === "string" && list.metadata.continue !== "";
    return { namespace, outcome: "found", items, ...(more ? { more } : {}) };
  } catch {
    return { namespace, outcome: "error", message: "unreadable answer" };
  }
}
