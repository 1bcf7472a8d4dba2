import { createHash } from "node:crypto";
import type { ResourceRegistry } from "./registry.ts";
import type { ResourceType } from "./types.ts";

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ["get", "patch", "update"],
  log: ["get"],
  token: ["create"],
  scale: ["get", "patch", "update"],
};
const SUBRESOURCE_KIND: Record<string, (type: ResourceType) => { group: string; version: string; kind: string }> = {
  token: () => ({ group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" }),
  scale: () => ({ group: "autoscaling", version: "v1", kind: "Scale" }),
};

function storageVersionHash(type: ResourceType): string {
  return (
    createHash("sha256").update(`${type.group}/${type.versions[0]}/${type.kind}`).digest("base64").slice(0, 11) + "="
  );
}

/** `GET /api`: the legacy APIVersions document. */
export function apiVersions(serverAddress: string) {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupVersions(registry: ResourceRegistry, group: string): string[] {
  const versions: string[] = [];
  for (const type of registry.all()) {
    if (type.group !== group) continue;
    for (const v of type.versions) if (!versions.includes(v)) versions.push(v);
  }
  return versions;
}

export function apiGroup(registry: ResourceRegistry, group: string) {
  const versions = groupVersions(registry, group);
  if (versions.length === 0) return undefined;
  const list = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { kind: "APIGroup", apiVersion: "v1", name: group, versions: list, preferredVersion: list[0] };
}

/** `GET /apis`: the legacy APIGroupList. */
export function apiGroupList(registry: ResourceRegistry) {
  const groups = registry
    .groups()
    .filter((g) => g !== "")
    .map((group) => {
      const { kind: _kind, apiVersion: _apiVersion, ...rest } = apiGroup(registry, group) ?? {};
      return rest;
    });
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** `GET /api/v1`, `GET /apis/<g>/<v>`: the per-group-version APIResourceList. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string) {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const resources = types.flatMap((type) => [
    {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: type.verbs,
      ...(type.shortNames?.length ? { shortNames: type.shortNames } : {}),
      ...(type.categories?.length ? { categories: type.categories } : {}),
      storageVersionHash: storageVersionHash(type),
    },
    ...(type.subresources ?? []).map((sub) => {
      const kind = SUBRESOURCE_KIND[sub]?.(type);
      return {
        name: `${type.plural}/${sub}`,
        singularName: "",
        namespaced: type.namespaced,
        ...(kind ? { group: kind.group, version: kind.version } : {}),
        kind: kind?.kind ?? type.kind,
        verbs: SUBRESOURCE_VERBS[sub] ?? ["get"],
      };
    }),
  ]);
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

/**
 * Aggregated discovery (apidiscovery.k8s.io v2/v2beta1): `/api` holds the core group
 * (empty name) alone, `/apis` every other group, so kubectl/helm need no per-GV requests.
 */
export function aggregatedDiscovery(registry: ResourceRegistry, legacyCore: boolean, version: "v2" | "v2beta1") {
  const groups = registry.groups().filter((g) => (legacyCore ? g === "" : g !== ""));
  const items = groups.map((group) => ({
    metadata: { name: group, ...(legacyCore ? {} : {}) },
    versions: groupVersions(registry, group).map((v) => ({
      version: v,
      resources: registry.inGroupVersion(group, v).map((type) => ({
        resource: type.plural,
        responseKind: { group, version: v, kind: type.kind },
        scope: type.namespaced ? "Namespaced" : "Cluster",
        singularResource: type.singular,
        verbs: type.verbs,
        ...(type.shortNames?.length ? { shortNames: type.shortNames } : {}),
        ...(type.categories?.length ? { categories: type.categories } : {}),
        ...((type.subresources ?? []).length
          ? {
              subresources: (type.subresources ?? []).map((sub) => ({
                subresource: sub,
                responseKind: SUBRESOURCE_KIND[sub]?.(type) ?? { group, version: v, kind: type.kind },
                verbs: SUBRESOURCE_VERBS[sub] ?? ["get"],
              })),
            }
          : {}),
      })),
      freshness: "Current",
    })),
  }));
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

export const aggregatedContentType = (version: string) =>
  `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;

export function etagOf(body: string): string {
  return `"${createHash("sha512").update(body).digest("hex")}"`;
}
