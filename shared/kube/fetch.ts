import { ClusterUnreachableError } from "../clusters/errors.ts";
import type { NamespaceAccess } from "../clusters/namespace-access.ts";
import { jsonErrorMessage } from "../input/parse-errors.ts";
import type { ManifestObject } from "../manifest/manifest.ts";
import { redactCells, redactObject } from "../manifest/redact.ts";
import type { Clock } from "../ports.ts";
import { builtinMapping } from "./builtin-kinds.ts";
import { type DiscoveryCache, type KindLookup, lookupKey, type ResourceMapping, resolveKinds } from "./discovery.ts";
import { KubeRequestError } from "./errors.ts";
import { type EventsAnswer, listWarningEvents, wantsEvents, withEventsOfUnreadyPods } from "./events.ts";
import type { ReadOutcome } from "./read-outcome.ts";
import { type PodsAnswer, type RelatedPods, readRelatedPods, relatedSelectors } from "./related-pods.ts";

export type { ReadOutcome };

import type { KubeSession, RequestResult, SessionCounters } from "./session.ts";
import { parseTable, type Table } from "./table.ts";

/**
 * The fan-out: one server-side Table GET per manifest object and the pods LISTs
 * of the workload selectors (related-pods.ts: selectors that differ in one label
 * share one), all started at once (one wave) and bounded by the session's limits.
 * Helm v4 does the same requests one after the other (wall time ≈ (N + S) × RTT);
 * here it is ≈ ceil((N + lists) / concurrency) × RTT, one RTT for a release under
 * the per-status cap.
 *
 * Every outcome is per resource: a 404, a 403, an unknown kind or a 500 after
 * retries never hides the other resources. Secret values are redacted here,
 * before any other code sees a live object or a cell.
 */

/** Helm's exact Accept for Tables (helm-status.md §2.3), with the JSON fallback clause. */
export const TABLE_ACCEPT =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

export interface FetchedResource {
  object: ManifestObject;
  /** Where it was looked up: the manifest's namespace, else the release's; absent for cluster-scoped kinds. */
  namespace?: string;
  mapping?: ResourceMapping;
  outcome: ReadOutcome;
  /** Why it could not be read (outcomes other than `found`). */
  message?: string;
  table?: Table;
  /** Internal: the 404 said the resource type is not served (never in a returned result). */
  notServed?: true;
}

export interface FetchResult {
  resources: FetchedResource[];
  related: RelatedPods[];
  /** The release namespace's Warning events (events.ts), when it has anything they would explain. */
  events?: EventsAnswer;
  counters: SessionCounters;
}

/** One release's live read, as a KubeReader runs it (reader.ts). */
export interface LiveReadRequest {
  /** The release namespace: the default for namespaced objects that name none. */
  namespace: string;
  objects: readonly ManifestObject[];
  /** The caller's access (absent: everything): an object it may not see is neither requested nor its pods listed. */
  sees?: NamespaceAccess;
}

export interface LiveReadContext {
  session: KubeSession;
  discovery: DiscoveryCache;
  discoveryTtlMs: number;
  /** The time used for discovery's TTL and client-side AGE cells. */
  clock: Clock;
}

/** No request got an answer: the cluster is unreachable; `perResource` says why each manifest object was not read. */
export class ReleaseUnreachableError extends ClusterUnreachableError {
  readonly perResource: readonly string[];
  constructor(cluster: string, message: string, perResource: readonly string[]) {
    super(cluster, message);
    this.perResource = perResource;
  }
}

/**
 * Throws only for cluster-level failures (ClusterUnreachableError,
 * ClusterAccessDeniedError, ClusterCertificateError, the connector's own
 * errors); the caller decides whether they are fatal for the release's status.
 */
export async function readReleaseResources(context: LiveReadContext, request: LiveReadRequest): Promise<FetchResult> {
  const { session } = context;
  await session.start();
  // Related pods need no discovery (pods are core v1, workloads are namespaced): one wave with the resources.
  // Never in a namespace the caller may not see (a workload there is not read either).
  const selectors = relatedSelectors(
    request.objects.filter((object) => !outsideByName(request, object)),
    request.namespace,
  );
  // Never left rejected (a failed LIST is that selector's outcome): if the resources fail the whole read,
  // nobody awaits this.
  const relatedWave = readRelatedPods(selectors, (namespace, labelSelector) =>
    listPods(session, namespace, labelSelector, context.clock),
  );
  // Also never left rejected: a failed LIST is its outcome. Read in the same wave, matched after it (why/).
  const eventsWave = wantsEvents(request.objects)
    ? listWarningEvents(session, request.namespace).catch(
        (error: unknown): EventsAnswer => ({
          namespace: request.namespace,
          outcome: "error",
          message: (error as Error).message,
        }),
      )
    : undefined;
  let resources: FetchedResource[];
  try {
    resources = await readResources(context, request);
  } catch (error) {
    throw session.fatal ?? error;
  }
  const [relatedRead, events] = await Promise.all([relatedWave, eventsWave]);
  if (session.fatal) throw session.fatal;
  if (session.answers === 0 && session.firstFailure) {
    const unreachable = (detail: string) => `kubernetes cluster unreachable: "${session.cluster}": ${detail}`;
    throw new ReleaseUnreachableError(
      session.cluster,
      unreachable(session.firstFailure),
      // Each resource's own read, not whichever request failed first (often a related-pods LIST).
      resources.map((r) =>
        r.mapping && r.outcome === "error"
          ? unreachable(
              `GET ${resourcePath(r.mapping, r.namespace)}/${encodeURIComponent(r.object.name)}: ${r.message}`,
            )
          : unreachable(session.firstFailure!),
      ),
    );
  }
  const related = relatedRead.filter((entry) =>
    // Like Helm: related pods only for workloads that were read.
    entry.owners.some((index) => resources[index]?.outcome === "found"),
  );
  // A page of events that overflowed may hold none of the release's: its unready pods' own, by uid (events.ts).
  const completeEvents =
    events &&
    (await withEventsOfUnreadyPods(
      session,
      events,
      related.flatMap((entry) => entry.table?.rows.flatMap((row) => (row.object ? [row.object] : [])) ?? []),
    ));
  return {
    resources,
    related,
    ...(completeEvents ? { events: completeEvents } : {}),
    counters: { ...session.counters },
  };
}

async function readResources(context: LiveReadContext, request: LiveReadRequest): Promise<FetchedResource[]> {
  const { session } = context;
  const discover = (kinds: readonly ManifestObject[], refresh: boolean) =>
    resolveKinds(context.discovery, session, kinds, {
      now: context.clock.now().getTime(),
      ttlMs: context.discoveryTtlMs,
      refresh,
    });
  // Built-in kinds are mapped statically and read at once; only the others wait for discovery.
  const custom = request.objects.filter((object) => !builtinMapping(object));
  const lookups = custom.length > 0 ? discover(custom, false) : undefined;
  // A built-in the server says it does not serve: one shared rediscovery for all of them.
  let rediscovered: Promise<Map<string, KindLookup>> | undefined;
  const rediscover = () => {
    rediscovered ??= discover(request.objects, true);
    return rediscovered;
  };

  const read = async (object: ManifestObject, mapping: ResourceMapping): Promise<FetchedResource> => {
    const namespace = mapping.namespaced ? (object.namespace ?? request.namespace) : undefined;
    // Where the object really is (a cluster-scoped kind ignores a manifest's namespace) decides, before any GET.
    if (request.sees && !request.sees(namespace)) return { object, namespace, mapping, outcome: "outside-access" };
    const path = `${resourcePath(mapping, namespace)}/${encodeURIComponent(object.name)}?includeObject=Object`;
    const result = await session.request(path, TABLE_ACCEPT);
    return { object, namespace, mapping, ...interpret(result, object.kind, context.clock) };
  };
  const notReadInTime = (object: ManifestObject): FetchedResource => ({
    object,
    outcome: "not-read-in-time",
    message: "not read in time",
  });
  const unknownKind = (object: ManifestObject, message?: string): FetchedResource => ({
    object,
    namespace: object.namespace,
    outcome: "unknown-kind",
    message: message ?? `no matches for kind "${object.kind}" in version "${object.apiVersion}"`,
  });
  const lookup = async (source: Promise<Map<string, KindLookup>>, object: ManifestObject) => {
    try {
      return (await source).get(lookupKey(object));
    } catch (error) {
      if (error instanceof KubeRequestError && error.deadline) return "deadline" as const;
      throw error;
    }
  };

  return Promise.all(
    request.objects.map(async (object): Promise<FetchedResource> => {
      if (outsideByName(request, object)) return { object, namespace: object.namespace, outcome: "outside-access" };
      let mapping = builtinMapping(object);
      if (!mapping) {
        const found = await lookup(lookups as Promise<Map<string, KindLookup>>, object);
        if (found === "deadline") return notReadInTime(object);
        if (!found || "unknown" in found) return unknownKind(object, found?.unknown);
        mapping = found.mapping;
      }
      const first = await read(object, mapping);
      if (!first.notServed) return first;
      // The resource type itself is unknown to the server (a group version removed, a CRD deleted):
      // ask discovery once, read again if it maps the kind elsewhere, else it is an unknown kind.
      const again = await lookup(rediscover(), object);
      if (again === "deadline") return notReadInTime(object);
      if (!again || "unknown" in again) return unknownKind(object, again?.unknown);
      if (sameMapping(again.mapping, mapping)) return unknownKind(object, first.message);
      const second = await read(object, again.mapping);
      return second.notServed ? unknownKind(object, second.message) : second;
    }),
  );
}

/** An object whose manifest names a namespace the caller may not see: known before discovery. */
function outsideByName(request: LiveReadRequest, object: ManifestObject): boolean {
  return request.sees !== undefined && object.namespace !== undefined && !request.sees(object.namespace);
}

function sameMapping(a: ResourceMapping, b: ResourceMapping): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource && a.namespaced === b.namespaced;
}

async function listPods(
  session: KubeSession,
  namespace: string,
  labelSelector: string,
  clock: Clock,
): Promise<PodsAnswer> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods?includeObject=Object&labelSelector=${encodeURIComponent(labelSelector)}`;
  return interpret(await session.request(path, TABLE_ACCEPT), "Pod", clock);
}

function interpret(
  result: RequestResult,
  kind: string,
  clock: Clock,
): { outcome: ReadOutcome; message?: string; table?: Table; notServed?: true } {
  if (result.kind === "deadline") return { outcome: "not-read-in-time", message: result.message };
  if (result.kind === "failed") {
    return { outcome: "error", message: `${result.message}${attemptsNote(result.attempts)}` };
  }
  const { status, body } = result.response;
  if (status === 404) {
    const notServed = isResourceTypeNotServed(body);
    return { outcome: "not-found", message: statusMessage(body) ?? "not found", ...(notServed ? { notServed } : {}) };
  }
  if (status === 403) return { outcome: "forbidden", message: statusMessage(body) ?? "forbidden" };
  if (status < 200 || status >= 300) {
    const detail = statusMessage(body);
    return {
      outcome: "error",
      message: `HTTP ${status}${detail ? `: ${detail}` : ""}${attemptsNote(result.attempts)}`,
    };
  }
  let table: Table;
  try {
    table = parseTable(JSON.parse(body), clock.now());
  } catch (error) {
    return {
      outcome: "error",
      message: `unreadable answer: ${error instanceof SyntaxError ? jsonErrorMessage(error) : (error as Error).message}`,
    };
  }
  return { outcome: "found", table: redactTable(kind, table) };
}

function redactTable(kind: string, table: Table): Table {
  return {
    columns: table.columns,
    metadata: table.metadata,
    rows: table.rows.map((row) => ({
      cells: redactCells(kind, table.columns, row.cells),
      object: row.object ? redactObject(row.object) : undefined,
    })),
  };
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : "";
}

/**
 * A 404 for the resource type, not the object: kube-apiserver's Status then
 * names no object (`details.name` absent; "the server could not find the
 * requested resource"), while a missing object's Status names it.
 */
function isResourceTypeNotServed(body: string): true | undefined {
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; details?: { name?: unknown } };
    if (parsed.kind !== "Status") return undefined;
    return typeof parsed.details?.name === "string" && parsed.details.name !== "" ? undefined : true;
  } catch {
    return undefined;
  }
}

/** The `message` of a Kubernetes Status body, on one line and bounded. */
function statusMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string" && parsed.message) return parsed.message.split("\n")[0].slice(0, 300);
  } catch {
    // Not a Status: the HTTP status alone says enough.
  }
  return undefined;
}

export function resourcePath(mapping: ResourceMapping, namespace: string | undefined): string {
  const base = mapping.group ? `/apis/${mapping.group}/${mapping.version}` : `/api/${mapping.version}`;
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${scope}/${mapping.resource}`;
}
