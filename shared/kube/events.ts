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

/**
 * One page of the namespace's Warning events; `about`: only those whose involved object has this uid (kube-apiserver
 * indexes `involvedObject.uid` as a field), at most `limit`.
 */
export async function listWarningEvents(
  session: KubeSession,
  namespace: string,
  about?: { uid: string; limit: number },
): Promise<EventsAnswer> {
  const selector = about ? `involvedObject.uid=${about.uid},type=Warning` : "type=Warning";
  const path =
    `/api/v1/namespaces/${encodeURIComponent(namespace)}/events` +
    `?fieldSelector=${encodeURIComponent(selector)}&limit=${about?.limit ?? EVENTS_LIST_LIMIT}`;
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

/** Pods whose own events are asked for when the namespace's page overflowed: the causes a chat answer shows. */
const OVERFLOW_PODS = 3;
/** Events read per such pod: kubelet's few reasons, each a folded series. */
const OVERFLOW_EVENTS_PER_POD = 20;

/**
 * A namespace with more Warning events than one page (10,000 from another app's crash loop) lists them in name order,
 * so the release's own may not be on the page read. Then, after the wave, the events of the release's first few pods
 * that are not ready and that the page said nothing about are read by uid, one small LIST each, and added: the
 * newest that matter, still bounded. Only on overflow (a page that held everything costs nothing more); a follow-up
 * that fails leaves the page as it was.
 */
export async function withEventsOfUnreadyPods(
  session: KubeSession,
  answer: EventsAnswer,
  pods: readonly Record<string, unknown>[],
): Promise<EventsAnswer> {
  if (answer.outcome !== "found" || !answer.more) return answer;
  const named = new Set((answer.items ?? []).map(involvedUid));
  const uids = pods
    .filter((pod) => podNamespace(pod) === answer.namespace && !podReady(pod))
    .map((pod) => (pod.metadata as { uid?: unknown }).uid)
    .filter((uid): uid is string => typeof uid === "string" && !named.has(uid))
    .slice(0, OVERFLOW_PODS);
  if (uids.length === 0) return answer;
  const more = await Promise.all(
    uids.map((uid) =>
      listWarningEvents(session, answer.namespace, { uid, limit: OVERFLOW_EVENTS_PER_POD }).catch(() => undefined),
    ),
  );
  const added = more.flatMap((page) => (page?.outcome === "found" ? (page.items ?? []) : []));
  return { ...answer, items: [...(answer.items ?? []), ...added] };
}

function involvedUid(event: unknown): unknown {
  const e = event as { involvedObject?: { uid?: unknown }; regarding?: { uid?: unknown } } | null;
  return e?.involvedObject?.uid ?? e?.regarding?.uid;
}

function podNamespace(pod: Record<string, unknown>): unknown {
  return (pod.metadata as { namespace?: unknown } | undefined)?.namespace;
}

/** Ready=True, or finished: a pod whose events would explain nothing. */
function podReady(pod: Record<string, unknown>): boolean {
  const status = pod.status as { phase?: unknown; conditions?: unknown } | undefined;
  if (status?.phase === "Succeeded") return true;
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  return conditions.some(
    (c) => (c as { type?: unknown }).type === "Ready" && (c as { status?: unknown }).status === "True",
  );
}
