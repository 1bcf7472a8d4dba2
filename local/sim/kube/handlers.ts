import type { ServerResponse } from "node:http";
import { checkIdentity, parseBody } from "./bodies.ts";
import { EVENTS_V1_GROUP, serveEventsV1 } from "./events.ts";
import { patchResource, scaleOf, updateWrite, writeScale } from "./field-writes.ts";
import { podLog } from "./logs.ts";
import { ApiError, badRequest, negotiate, notFound, type Representation } from "./negotiation.ts";
import { apiVersionOf } from "./registry.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import type { ClusterState } from "./state.ts";
import type { StoreEvent } from "./store.ts";
import { typeKeyOf } from "./store.ts";
import { buildTable, type IncludeObject } from "./tables/index.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  plural: string;
  name?: string;
  subresource?: string;
}

export interface ApiReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Long-running answers (watch) write the response themselves. */
  stream?: (res: ServerResponse) => void;
}

export interface ResourceRequest {
  method: string;
  query: URLSearchParams;
  accept?: string;
  contentType?: string;
  /** Names the field manager when `?fieldManager=` does not. */
  userAgent?: string;
  body: Buffer;
}

export type Authorizer = (
  verb: string,
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  subresource?: string,
) => void;

/** `/api/v1/...` or `/apis/<g>/<v>/...` split into its REST parts; undefined for anything else. */
export function parseResourcePath(pathname: string, state: ClusterState): ResourcePath | undefined {
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 3) [group, version, rest] = ["", parts[1], parts.slice(2)];
  else if (parts[0] === "apis" && parts.length >= 4) [group, version, rest] = [parts[1], parts[2], parts.slice(3)];
  else return undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && state.registry.byResource(group, version, rest[2])?.namespaced) {
    return { group, version, namespace: rest[1], plural: rest[2], name: rest[3], subresource: rest[4] };
  }
  if (rest.length > 3) return undefined;
  return { group, version, plural: rest[0], name: rest[1], subresource: rest[2] };
}

/** The Kubernetes verb of a resource request (what RBAC and the audit log name). */
export const verbOf = (method: string, path: ResourcePath, watch: boolean): string => {
  if (method === "GET") return path.name ? "get" : watch ? "watch" : "list";
  if (method === "POST") return "create";
  if (method === "PUT") return "update";
  if (method === "PATCH") return "patch";
  if (method === "DELETE") return path.name ? "delete" : "deletecollection";
  return method.toLowerCase();
};

/** Serves one resource request against the cluster state (the REST handlers of kube-apiserver). */
export function handleResource(
  state: ClusterState,
  path: ResourcePath,
  request: ResourceRequest,
  authorize: Authorizer,
): ApiReply {
  const type = state.registry.byResource(path.group, path.version, path.plural);
  const resourceMissing = () => new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  if (!type) throw resourceMissing();
  if (!type.namespaced && path.namespace) throw resourceMissing();
  if (path.subresource && !(type.subresources ?? []).includes(path.subresource)) throw resourceMissing();
  const watch = ["true", "1"].includes(request.query.get("watch") ?? "");
  const verb = verbOf(request.method, path, watch);
  authorize(verb, type, path.namespace, path.name, path.subresource);
  const apiVersion = apiVersionOf(type, path.version);
  const representation = negotiate(request.accept, { table: true, partial: true });
  if (!representation) {
    throw new ApiError(
      406,
      "NotAcceptable",
      `only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io`,
    );
  }
  const render = (object: KubeObject) => ({ ...object, apiVersion });
  state.expireEvents();
  if (type.group === EVENTS_V1_GROUP) {
    return serveEventsV1(state, type, path, request, verb, representation, {
      select: (t, namespace, query) => select(state, t, namespace, query),
      present: (t, items, r, query, listMeta, version) => present(state, t, items, r, query, listMeta, version),
    });
  }

  switch (verb) {
    case "get": {
      const object = state.store.get(type, path.namespace, path.name as string);
      if (!object) throw notFound(type.plural, path.name as string, type.group);
      if (path.subresource === "scale") return { status: 200, body: scaleOf(object) };
      if (path.subresource === "log") return podLog(object, request.query, state.now());
      return { status: 200, body: present(state, type, [render(object)], representation, request.query, undefined) };
    }
    case "list":
    case "watch": {
      if (verb === "watch")
        return {
          status: 200,
          stream: (res) => streamWatch(state, type, path.namespace, request.query, representation, res),
        };
      // A continue token pages through the snapshot its chain's first page took (list-chunks.ts).
      const page = state.listChunks.page(
        () => select(state, type, path.namespace, request.query),
        request.query,
        state.store.currentRevision(),
      );
      return {
        status: 200,
        body: present(state, type, page.items.map(render), representation, request.query, page.meta, apiVersion),
      };
    }
    case "create": {
      const object = parseBody(request.body, request.contentType);
      checkIdentity(type, apiVersion, object, path);
      const created = state.create(
        type,
        { ...object, metadata: { ...object.metadata, namespace: path.namespace } },
        { write: updateWrite(request, apiVersion) },
      );
      return { status: 201, body: render(created) };
    }
    case "update": {
      const object = parseBody(request.body, request.contentType);
      if (path.subresource === "scale") return writeScale(state, type, path, request, apiVersion, () => object);
      checkIdentity(type, apiVersion, object, path);
      if (object.metadata?.name !== path.name)
        throw badRequest("the name of the object does not match the name on the URL");
      const existing = state.store.get(type, path.namespace, path.name as string);
      if (!existing) throw notFound(type.plural, path.name as string, type.group);
      const next = path.subresource === "status" ? { ...existing, status: object.status } : object;
      if (path.subresource !== "status" && existing.status !== undefined) next.status = existing.status;
      const updated = state.replace(
        type,
        { ...next, metadata: { ...next.metadata, namespace: path.namespace } },
        { write: updateWrite(request, apiVersion, path.subresource) },
      );
      return { status: 200, body: render(updated) };
    }
    case "patch":
      return patchResource(state, type, path, request, apiVersion, render);
    case "delete": {
      const removed = state.remove(type, path.namespace, path.name as string);
      return {
        status: 200,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: {
            name: path.name,
            ...(type.group ? { group: type.group } : {}),
            kind: type.plural,
            uid: removed.metadata?.uid,
          },
        },
      };
    }
    case "deletecollection": {
      const items = select(state, type, path.namespace, request.query);
      for (const item of items) state.remove(type, item.metadata?.namespace, item.metadata?.name ?? "");
      return {
        status: 200,
        body: {
          kind: type.listKind,
          apiVersion,
          metadata: { resourceVersion: state.store.currentRevision() },
          items: items.map(render),
        },
      };
    }
    default:
      throw new ApiError(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`);
  }
}

function predicateFor(type: ResourceType, query: URLSearchParams): (object: KubeObject) => boolean {
  try {
    const labelSelector = query.get("labelSelector");
    const fieldSelector = query.get("fieldSelector");
    const byLabel = labelSelector ? parseLabelSelector(labelSelector) : () => true;
    const byField = fieldSelector ? parseFieldSelector(fieldSelector, type.kind) : () => true;
    return (object) => byLabel(object) && byField(object);
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
}

function select(
  state: ClusterState,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): KubeObject[] {
  return state.store.list(type, namespace).filter(predicateFor(type, query));
}

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get("includeObject") ?? "";
  if (value === "" || value === "Metadata") return "Metadata";
  if (value === "None" || value === "Object") return value;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: "${value}": must be one of Object, Metadata, or None`,
  );
}

/** Renders one object (listMeta undefined) or a list page in the negotiated representation. */
function present(
  state: ClusterState,
  type: ResourceType,
  items: KubeObject[],
  representation: Representation,
  query: URLSearchParams,
  listMeta: Record<string, unknown> | undefined,
  apiVersion?: string,
): unknown {
  if (representation.kind === "table") {
    return buildTable(
      type,
      items,
      { now: state.now(), version: state.version },
      {
        includeObject: includeObjectOf(query),
        tableVersion: representation.version,
        listMeta: listMeta ?? { resourceVersion: items[0]?.metadata?.resourceVersion },
      },
    );
  }
  if (representation.kind === "partial") {
    const partial = (o: KubeObject) => ({
      kind: "PartialObjectMetadata",
      apiVersion: `meta.k8s.io/${representation.version}`,
      metadata: o.metadata,
    });
    if (!listMeta) return partial(items[0]);
    return {
      kind: "PartialObjectMetadataList",
      apiVersion: `meta.k8s.io/${representation.version}`,
      metadata: listMeta,
      items: items.map(partial),
    };
  }
  if (!listMeta) return items[0];
  return { kind: type.listKind, apiVersion, metadata: listMeta, items };
}

/** `?watch=true`: initial ADDED events (unless resuming from a resourceVersion), then changes, until timeout. */
function streamWatch(
  state: ClusterState,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
  representation: Representation,
  res: ServerResponse,
): void {
  const predicate = predicateFor(type, query);
  const matches = (object: KubeObject) => (!namespace || object.metadata?.namespace === namespace) && predicate(object);
  const encode = (eventType: string, object: KubeObject) => {
    const rendered = { ...object, apiVersion: object.apiVersion };
    const payload =
      representation.kind === "table"
        ? buildTable(
            type,
            [rendered],
            { now: state.now(), version: state.version },
            { includeObject: includeObjectOf(query), tableVersion: representation.version },
          )
        : rendered;
    return `${JSON.stringify({ type: eventType, object: payload })}\n`;
  };
  // No transfer-encoding header: HTTP/1.1 chunks a body of unknown length by itself, HTTP/2 forbids the header.
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
  const since = query.get("resourceVersion");
  // Watch-list (client-go's WatchListClient, on by default in kubectl 1.35 and helm 4): the current state as
  // ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end, as kube-apiserver sends it.
  const watchList = query.get("sendInitialEvents") === "true";
  if (watchList || !since || since === "0") {
    for (const object of select(state, type, namespace, query)) res.write(encode("ADDED", object));
  }
  if (watchList) {
    const bookmark = {
      kind: type.kind,
      apiVersion: apiVersionOf(type, type.versions[0]),
      metadata: {
        resourceVersion: state.store.currentRevision(),
        annotations: { "k8s.io/initial-events-end": "true" },
      },
    };
    res.write(`${JSON.stringify({ type: "BOOKMARK", object: bookmark })}\n`);
  }
  const onChange = (event: StoreEvent) => {
    if (event.typeKey === typeKeyOf(type) && matches(event.object)) res.write(encode(event.type, event.object));
  };
  state.store.events.on("change", onChange);
  const timeoutSeconds = Math.min(Number(query.get("timeoutSeconds") ?? "1800") || 1800, 3600);
  const timer = setTimeout(() => res.end(), timeoutSeconds * 1000);
  timer.unref();
  res.on("close", () => {
    clearTimeout(timer);
    state.store.events.off("change", onChange);
  });
}
