/**
 * metadata.managedFields read back: each entry's FieldsV1 trie as a set of paths (elements joined by SEP),
 * so a drifted field's owners are found by its path. Entries that cannot be read are skipped.
 */

export interface FieldOwner {
  manager: string;
  operation: string;
  subresource?: string;
  apiVersion?: string;
  /** RFC 3339; optional on the wire (scale-subresource owners usually have none). */
  time?: string;
  paths: Set<string>;
}

export const SEP = "\u0001";

export function readOwners(managedFields: unknown): FieldOwner[] {
  if (!Array.isArray(managedFields)) return [];
  const owners: FieldOwner[] = [];
  for (const entry of managedFields) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    if (typeof e.manager !== "string" || e.fieldsType !== "FieldsV1") continue;
    const paths = new Set<string>();
    collect(e.fieldsV1, [], paths);
    owners.push({
      manager: e.manager,
      operation: String(e.operation ?? ""),
      subresource: typeof e.subresource === "string" && e.subresource ? e.subresource : undefined,
      apiVersion: typeof e.apiVersion === "string" ? e.apiVersion : undefined,
      time: typeof e.time === "string" ? e.time : undefined,
      paths,
    });
  }
  return owners;
}

function collect(node: unknown, path: string[], out: Set<string>): void {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return;
  const keys = Object.keys(node);
  if (keys.length === 0 && path.length > 0) out.add(path.join(SEP));
  for (const key of keys) {
    if (key === ".") out.add(path.join(SEP));
    else collect((node as Record<string, unknown>)[key], [...path, key], out);
  }
}

/** Owners of exactly this path; failing that, of its nearest owned ancestor (an atomic list or map owned whole). */
export function ownersOf(owners: readonly FieldOwner[], elements: readonly string[]): FieldOwner[] {
  for (let length = elements.length; length > 0; length--) {
    const key = elements.slice(0, length).join(SEP);
    const found = owners.filter((owner) => owner.paths.has(key));
    if (found.length > 0) return found;
  }
  return [];
}
