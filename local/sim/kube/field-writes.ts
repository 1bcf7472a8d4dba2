import { checkIdentity, parseBody } from "./bodies.ts";
import type { ApiReply, ResourcePath, ResourceRequest } from "./handlers.ts";
import { type FieldWrite, managerFromUserAgent } from "./managed-fields.ts";
import { strategicMerge } from "./merge.ts";
import { ApiError, badRequest, notFound } from "./negotiation.ts";
import { jsonPatch, mergePatch } from "./patch.ts";
import type { ClusterState } from "./state.ts";
import type { KubeObject, ResourceType } from "./types.ts";
import { kubeYamlValue, parseKubeYamlDocuments } from "./yaml.ts";

/** Request parts of a write that decide its field manager: `?fieldManager=`, else the User-Agent. */
export function updateWrite(
  request: { query: URLSearchParams; userAgent?: string },
  apiVersion: string,
  subresource?: string,
): FieldWrite {
  const named = request.query.get("fieldManager");
  return {
    manager: named || managerFromUserAgent(request.userAgent),
    operation: "Update",
    apiVersion,
    subresource: subresource === "status" || subresource === "scale" ? subresource : undefined,
  };
}

export const patchOptionsInvalid = (message: string) =>
  new ApiError(422, "Invalid", `PatchOptions.meta.k8s.io "" is invalid: ${message}`, {
    group: "meta.k8s.io",
    kind: "PatchOptions",
    causes: [{ reason: message.includes("Forbidden") ? "FieldValueForbidden" : "FieldValueRequired", message }],
  });

/** An apply body is YAML (JSON being YAML too), one object. */
export function parseApplyBody(body: Buffer): KubeObject {
  let parsed: unknown;
  try {
    // As kube-apiserver reads it: sigs.k8s.io/yaml (YAML 1.1 scalars), one document.
    const [doc] = parseKubeYamlDocuments(body.toString("utf8"));
    if (doc?.errors.length) throw doc.errors[0];
    parsed = doc ? kubeYamlValue(doc) : null;
  } catch (error) {
    throw badRequest(`error decoding YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw badRequest("error decoding YAML: the apply configuration must be an object");
  return parsed as KubeObject;
}

/** The autoscaling/v1 Scale a workload's /scale subresource serves. */
export function scaleOf(object: KubeObject): KubeObject {
  // biome-ignore lint/suspicious/noExplicitAny: untyped JSON
  const o = object as any;
  const labels: Record<string, string> = o.spec?.selector?.matchLabels ?? o.spec?.selector ?? {};
  const selector = Object.entries(labels)
    .filter(([, value]) => typeof value === "string")
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata ?? {};
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: o.spec?.replicas ?? 1 },
    status: { replicas: o.status?.replicas ?? 0, ...(selector ? { selector } : {}) },
  };
}

/**
 * PUT or PATCH on /scale: the Scale is changed, then its `spec.replicas` written to the parent as an Update
 * owned through the `scale` subresource (kubernetes PR #98377), so the writer takes `spec.replicas`.
 */
export function writeScale(
  state: ClusterState,
  type: ResourceType,
  path: ResourcePath,
  request: { query: URLSearchParams; userAgent?: string },
  apiVersion: string,
  change: (scale: KubeObject) => KubeObject,
): ApiReply {
  const existing = state.store.get(type, path.namespace, path.name as string);
  if (!existing) throw notFound(type.plural, path.name as string, type.group);
  const next = change(scaleOf(existing));
  // biome-ignore lint/suspicious/noExplicitAny: untyped JSON
  const replicas = (next as any)?.spec?.replicas;
  if (!Number.isInteger(replicas) || replicas < 0) {
    const message = `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`;
    throw new ApiError(422, "Invalid", `Scale.autoscaling "${path.name}" is invalid: spec.replicas: ${message}`, {
      name: path.name,
      group: "autoscaling",
      kind: "Scale",
      causes: [{ reason: "FieldValueInvalid", message, field: "spec.replicas" }],
    });
  }
  const parent: KubeObject = {
    ...existing,
    spec: { ...(existing.spec as object), replicas },
    metadata: { ...existing.metadata, resourceVersion: next.metadata?.resourceVersion },
  };
  const updated = state.replace(type, parent, {
    keepStatus: true,
    write: updateWrite(request, apiVersion, "scale"),
  });
  return { status: 200, body: scaleOf(updated) };
}

/** PATCH: server-side apply for `application/apply-patch+yaml`, else a JSON/merge/strategic patch as an Update. */
export function patchResource(
  state: ClusterState,
  type: ResourceType,
  path: ResourcePath,
  request: ResourceRequest,
  apiVersion: string,
  render: (object: KubeObject) => KubeObject,
): ApiReply {
  const contentType = (request.contentType ?? "").split(";")[0].trim();
  const force = ["true", "1"].includes(request.query.get("force") ?? "");
  if (contentType === "application/apply-patch+yaml") {
    const manager = request.query.get("fieldManager") ?? "";
    if (!manager) throw patchOptionsInvalid("fieldManager: Required value: is required for apply patch");
    const config = parseApplyBody(request.body);
    checkIdentity(type, apiVersion, config, path);
    if (config.metadata?.managedFields !== undefined) throw badRequest("metadata.managedFields must be nil");
    const { object, created } = state.apply(type, path.namespace, path.name as string, config, {
      manager,
      operation: "Apply",
      apiVersion,
      force,
    });
    return { status: created ? 201 : 200, body: render(object) };
  }
  if (force) throw patchOptionsInvalid("force: Forbidden: may not be specified for non-apply patch");
  const patch = parseBody(request.body, "application/json", true);
  const patchWith = (target: unknown) =>
    contentType === "application/json-patch+json"
      ? jsonPatch(target, patch)
      : contentType === "application/strategic-merge-patch+json"
        ? strategicMerge(target, patch)
        : mergePatch(target, patch);
  if (path.subresource === "scale") return writeScale(state, type, path, request, apiVersion, patchWith);
  const existing = state.store.get(type, path.namespace, path.name as string);
  if (!existing) throw notFound(type.plural, path.name as string, type.group);
  const patched = patchWith(existing);
  delete patched.metadata?.resourceVersion;
  const next = path.subresource === "status" ? { ...existing, status: patched.status } : patched;
  const updated = state.replace(
    type,
    { ...next, metadata: { ...next.metadata, name: path.name, namespace: path.namespace } },
    { write: updateWrite(request, apiVersion, path.subresource) },
  );
  return { status: 200, body: render(updated) };
}
