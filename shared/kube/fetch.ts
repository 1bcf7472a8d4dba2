import type { ClusterConnector } from "../clusters/connector.ts";
import { secretValueDigests } from "../drift/secret-digests.ts";
import { jsonErrorMessage } from "../parse-errors.ts";
import { redactCells, redactObject } from "../status/redact.ts";
import { type KindLookup, lookupKey, type ResourceMapping, resolveKinds } from "./discovery.ts";
import { KubeRequestError } from "./errors.ts";
import { isRecord, type ManifestObject } from "./manifest.ts";
import { KubeSession, type RequestResult, type SessionCounters } from "./session.ts";
import { parseTable, type Table } from "./table.ts";

/**
 * The fan-out: one server-side Table GET per manifest object and one pods LIST
 * per distinct workload selector, all started at once and bounded by the
 * session's concurrency. Helm v4 does the same requests one after the other
 * (wall time ≈ (N + S) × RTT); here it is ≈ ceil((N + S) / concurrency) × RTT.
 *
 * Every outcome is per resource: a 404, a 403, an unknown kind or a 500 after
 * retries never hides the other resources. Secret values are redacted here,
 * before any other code sees a live object or a cell.
 */

/** Helm's exact Accept for Tables (helm-status.md §2.3), with the JSON fallback clause. */
export const TABLE_ACCEPT =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

export type ReadOutcome = "found" | "not-found" | "forbidden" | "unknown-kind" | "error" | "not-read-in-time";

export interface FetchedResource {
  object: ManifestObject;
  /** Where it was looked up: the manifest's namespace, else the release's; absent for cluster-scoped kinds. */
  namespace?: string;
  mapping?: ResourceMapping;
  outcome: ReadOutcome;
  /** Why it could not be read (outcomes other than `found`). */
  message?: string;
  table?: Table;
}

export interface RelatedPods {
  namespace: string;
  /** `spec.selector.matchLabels` (or a ReplicationController's `spec.selector`) from the manifest. */
  selector: Record<string, string>;
  /** Manifest indexes of the workloads sharing this selector. */
  owners: number[];
  outcome: ReadOutcome;
  message?: string;
  table?: Table;
}

export interface FetchResult {
  resources: FetchedResource[];
  related: RelatedPods[];
  counters: SessionCounters;
}

export interface FetchRequest {
  cluster: string;
  connector: ClusterConnector;
  /** The release namespace: the default for namespaced objects that name none. */
  namespace: string;
  objects: readonly ManifestObject[];
  /** Absolute time (epoch ms). */
  deadline?: number;
  concurrency?: number;
  requestTimeoutMs?: number;
  maxAttempts?: number;
  discoveryTtlMs?: number;
  /** The time used for discovery's TTL and client-side AGE cells. */
  now: () => Date;
  /** Wall clock for the deadline (defaults to Date.now). */
  wallClock?: () => number;
  random?: () => number;
}

const MATCH_LABELS_KINDS = new Set(["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"]);

/**
 * Throws only for cluster-level failures (ClusterUnreachableError,
 * ClusterUnauthorizedError, the connector's own errors); the caller decides
 * whether they are fatal for the release's status.
 */
export async function fetchReleaseResources(request: FetchRequest): Promise<FetchResult> {
  const session = new KubeSession({
    cluster: request.cluster,
    connector: request.connector,
    deadline: request.deadline,
    concurrency: request.concurrency,
    requestTimeoutMs: request.requestTimeoutMs,
    maxAttempts: request.maxAttempts,
    now: request.wallClock,
    random: request.random,
  });
  try {
    await session.start();
    // Related pods need no discovery (pods are core v1, workloads are namespaced): start them now.
    const selectors = relatedSelectors(request.objects, request.namespace);
    const relatedWave = selectors.map((related) =>
      // Never left rejected: if the resources fail the whole read, nobody awaits these.
      readRelated(session, related, request.now).catch(
        (error): RelatedPods => ({ ...related, outcome: "error", message: (error as Error).message }),
      ),
    );
    const resources = await readResources(session, request);
    const related = (await Promise.all(relatedWave)).filter((entry) =>
      // Like Helm: related pods only for workloads that were read.
      entry.owners.some((index) => resources[index]?.outcome === "found"),
    );
    return { resources, related, counters: { ...session.counters } };
  } finally {
    session.close();
  }
}

async function readResources(session: KubeSession, request: FetchRequest): Promise<FetchedResource[]> {
  let lookups: Map<string, KindLookup>;
  try {
    lookups = await resolveKinds(session, request.objects, {
      now: request.now().getTime(),
      ttlMs: request.discoveryTtlMs,
    });
  } catch (error) {
    if (error instanceof KubeRequestError && error.deadline) {
      return request.objects.map((object) => ({ object, outcome: "not-read-in-time", message: "not read in time" }));
    }
    throw error;
  }
  return Promise.all(
    request.objects.map(async (object): Promise<FetchedResource> => {
      const lookup = lookups.get(lookupKey(object));
      if (!lookup || "unknown" in lookup) {
        return { object, namespace: object.namespace, outcome: "unknown-kind", message: lookup?.unknown };
      }
      const mapping = lookup.mapping;
      const namespace = mapping.namespaced ? (object.namespace ?? request.namespace) : undefined;
      const path = `${resourcePath(mapping, namespace)}/${encodeURIComponent(object.name)}?includeObject=Object`;
      const result = await session.request(path, TABLE_ACCEPT);
      return { object, namespace, mapping, ...interpret(result, object.kind, request.now) };
    }),
  );
}

async function readRelated(session: KubeSession, related: RelatedPods, now: () => Date): Promise<RelatedPods> {
  const selector = Object.keys(related.selector)
    .sort()
    .map((key) => `${key}=${related.selector[key]}`)
    .join(",");
  const path = `/api/v1/namespaces/${encodeURIComponent(related.namespace)}/pods?includeObject=Object&labelSelector=${encodeURIComponent(selector)}`;
  const result = await session.request(path, TABLE_ACCEPT);
  return { ...related, ...interpret(result, "Pod", now) };
}

function interpret(
  result: RequestResult,
  kind: string,
  now: () => Date,
): { outcome: ReadOutcome; message?: string; table?: Table } {
  if (result.kind === "deadline") return { outcome: "not-read-in-time", message: result.message };
  if (result.kind === "failed") {
    return { outcome: "error", message: `${result.message}${attemptsNote(result.attempts)}` };
  }
  const { status, body } = result.response;
  if (status === 404) return { outcome: "not-found", message: statusMessage(body) ?? "not found" };
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
    table = parseTable(JSON.parse(body), now());
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
    rows: table.rows.map((row) => {
      // Drift compares Secret values by digest: taken here, the one place that sees them, then redacted.
      const secretDigests = kind === "Secret" && row.object ? secretValueDigests(row.object) : undefined;
      return {
        cells: redactCells(kind, table.columns, row.cells),
        object: row.object ? redactObject(row.object) : undefined,
        ...(secretDigests ? { secretDigests } : {}),
      };
    }),
  };
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : "";
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

/**
 * Helm's related-pods rule (helm-status.md §2.4), with identical selectors
 * (same namespace) read once. A selector without matchLabels is skipped:
 * Helm would list every pod of the namespace.
 */
export function relatedSelectors(objects: readonly ManifestObject[], releaseNamespace: string): RelatedPods[] {
  const byKey = new Map<string, RelatedPods>();
  for (const object of objects) {
    const selector = selectorOf(object);
    if (!selector || Object.keys(selector).length === 0) continue;
    const namespace = object.namespace ?? releaseNamespace;
    const key = `${namespace}|${JSON.stringify(Object.entries(selector).sort(([a], [b]) => a.localeCompare(b)))}`;
    const existing = byKey.get(key);
    if (existing) existing.owners.push(object.index);
    else byKey.set(key, { namespace, selector, owners: [object.index], outcome: "not-read-in-time" });
  }
  return [...byKey.values()];
}

function selectorOf(object: ManifestObject): Record<string, string> | undefined {
  const spec = isRecord(object.object.spec) ? object.object.spec : undefined;
  if (!spec || !isRecord(spec.selector)) return undefined;
  let labels: unknown;
  if (MATCH_LABELS_KINDS.has(object.kind)) labels = spec.selector.matchLabels;
  else if (object.kind === "ReplicationController") labels = spec.selector;
  if (!isRecord(labels)) return undefined;
  return Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
}
