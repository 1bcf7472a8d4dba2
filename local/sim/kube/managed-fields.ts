import { decodeFieldsV1, encodeFieldsV1, fieldValues, pathText } from "./field-sets.ts";
import { ApiError } from "./negotiation.ts";
import type { KubeObject } from "./types.ts";

/**
 * kube-apiserver's field manager (k8s.io/apiserver internal/fieldmanager.go and structured-merge-diff's
 * Updater), over the simulator's schemaless objects: who owns which field, recorded in metadata.managedFields.
 *
 * - Update (POST, PUT, merge/strategic/JSON patch): the writer takes every field whose value it changed or
 *   added and those fields are taken away from every other owner; fields it sent unchanged are not claimed.
 *   Its time is stamped only when it took something. Create makes the creator own the defaulted fields too.
 * - Apply: the applier's set is replaced by the configuration's; fields it stopped sending are pruned unless
 *   someone else owns them; a value change on a field another owner holds is a conflict (409) unless forced,
 *   then the field moves to the applier.
 * - An owner is (manager, operation, subresource, apiVersion for Update); empty owners are dropped; more than
 *   ten Update owners fold the oldest into `ancient-changes`; an update of an object without managedFields is
 *   not tracked, and the first apply to one gives its fields to `before-first-apply`.
 */

export interface FieldWrite {
  manager: string;
  /** The group/version the request was written in (default: the object's). */
  apiVersion?: string;
  operation: "Apply" | "Update";
  subresource?: string;
  force?: boolean;
  /** Apply: the configuration sent (its field set becomes the applier's). */
  config?: KubeObject;
}

interface Owner {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: Set<string>;
}

const MAX_UPDATE_OWNERS = 10;
/** metadata fields never recorded (internal/stripmeta.go). */
const STRIPPED_METADATA = new Set([
  "f:name",
  "f:namespace",
  "f:uid",
  "f:resourceVersion",
  "f:generation",
  "f:creationTimestamp",
  "f:managedFields",
  "f:selfLink",
  "f:deletionTimestamp",
  "f:deletionGracePeriodSeconds",
]);

const ownerId = (o: Pick<Owner, "manager" | "operation" | "apiVersion" | "subresource">) =>
  JSON.stringify([o.manager, o.operation, o.operation === "Update" ? o.apiVersion : "", o.subresource ?? ""]);

/** Which paths an endpoint does not record: status on the main resource of kinds with /status, the rest on /status. */
export function strippedPaths(subresource: string | undefined, hasStatusSubresource: boolean) {
  return (path: string[]): boolean => {
    const [top, second] = path;
    if (top === "f:apiVersion" || top === "f:kind") return true;
    if (top === "f:metadata" && path.length >= 2 && STRIPPED_METADATA.has(second)) return true;
    if (subresource === "status") return top !== "f:status";
    if (subresource === "scale") return top !== "f:spec" || (path.length >= 2 && second !== "f:replicas");
    return hasStatusSubresource && top === "f:status";
  };
}

export function decodeOwners(entries: unknown): Owner[] {
  if (!Array.isArray(entries)) return [];
  const owners: Owner[] = [];
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    if (typeof e.manager !== "string" || (e.operation !== "Apply" && e.operation !== "Update")) continue;
    owners.push({
      manager: e.manager,
      operation: e.operation,
      apiVersion: String(e.apiVersion ?? ""),
      subresource: typeof e.subresource === "string" && e.subresource ? e.subresource : undefined,
      time: typeof e.time === "string" ? e.time : undefined,
      set: decodeFieldsV1(e.fieldsV1),
    });
  }
  return owners;
}

/** Wire order: Apply before Update, then time, manager, apiVersion, subresource (sortEncodedManagedFields). */
export function encodeOwners(owners: Owner[]): Record<string, unknown>[] {
  const seconds = (o: Owner) => (o.time ? Date.parse(o.time) / 1000 : 0);
  return owners
    .filter((o) => o.set.size > 0)
    .sort(
      (a, b) =>
        (a.operation === b.operation ? 0 : a.operation === "Apply" ? -1 : 1) ||
        seconds(a) - seconds(b) ||
        a.manager.localeCompare(b.manager) ||
        a.apiVersion.localeCompare(b.apiVersion) ||
        (a.subresource ?? "").localeCompare(b.subresource ?? ""),
    )
    .map((o) => ({
      manager: o.manager,
      operation: o.operation,
      apiVersion: o.apiVersion,
      ...(o.time ? { time: o.time } : {}),
      fieldsType: "FieldsV1",
      fieldsV1: encodeFieldsV1(o.set),
      ...(o.subresource ? { subresource: o.subresource } : {}),
    }));
}

function compare(before: KubeObject | undefined, after: KubeObject, strip: (path: string[]) => boolean) {
  const old = fieldValues(withoutManagedFields(before ?? {}), strip);
  const next = fieldValues(withoutManagedFields(after), strip);
  const changed = new Set<string>();
  const removed = new Set<string>();
  for (const [path, value] of next) if (old.get(path) !== value) changed.add(path);
  for (const path of old.keys()) if (!next.has(path)) removed.add(path);
  return { changed, removed };
}

function withoutManagedFields(object: KubeObject): KubeObject {
  if (!object.metadata || !("managedFields" in object.metadata)) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}

export interface TrackRequest {
  write: FieldWrite;
  /** The stored object before the write (undefined on create). */
  live?: KubeObject;
  /** The object about to be stored, after defaulting; its body managedFields (if any) are read here. */
  next: KubeObject;
  apiVersion: string;
  now: string;
  strip: (path: string[]) => boolean;
}

/** The managedFields the stored object gets, or undefined when the write is not tracked. Throws 409 on conflict. */
export function trackManagedFields(request: TrackRequest): Record<string, unknown>[] | undefined {
  const { write, live, next } = request;
  const liveOwners = decodeOwners(live?.metadata?.managedFields);
  let owners = liveOwners;
  if (write.operation === "Update" && !write.subresource) {
    const sent = next.metadata?.managedFields;
    if (Array.isArray(sent) && (sent.length === 0 || (sent.length === 1 && Object.keys(sent[0] ?? {}).length === 0)))
      return undefined; // the documented reset: `[{}]`
    const fromBody = decodeOwners(sent);
    if (fromBody.length > 0) owners = fromBody;
  }
  const id = ownerId({ ...write, apiVersion: request.apiVersion });
  if (write.operation === "Update") {
    if (live && owners.length === 0) return undefined; // skipNonApplied: no tracking until the next apply
    const { changed, removed } = compare(live, next, request.strip);
    const others = owners.filter((o) => ownerId(o) !== id);
    for (const owner of others) for (const path of [...changed, ...removed]) owner.set.delete(path);
    const previous = owners.find((o) => ownerId(o) === id);
    const set = new Set([...(previous?.set ?? [])].filter((path) => !removed.has(path)));
    for (const path of changed) set.add(path);
    const writer: Owner = {
      manager: write.manager,
      operation: "Update",
      apiVersion: request.apiVersion,
      subresource: write.subresource,
      // The scale handler copies the parent's time for this owner (scalehandler.go ToParent): none the first time.
      time: write.subresource === "scale" ? previous?.time : changed.size > 0 ? request.now : previous?.time,
      set,
    };
    return encodeOwners(capUpdateOwners([...others, writer]));
  }

  // Apply
  if (live && owners.length === 0) {
    owners = [
      {
        manager: "before-first-apply",
        operation: "Update",
        apiVersion: request.apiVersion,
        set: new Set(fieldValues(withoutManagedFields(live), request.strip).keys()),
      },
    ];
  }
  const configSet = new Set(fieldValues(write.config ?? {}, request.strip, { mapMembers: false }).keys());
  const { changed, removed } = compare(live, next, request.strip);
  const others = owners.filter((o) => ownerId(o) !== id);
  const conflicts = others.flatMap((owner) =>
    [...owner.set].filter((path) => changed.has(path)).map((path) => ({ owner, path })),
  );
  if (conflicts.length > 0 && !write.force) throw conflictError(conflicts);
  for (const { owner, path } of conflicts) owner.set.delete(path);
  for (const owner of others) for (const path of removed) owner.set.delete(path);
  const previous = owners.find((o) => ownerId(o) === id);
  const applier: Owner = {
    manager: write.manager,
    operation: "Apply",
    apiVersion: request.apiVersion,
    subresource: write.subresource,
    time: changed.size > 0 || removed.size > 0 ? request.now : previous?.time,
    set: configSet,
  };
  return encodeOwners(capUpdateOwners([...others, applier]));
}

/** Fields the applier stopped sending that no one else owns: SSA deletes them from the object. */
export function prunablePaths(
  live: KubeObject | undefined,
  write: FieldWrite,
  apiVersion: string,
  strip: (path: string[]) => boolean,
): string[] {
  const owners = decodeOwners(live?.metadata?.managedFields);
  const id = ownerId({ ...write, apiVersion });
  const previous = owners.find((o) => ownerId(o) === id);
  if (!previous) return [];
  const configSet = new Set(fieldValues(write.config ?? {}, strip, { mapMembers: false }).keys());
  const ownedByOthers = new Set(owners.filter((o) => ownerId(o) !== id).flatMap((o) => [...o.set]));
  return [...previous.set].filter((path) => !configSet.has(path) && !ownedByOthers.has(path));
}

function capUpdateOwners(owners: Owner[]): Owner[] {
  const updates = owners.filter((o) => o.operation === "Update" && o.set.size > 0);
  if (updates.length <= MAX_UPDATE_OWNERS) return owners;
  const oldest = [...updates]
    .sort((a, b) => (a.time ?? "").localeCompare(b.time ?? ""))
    .slice(0, updates.length - MAX_UPDATE_OWNERS + 1);
  const kept = owners.filter((o) => !oldest.includes(o));
  const ancient = new Map<string, Owner>();
  for (const owner of oldest) {
    const entry = ancient.get(owner.apiVersion) ?? {
      manager: "ancient-changes",
      operation: "Update" as const,
      apiVersion: owner.apiVersion,
      set: new Set<string>(),
    };
    for (const path of owner.set) entry.set.add(path);
    ancient.set(owner.apiVersion, entry);
  }
  return [...kept, ...ancient.values()];
}

function describeOwner(owner: Owner): string {
  let text = JSON.stringify(owner.manager);
  if (owner.subresource) text += ` with subresource ${JSON.stringify(owner.subresource)}`;
  if (owner.operation === "Update") text += ` using ${owner.apiVersion}`;
  return text;
}

/** internal/conflict.go NewConflictError: 409, reason Conflict, one FieldManagerConflict cause per field. */
function conflictError(conflicts: Array<{ owner: Owner; path: string }>): ApiError {
  const causes = conflicts.map(({ owner, path }) => ({
    type: "FieldManagerConflict",
    message: `conflict with ${describeOwner(owner)}`,
    field: pathText(path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeOwner(conflicts[0].owner)}: ${pathText(conflicts[0].path)}`;
  } else {
    const byOwner = new Map<string, { owner: Owner; paths: string[] }>();
    for (const { owner, path } of conflicts) {
      const key = ownerId(owner);
      const group = byOwner.get(key) ?? { owner, paths: [] };
      group.paths.push(path);
      byOwner.set(key, group);
    }
    const lines = [...byOwner.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([, group]) => [
        `conflicts with ${describeOwner(group.owner)}:`,
        ...group.paths.map((path) => `- ${pathText(path)}`),
      ]);
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return new ApiError(409, "Conflict", message, { causes });
}

/** Manager name when the request names none: the User-Agent up to its first "/" (create.go prefixFromUserAgent). */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = [...(userAgent ?? "").split("/")[0]].filter((c) => c >= " " && c !== "\u007f").join("");
  return prefix.slice(0, 128) || "unknown";
}
