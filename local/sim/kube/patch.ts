import { badRequest } from "./negotiation.ts";

// biome-ignore lint/suspicious/noExplicitAny: patches work on untyped JSON
type Json = any;

/** RFC 7386 JSON merge patch (also used for strategic-merge and apply patches: lists are replaced whole). */
export function mergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return structuredClone(patch);
  const result: Json = target !== null && typeof target === "object" && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key.startsWith("$setElementOrder") || key.startsWith("$retainKeys")) continue;
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw badRequest(`the JSON patch path "${path}" is not a JSON pointer`);
  return path
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** RFC 6902 JSON patch: add, remove, replace, test, copy, move. */
export function jsonPatch(target: Json, operations: Json): Json {
  if (!Array.isArray(operations)) throw badRequest("a JSON patch must be an array of operations");
  let doc = structuredClone(target);
  const get = (path: string[]) => path.reduce((acc, key) => (acc == null ? undefined : acc[key]), doc);
  const parentOf = (path: string[]) => {
    const parent = get(path.slice(0, -1));
    if (parent === undefined || parent === null)
      throw badRequest(`the JSON patch path /${path.join("/")} has no parent`);
    return parent;
  };
  const put = (path: string[], value: Json, insert: boolean) => {
    if (path.length === 0) {
      doc = value;
      return;
    }
    const parent = parentOf(path);
    const key = path[path.length - 1];
    if (Array.isArray(parent)) {
      const index = key === "-" ? parent.length : Number(key);
      if (insert) parent.splice(index, 0, value);
      else parent[index] = value;
    } else parent[key] = value;
  };
  const drop = (path: string[]) => {
    const parent = parentOf(path);
    const key = path[path.length - 1];
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  };
  for (const op of operations) {
    const path = pointer(String(op.path ?? ""));
    switch (op.op) {
      case "add":
        put(path, structuredClone(op.value), true);
        break;
      case "replace":
        put(path, structuredClone(op.value), false);
        break;
      case "remove":
        drop(path);
        break;
      case "test":
        if (JSON.stringify(get(path)) !== JSON.stringify(op.value))
          throw badRequest(`JSON patch test failed at ${op.path}`);
        break;
      case "copy":
        put(path, structuredClone(get(pointer(String(op.from)))), true);
        break;
      case "move": {
        const from = pointer(String(op.from));
        const value = get(from);
        drop(from);
        put(path, value, true);
        break;
      }
      default:
        throw badRequest(`unsupported JSON patch operation "${op.op}"`);
    }
  }
  return doc;
}
