import type { ResourceRegistry } from "./registry.ts";

/**
 * A minimal OpenAPI v3 index and per-group-version documents. kubectl create/apply ask
 * /openapi/v3 whether the server supports `fieldValidation` (its PATCH operations carry
 * the parameter); with that answered yes, kubectl leaves validation to the server and
 * never needs the full schemas.
 */
export function openApiIndex(registry: ResourceRegistry): unknown {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const type of registry.all()) {
    for (const version of type.versions) {
      const gv = type.group ? `apis/${type.group}/${version}` : `api/${version}`;
      paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${registry.all().length}` };
    }
  }
  return { paths };
}

export function openApiGroupVersion(registry: ResourceRegistry, group: string, version: string, gitVersion: string) {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const fieldValidation = { name: "fieldValidation", in: "query", schema: { type: "string", uniqueItems: true } };
  for (const type of types) {
    const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const scope = type.namespaced ? "/namespaces/{namespace}" : "";
    const gvk = { group, version, kind: type.kind };
    const operation = (action: string) => ({
      operationId: `${action}${type.kind}`,
      parameters: [fieldValidation],
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
    });
    paths[`${base}${scope}/${type.plural}`] = { post: operation("post") };
    paths[`${base}${scope}/${type.plural}/{name}`] = { put: operation("put"), patch: operation("patch") };
  }
  return { openapi: "3.0.0", info: { title: "Kubernetes", version: gitVersion }, paths, components: { schemas: {} } };
}
