import { parse as parseYaml } from "yaml";
import type { ApiReply, ResourcePath } from "./handlers.ts";
import { type FieldWrite, managerFromUserAgent } from "./managed-fields.ts";
import { ApiError, badRequest, notFound } from "./negotiation.ts";
import type { ClusterState } from "./state.ts";
import type { KubeObject, ResourceType } from "./types.ts";

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
    parsed = parseYaml(body.toString("utf8"));
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
