import { keyElement, listSchema, PATH_SEPARATOR } from "./field-sets.ts";

/**
 * Schema-aware merges over the field-set table (field-sets.ts): a strategic merge patch (what `kubectl set image`,
 * `kubectl patch` and `kubectl edit` send) and the server-side-apply merge `live ⊕ config`. Lists with merge keys
 * (containers, env, ports, volumes...) are merged item by item, other lists are replaced whole.
 */

// biome-ignore lint/suspicious/noExplicitAny: untyped JSON
type Json = any;

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Strategic merge patch (`application/strategic-merge-patch+json`): null deletes, `$patch: delete` drops an item. */
export function strategicMerge(target: Json, patch: Json): Json {
  return merge(target, patch, "", true);
}

/** Server-side apply: the applied configuration merged into the live object. */
export function applyMerge(live: Json, config: Json): Json {
  return merge(live, config, "", false);
}

function merge(target: Json, patch: Json, name: string, strategic: boolean): Json {
  if (Array.isArray(patch)) return mergeList(Array.isArray(target) ? target : [], patch, name, strategic);
  if (!isObject(patch)) return structuredClone(patch);
  if (strategic && patch.$patch === "replace") {
    const { $patch: _, ...rest } = patch;
    return structuredClone(rest);
  }
  const result: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith("$")) continue;
    if (value === null) delete result[key];
    else result[key] = merge(result[key], value, key, strategic);
  }
  return result;
}

function mergeList(target: Json[], patch: Json[], name: string, strategic: boolean): Json[] {
  const schema = listSchema(name, patch.length > 0 ? patch : target);
  if (schema.type === "set") {
    const seen = new Set(target.map((item) => JSON.stringify(item)));
    return [...target, ...patch.filter((item) => !seen.has(JSON.stringify(item)))];
  }
  if (schema.type !== "map" || !patch.every(isObject) || !target.every(isObject)) return structuredClone(patch);
  const result = [...target];
  for (const item of patch) {
    const key = keyElement(item, schema.keys);
    const at = result.findIndex((existing) => keyElement(existing, schema.keys) === key);
    if (strategic && item.$patch === "delete") {
      if (at >= 0) result.splice(at, 1);
      continue;
    }
    if (at >= 0) result[at] = merge(result[at], item, "", strategic);
    else result.push(merge(undefined, item, "", strategic));
  }
  return result;
}

/** Deletes the field at a set path (an SSA prune), leaving everything else. */
export function removePath(object: Json, path: string): void {
  const elements = path.split(PATH_SEPARATOR);
  let node: Json = object;
  for (const [index, element] of elements.entries()) {
    const last = index === elements.length - 1;
    if (element.startsWith("f:")) {
      if (!isObject(node)) return;
      const key = element.slice(2);
      if (last) delete node[key];
      else node = node[key];
    } else if (Array.isArray(node)) {
      const at = node.findIndex((item, i) => listElement(item, i, element));
      if (at < 0) return;
      if (last) node.splice(at, 1);
      else node = node[at];
    } else return;
  }
}

function listElement(item: Json, index: number, element: string): boolean {
  if (element.startsWith("i:")) return Number(element.slice(2)) === index;
  if (element.startsWith("v:")) return JSON.stringify(item) === element.slice(2);
  if (!isObject(item)) return false;
  const keys = Object.keys(JSON.parse(element.slice(2)));
  return keyElement(item, keys) === element;
}
