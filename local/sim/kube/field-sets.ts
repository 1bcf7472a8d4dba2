/**
 * structured-merge-diff's field sets, for the simulator's managedFields (kubernetes-sigs/structured-merge-diff
 * `fieldpath`, `typed.ToFieldSet`): an object becomes the set of its leaf paths, each associative-list item and
 * each granular map (labels, data, limits...) being a member of its own ("."). Paths are FieldsV1 elements
 * (`f:name`, `k:{"name":"app"}`, `v:"x"`, `i:0`) joined by PATH_SEPARATOR.
 *
 * There is no OpenAPI schema here, so the list and map types of the built-in kinds come from a small table
 * (the `+listType`/`+listMapKey` markers of k8s.io/api); any other list is atomic (owned whole as a leaf).
 */

// biome-ignore lint/suspicious/noExplicitAny: untyped JSON
type Json = any;

export const PATH_SEPARATOR = "\u0001";

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
/** Defaults of key fields: kube-apiserver fills them before the key is built (SMD #183, kubernetes #98576). */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: "TCP" };
const MAP_FIELDS = new Set([
  "labels",
  "annotations",
  "data",
  "stringData",
  "binaryData",
  "nodeSelector",
  "limits",
  "requests",
  "matchLabels",
  "capacity",
  "hard",
  "parameters",
]);

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The list type of field `name` holding `items` (ports are told apart by their key fields). */
export function listSchema(name: string, items: readonly unknown[]): ListSchema {
  if (NAME_KEYED.has(name)) return { type: "map", keys: ["name"] };
  if (name === "finalizers") return { type: "set" };
  if (name === "volumeMounts") return { type: "map", keys: ["mountPath"] };
  if (name === "volumeDevices") return { type: "map", keys: ["devicePath"] };
  if (name === "ownerReferences") return { type: "map", keys: ["uid"] };
  if (name === "conditions" && items.every((item) => isObject(item) && typeof item.type === "string")) {
    return { type: "map", keys: ["type"] };
  }
  if (name === "ports" && items.length > 0 && items.every(isObject)) {
    if (items.every((item) => (item as Json).containerPort !== undefined))
      return { type: "map", keys: ["containerPort", "protocol"] };
    if (items.every((item) => (item as Json).port !== undefined)) return { type: "map", keys: ["port", "protocol"] };
  }
  return { type: "atomic" };
}

/** A granular map (string keys chosen by users) rather than a struct; `selector` is a map on Services only. */
export function isMapField(name: string, value: Record<string, Json>): boolean {
  if (MAP_FIELDS.has(name)) return true;
  if (name === "selector") return !("matchLabels" in value) && !("matchExpressions" in value);
  return false;
}

/** `k:{...}` for an item of a map list: key fields sorted by name, defaults filled in. */
export function keyElement(item: Record<string, Json>, keys: readonly string[]): string {
  const fields: Record<string, unknown> = {};
  for (const key of [...keys].sort()) {
    const value = item[key] ?? KEY_DEFAULTS[key];
    if (value !== undefined) fields[key] = value;
  }
  return `k:${JSON.stringify(fields)}`;
}

/** Leaf and member paths of a value, each with a comparable representation of what is there. */
export function fieldValues(
  object: Json,
  strip: (path: string[]) => boolean,
  options: { mapMembers?: boolean } = {},
): Map<string, string> {
  // A granular map is a member of a comparison's Added set when it appears (so creators own `f:data: {.: {}}`),
  // never of an applied configuration's set (SMD typed/tofieldset.go inserts leaves and list items only).
  const mapMembers = options.mapMembers ?? true;
  const out = new Map<string, string>();
  const walk = (value: Json, path: string[], name: string) => {
    if (path.length > 0 && strip(path)) return;
    if (isObject(value)) {
      const keys = Object.keys(value);
      if (keys.length === 0) {
        if (path.length > 0) out.set(path.join(PATH_SEPARATOR), "{}");
        return;
      }
      if (mapMembers && path.length > 0 && isMapField(name, value)) out.set(path.join(PATH_SEPARATOR), ".");
      for (const key of keys) walk(value[key], [...path, `f:${key}`], key);
      return;
    }
    if (Array.isArray(value)) {
      const schema = listSchema(name, value);
      if (schema.type === "atomic" || value.length === 0) {
        out.set(path.join(PATH_SEPARATOR), JSON.stringify(value));
        return;
      }
      for (const [index, item] of value.entries()) {
        if (schema.type === "set") out.set([...path, `v:${JSON.stringify(item)}`].join(PATH_SEPARATOR), "");
        else if (!isObject(item)) out.set([...path, `i:${index}`].join(PATH_SEPARATOR), JSON.stringify(item));
        else {
          const itemPath = [...path, keyElement(item, schema.keys)];
          out.set(itemPath.join(PATH_SEPARATOR), ".");
          for (const key of Object.keys(item)) walk(item[key], [...itemPath, `f:${key}`], key);
        }
      }
      return;
    }
    out.set(path.join(PATH_SEPARATOR), JSON.stringify(value));
  };
  walk(object, [], "");
  return out;
}

/** Set -> FieldsV1 trie: `{}` for a leaf, `".": {}` for a member that also has children. */
export function encodeFieldsV1(paths: Iterable<string>): Record<string, Json> {
  const root: Record<string, Json> = {};
  const members = new Set<Record<string, Json>>();
  for (const path of paths) {
    let node = root;
    for (const element of path.split(PATH_SEPARATOR)) {
      node[element] ??= {};
      node = node[element];
    }
    members.add(node);
  }
  const finish = (node: Record<string, Json>) => {
    const keys = Object.keys(node).sort();
    const out: Record<string, Json> = {};
    if (members.has(node) && keys.length > 0) out["."] = {};
    for (const key of keys) out[key] = finish(node[key]);
    return out;
  };
  return finish(root);
}

/** FieldsV1 trie -> set. */
export function decodeFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, path: string[]) => {
    if (!isObject(node)) return;
    const keys = Object.keys(node);
    if (keys.length === 0 && path.length > 0) out.add(path.join(PATH_SEPARATOR));
    for (const key of keys) {
      if (key === ".") out.add(path.join(PATH_SEPARATOR));
      else walk(node[key], [...path, key]);
    }
  };
  walk(fields, []);
  return out;
}

/** SMD's path text (`.spec.template.spec.containers[name="app"].image`), as conflict messages print it. */
export function pathText(path: string): string {
  return path
    .split(PATH_SEPARATOR)
    .map((element) => {
      const body = element.slice(2);
      if (element.startsWith("f:")) return `.${body}`;
      if (element.startsWith("v:")) return `[=${body}]`;
      if (element.startsWith("i:")) return `[${body}]`;
      const fields = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(fields)
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
        .join(",")}]`;
    })
    .join("");
}
