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

/**
 * `/openapi/v2`: an empty but well-formed swagger document. kubectl's builder validates `kind: List` documents
 * (and helm's installs of them) against it, client-side; a kind it does not describe is not checked, which is
 * all the validator needs. client-go asks for gnostic's protobuf (`openapi_v2.Document`: swagger = 1, info = 2
 * {title = 1, version = 2}, paths = 8, definitions = 9), others for JSON.
 */
export function openApiV2(gitVersion: string, accept: string | undefined): { body: unknown; contentType: string } {
  if (accept?.includes("protobuf")) {
    const info = Buffer.concat([lengthDelimited(1, "Kubernetes"), lengthDelimited(2, gitVersion)]);
    const body = Buffer.concat([
      lengthDelimited(1, "2.0"),
      lengthDelimited(2, info),
      lengthDelimited(8, Buffer.alloc(0)),
      lengthDelimited(9, Buffer.alloc(0)),
    ]);
    return { body, contentType: "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" };
  }
  return {
    body: { swagger: "2.0", info: { title: "Kubernetes", version: gitVersion }, paths: {}, definitions: {} },
    contentType: "application/json",
  };
}

/** A protobuf length-delimited field (wire type 2); lengths here stay under 2^14. */
function lengthDelimited(field: number, value: string | Buffer): Buffer {
  const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  const length = bytes.length < 0x80 ? [bytes.length] : [(bytes.length & 0x7f) | 0x80, bytes.length >> 7];
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...length]), bytes]);
}
