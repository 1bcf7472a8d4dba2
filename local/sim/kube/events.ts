/**
 * Events as kube-apiserver serves them: one store (core/v1 `events`), two APIs. `events.k8s.io/v1` is the same
 * objects converted on the way out and in (`involvedObject` <-> `regarding`, `message` <-> `note`, the legacy
 * `count`/`firstTimestamp`/`lastTimestamp`/`source` as `deprecated*`), with its own field labels (`regarding.*`,
 * `reportingController`), as pkg/apis/events/v1's conversions do. Expiry (`--event-ttl`) is ClusterState's.
 */
import type { ApiReply, ResourcePath, ResourceRequest } from "./handlers.ts";
import { ApiError, badRequest, notFound, type Representation } from "./negotiation.ts";
import type { ClusterState } from "./state.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export const EVENTS_V1_GROUP = "events.k8s.io";

/** events.k8s.io/v1 field labels and the core/v1 fields they stand for. */
const V1_FIELD_LABELS: Record<string, string> = {
  reason: "reason",
  type: "type",
  reportingController: "reportingComponent",
  "metadata.name": "metadata.name",
  "metadata.namespace": "metadata.namespace",
  ...Object.fromEntries(
    ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"].map((f) => [
      `regarding.${f}`,
      `involvedObject.${f}`,
    ]),
  ),
};

/** An events.k8s.io/v1 field selector in core/v1 terms; an unknown label is kube-apiserver's 400. */
export function coreFieldSelector(selector: string): string {
  return selector
    .split(",")
    .filter((part) => part.trim() !== "")
    .map((part) => {
      const m = /^\s*([^!=\s]+)\s*(==|!=|=)(.*)$/.exec(part);
      if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
      const core = V1_FIELD_LABELS[m[1]];
      if (!core) throw badRequest(`field label not supported: ${m[1]}`);
      return `${core}${m[2]}${m[3]}`;
    })
    .join(",");
}

const withoutEmpty = (entries: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

/** core/v1 Event -> events.k8s.io/v1 Event. */
export function toEventsV1(event: KubeObject): KubeObject {
  const source = event.source as Record<string, string> | undefined;
  return withoutEmpty({
    kind: "Event",
    apiVersion: `${EVENTS_V1_GROUP}/v1`,
    metadata: event.metadata,
    eventTime: event.eventTime ?? null,
    series: event.series,
    reportingController: event.reportingComponent || undefined,
    reportingInstance: event.reportingInstance || undefined,
    action: event.action,
    reason: event.reason,
    regarding: event.involvedObject,
    related: event.related,
    note: event.message,
    type: event.type,
    deprecatedSource: source && Object.keys(source).length > 0 ? source : undefined,
    deprecatedFirstTimestamp: event.firstTimestamp ?? null,
    deprecatedLastTimestamp: event.lastTimestamp ?? null,
    deprecatedCount: event.count || undefined,
  }) as KubeObject;
}

/** events.k8s.io/v1 Event -> core/v1 Event (what a component writing the new API stores). */
export function fromEventsV1(event: KubeObject): KubeObject {
  return withoutEmpty({
    apiVersion: "v1",
    kind: "Event",
    metadata: event.metadata,
    involvedObject: event.regarding ?? {},
    related: event.related,
    reason: event.reason,
    message: event.note,
    source: event.deprecatedSource ?? {},
    firstTimestamp: event.deprecatedFirstTimestamp ?? null,
    lastTimestamp: event.deprecatedLastTimestamp ?? null,
    count: event.deprecatedCount,
    type: event.type,
    eventTime: event.eventTime ?? null,
    series: event.series,
    action: event.action,
    reportingComponent: event.reportingController ?? "",
    reportingInstance: event.reportingInstance ?? "",
  }) as KubeObject;
}

/** What serving events.k8s.io needs from the core handlers. */
export interface CoreEventHandlers {
  select(type: ResourceType, namespace: string | undefined, query: URLSearchParams): KubeObject[];
  present(
    type: ResourceType,
    items: KubeObject[],
    representation: Representation,
    query: URLSearchParams,
    listMeta: Record<string, unknown> | undefined,
    apiVersion?: string,
  ): unknown;
}

/** get, list, create and delete of events.k8s.io/v1 over the core events. */
export function serveEventsV1(
  state: ClusterState,
  type: ResourceType,
  path: ResourcePath,
  request: ResourceRequest,
  verb: string,
  representation: Representation,
  core: CoreEventHandlers,
): ApiReply {
  const coreType = state.registry.byKind("v1", "Event") as ResourceType;
  const apiVersion = `${EVENTS_V1_GROUP}/v1`;
  const table = representation.kind !== "json";
  const render = (event: KubeObject) => (table ? event : toEventsV1(event));
  switch (verb) {
    case "get": {
      const event = state.store.get(coreType, path.namespace, path.name ?? "");
      if (!event) throw notFound(type.plural, path.name ?? "", type.group);
      return { status: 200, body: core.present(coreType, [render(event)], representation, request.query, undefined) };
    }
    case "list": {
      const query = new URLSearchParams(request.query);
      const selector = query.get("fieldSelector");
      if (selector) query.set("fieldSelector", coreFieldSelector(selector));
      const page = state.listChunks.page(
        () => core.select(coreType, path.namespace, query),
        query,
        state.store.currentRevision(),
      );
      const items = page.items.map(render);
      if (table) return { status: 200, body: core.present(coreType, items, representation, query, page.meta) };
      return { status: 200, body: { kind: "EventList", apiVersion, metadata: page.meta, items } };
    }
    case "create": {
      const body = JSON.parse(request.body.toString("utf8") || "{}") as KubeObject;
      const created = state.create(coreType, {
        ...fromEventsV1(body),
        metadata: { ...body.metadata, namespace: path.namespace },
      });
      return { status: 201, body: toEventsV1(created) };
    }
    case "delete": {
      if (!state.store.get(coreType, path.namespace, path.name ?? ""))
        throw notFound(type.plural, path.name ?? "", type.group);
      const removed = state.remove(coreType, path.namespace, path.name ?? "");
      return {
        status: 200,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: { name: path.name, group: EVENTS_V1_GROUP, kind: "events", uid: removed.metadata?.uid },
        },
      };
    }
    default:
      throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  }
}
