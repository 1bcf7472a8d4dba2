import { ClusterAccessDeniedError, ClusterUnreachableError } from "../clusters/errors.ts";
import { KubeRequestError } from "./errors.ts";
import type { KubeSession, RequestResult } from "./session.ts";

/**
 * apiVersion + kind -> REST resource (plural, namespaced), the way client-go
 * does it: aggregated discovery first (`/api` + `/apis`, two requests for the
 * whole cluster), the legacy per-group-version lists when the server does not
 * speak it (then only the group-versions the manifest uses are read).
 *
 * Built-in kinds never get here (builtin-kinds.ts maps them statically); this
 * is for custom resources, and for a built-in whose group version the server
 * does not serve. The result is cached per cluster in a DiscoveryCache owned by
 * the KubeReader, so a warm process skips discovery, with a TTL; a kind that is
 * not found triggers one refresh (a CRD installed since), and a kind still not
 * found is reported for that resource only (Helm v4 fails the whole command).
 */

export interface ResourceMapping {
  group: string;
  version: string;
  /** The plural resource name used in paths, e.g. `deployments`. */
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface GroupVersionKind {
  apiVersion: string;
  kind: string;
}

export type KindLookup = { mapping: ResourceMapping } | { unknown: string };

export const DEFAULT_DISCOVERY_TTL_MS = 10 * 60_000;

const AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
export const DISCOVERY_ACCEPT = `${AGGREGATED_V2},${AGGREGATED_V2BETA1},application/json`;
const LEGACY_ACCEPT = "application/json, */*";

interface ClusterDiscovery {
  mode: "aggregated" | "legacy";
  loadedAt: number;
  /** Keyed by `apiVersion|kind`. */
  kinds: Map<string, ResourceMapping>;
  /** Legacy mode: group-versions already read (`false` = the server does not serve it). */
  groupVersions: Map<string, boolean>;
}

/** What was discovered, per cluster; one per KubeReader. */
export class DiscoveryCache {
  readonly entries = new Map<string, ClusterDiscovery>();

  /** Forget what was discovered (a cluster that was rebuilt). */
  clear(cluster?: string): void {
    if (cluster === undefined) this.entries.clear();
    else this.entries.delete(cluster);
  }

  mode(cluster: string): "aggregated" | "legacy" | undefined {
    return this.entries.get(cluster)?.mode;
  }
}

const keyOf = (gvk: GroupVersionKind) => `${gvk.apiVersion}|${gvk.kind}`;

/**
 * Resolves every kind. Throws ClusterUnreachableError / ClusterUnauthorizedError
 * when discovery itself cannot be read, and a KubeRequestError with `deadline`
 * when the deadline passed first.
 */
export async function resolveKinds(
  cache: DiscoveryCache,
  session: KubeSession,
  kinds: readonly GroupVersionKind[],
  options: { now: number; ttlMs?: number; legacyOnly?: boolean; refresh?: boolean },
): Promise<Map<string, KindLookup>> {
  const ttl = options.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
  const entries = cache.entries;
  let entry = entries.get(session.cluster);
  let fresh = false;
  if (!entry || options.refresh || options.now - entry.loadedAt >= ttl) {
    entry = await loadRoot(session, options.now, options.legacyOnly);
    entries.set(session.cluster, entry);
    fresh = true;
  }
  const wanted = uniqueKinds(kinds);
  if (entry.mode === "legacy") await loadGroupVersions(session, entry, wanted, false);

  const loaded = entry;
  const missing = wanted.filter((gvk) => !loaded.kinds.has(keyOf(gvk)));
  if (missing.length > 0 && !fresh) {
    if (entry.mode === "aggregated") {
      entry = await loadRoot(session, options.now, options.legacyOnly);
      entries.set(session.cluster, entry);
      if (entry.mode === "legacy") await loadGroupVersions(session, entry, wanted, false);
    } else {
      await loadGroupVersions(session, entry, missing, true);
    }
  }

  const result = new Map<string, KindLookup>();
  for (const gvk of wanted) {
    const mapping = entry.kinds.get(keyOf(gvk));
    result.set(
      keyOf(gvk),
      mapping ? { mapping } : { unknown: `no matches for kind "${gvk.kind}" in version "${gvk.apiVersion}"` },
    );
  }
  return result;
}

export function lookupKey(gvk: GroupVersionKind): string {
  return keyOf(gvk);
}

/** `legacyOnly`: ask without the aggregated clauses, as an API server without aggregated discovery answers. */
async function loadRoot(session: KubeSession, now: number, legacyOnly = false): Promise<ClusterDiscovery> {
  const accept = legacyOnly ? LEGACY_ACCEPT : DISCOVERY_ACCEPT;
  const [core, groups] = await Promise.all([session.request("/api", accept), session.request("/apis", accept)]);
  const coreOk = requireAnswer(session.cluster, "/api", core);
  const groupsOk = requireAnswer(session.cluster, "/apis", groups);
  const entry: ClusterDiscovery = { mode: "legacy", loadedAt: now, kinds: new Map(), groupVersions: new Map() };
  // Like client-go: the aggregated document is used only when both answered in that format.
  if (coreOk && groupsOk && isAggregated(coreOk.headers) && isAggregated(groupsOk.headers)) {
    try {
      for (const body of [coreOk.body, groupsOk.body]) addAggregated(entry.kinds, JSON.parse(body));
      entry.mode = "aggregated";
    } catch {
      entry.kinds.clear();
    }
  }
  return entry;
}

/** The 2xx response, `undefined` for answers that mean "use legacy discovery"; throws for a dead cluster. */
function requireAnswer(cluster: string, path: string, result: RequestResult) {
  if (result.kind === "deadline") throw new KubeRequestError(result.message, { deadline: true });
  if (result.kind === "failed") {
    throw new ClusterUnreachableError(cluster, unreachable(cluster, `GET ${path}: ${result.message}`), result);
  }
  const { status } = result.response;
  if (status === 401) {
    throw new ClusterAccessDeniedError(
      cluster,
      `kubernetes cluster "${cluster}" rejected the credentials (401 Unauthorized, also with fresh ones)`,
      { action: "the Kubernetes API (401 Unauthorized)" },
    );
  }
  if (status >= 500 || status === 429) {
    throw new ClusterUnreachableError(
      cluster,
      unreachable(cluster, `GET ${path}: HTTP ${status} after ${result.attempts} attempts`),
    );
  }
  return status >= 200 && status < 300 ? result.response : undefined;
}

/** Helm's wording (`kubernetes cluster unreachable: ...`), naming the cluster. */
function unreachable(cluster: string, detail: string): string {
  return `kubernetes cluster unreachable: "${cluster}": ${detail}`;
}

function isAggregated(headers: Record<string, string>): boolean {
  const type = headers["content-type"] ?? "";
  const [media, ...rawParams] = type.split(";").map((part) => part.trim().toLowerCase());
  if (media !== "application/json") return false;
  const params = new Map(rawParams.map((p) => p.split("=").map((s) => s.trim()) as [string, string]));
  return (
    params.get("g") === "apidiscovery.k8s.io" &&
    params.get("as") === "apigroupdiscoverylist" &&
    (params.get("v") === "v2" || params.get("v") === "v2beta1")
  );
}

interface AggregatedList {
  items?: {
    metadata?: { name?: string };
    versions?: {
      version: string;
      resources?: { resource: string; responseKind?: { kind?: string }; scope?: string }[];
    }[];
  }[];
}

function addAggregated(kinds: Map<string, ResourceMapping>, list: AggregatedList): void {
  for (const item of list.items ?? []) {
    const group = item.metadata?.name ?? "";
    for (const version of item.versions ?? []) {
      const apiVersion = group ? `${group}/${version.version}` : version.version;
      for (const resource of version.resources ?? []) {
        const kind = resource.responseKind?.kind;
        if (!kind || resource.resource.includes("/")) continue;
        const key = keyOf({ apiVersion, kind });
        if (kinds.has(key)) continue;
        kinds.set(key, {
          group,
          version: version.version,
          resource: resource.resource,
          kind,
          namespaced: resource.scope === "Namespaced",
        });
      }
    }
  }
}

/** Legacy discovery of just the group-versions `wanted` needs, all in parallel. */
async function loadGroupVersions(
  session: KubeSession,
  entry: ClusterDiscovery,
  wanted: readonly GroupVersionKind[],
  reload: boolean,
): Promise<void> {
  const groupVersions = [...new Set(wanted.map((gvk) => gvk.apiVersion))].filter(
    (gv) => reload || !entry.groupVersions.has(gv),
  );
  await Promise.all(
    groupVersions.map(async (gv) => {
      const path = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
      const result = await session.request(path, LEGACY_ACCEPT);
      const response = requireAnswer(session.cluster, path, result);
      if (!response) {
        entry.groupVersions.set(gv, false);
        return;
      }
      let list: { resources?: { name: string; kind: string; namespaced: boolean }[] };
      try {
        list = JSON.parse(response.body);
      } catch (error) {
        throw new ClusterUnreachableError(
          session.cluster,
          unreachable(session.cluster, `GET ${path}: not a JSON discovery document`),
          { cause: error },
        );
      }
      const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
      for (const resource of list.resources ?? []) {
        if (resource.name.includes("/")) continue;
        entry.kinds.set(keyOf({ apiVersion: gv, kind: resource.kind }), {
          group,
          version,
          resource: resource.name,
          kind: resource.kind,
          namespaced: resource.namespaced,
        });
      }
      entry.groupVersions.set(gv, true);
    }),
  );
}

function uniqueKinds(kinds: readonly GroupVersionKind[]): GroupVersionKind[] {
  const seen = new Map<string, GroupVersionKind>();
  for (const gvk of kinds) seen.set(keyOf(gvk), { apiVersion: gvk.apiVersion, kind: gvk.kind });
  return [...seen.values()];
}
