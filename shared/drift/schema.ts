/**
 * What the drift comparison needs to know of the built-in types' schemas (the `+listType`, `+listMapKey` and
 * `resource.Quantity` / `intstr.IntOrString` markers of k8s.io/api): which lists are merged by key, which map
 * keys name resources, which fields keep an int-or-string. Any other list is compared whole, in order.
 *
 * local/sim/kube/field-sets.ts keeps its own copy of the keyed-list table on purpose: the simulator stands alone
 * (it imports nothing of the product), and as the kube-apiserver the drift tests run against it must not share
 * the product's reading of the markers, or a wrong key here would be confirmed by the simulator instead of caught.
 */
import { isRecord } from "../input/values.ts";

export type ListSchema = { type: "map"; keys: string[] } | { type: "set" } | { type: "atomic" };

const NAME_KEYED = new Set([
  "containers",
  "initContainers",
  "ephemeralContainers",
  "env",
  "volumes",
  "imagePullSecrets",
  "resourceClaims",
]);

/** Defaults of list key fields, filled in by the API server before keys are built (so the manifest may omit them). */
export const KEY_DEFAULTS: Record<string, unknown> = { protocol: "TCP" };

export function listSchema(name: string, items: readonly unknown[]): ListSchema {
  if (NAME_KEYED.has(name)) return { type: "map", keys: ["name"] };
  if (name === "finalizers") return { type: "set" };
  if (name === "volumeMounts") return { type: "map", keys: ["mountPath"] };
  if (name === "volumeDevices") return { type: "map", keys: ["devicePath"] };
  if (name === "ownerReferences") return { type: "map", keys: ["uid"] };
  if (name === "ports" && items.length > 0 && items.every(isRecord)) {
    if (items.every((item) => item.containerPort !== undefined))
      return { type: "map", keys: ["containerPort", "protocol"] };
    if (items.every((item) => item.port !== undefined)) return { type: "map", keys: ["port", "protocol"] };
  }
  return { type: "atomic" };
}

/** The FieldsV1 element of a map-list item: `k:` + its key fields sorted by name, defaults filled in. */
export function keyElement(item: Record<string, unknown>, keys: readonly string[]): string {
  const fields: Record<string, unknown> = {};
  for (const key of [...keys].sort()) {
    const value = item[key] ?? KEY_DEFAULTS[key];
    if (value !== undefined) fields[key] = value;
  }
  return `k:${JSON.stringify(fields)}`;
}

/** `[name=app]`, `[containerPort=8080]`: the item's key as the manifest wrote it, for people. */
export function keyText(item: Record<string, unknown>, keys: readonly string[]): string {
  const parts = keys.filter((key) => item[key] !== undefined).map((key) => `${key}=${String(item[key])}`);
  return `[${parts.join(",")}]`;
}

/** Parents whose children are resource.Quantity values (`limits.cpu`, `hard.pods`, `capacity.storage`). */
const QUANTITY_MAPS = new Set(["limits", "requests", "hard", "capacity", "allocatable", "overhead"]);
const QUANTITY_FIELDS = new Set(["sizeLimit", "maxLimitRequestRatio"]);
/** intstr.IntOrString fields: the server keeps the type it was given, so `"8080"` and `8080` differ. */
const INT_OR_STRING_FIELDS = new Set(["targetPort", "port", "maxSurge", "maxUnavailable", "minAvailable"]);

export function isQuantityField(parent: string | undefined, name: string): boolean {
  return QUANTITY_FIELDS.has(name) || (parent !== undefined && QUANTITY_MAPS.has(parent));
}

export function isIntOrStringField(name: string): boolean {
  return INT_OR_STRING_FIELDS.has(name);
}
