/**
 * Helm's identity rule for its storage objects (docs/security.md, "Who writes what"): a Secret or ConfigMap in
 * namespace N named `sh.helm.release.v1.<X>.v<R>` (labels owner=helm, name=X, version=R) IS release N/X
 * revision R. Helm itself only ever reads a release through that name in that namespace; the payload inside is
 * whatever the object's writer put there. Anyone who may write a Secret (or just a ConfigMap) in one namespace
 * can write a payload that names another namespace's release, so the object's own namespace, name and labels
 * decide, and a payload that disagrees is refused. The one check every path that decodes a storage object goes
 * through (shared/ingest/storage-object.ts: the import, the release sync, the status's freshness check).
 */
import { HELM_OBJECT_PREFIX, type KubeObject } from "./helm-codec.ts";
import type { Release } from "./model.ts";

/** Where a stored revision came from: the storage object it was decoded from, and which path filed it. */
export interface RevisionSource {
  kind: "Secret" | "ConfigMap";
  /** The object's namespace; absent for an imported object that had none (the payload's namespace was taken). */
  namespace?: string;
  /** The object's uid, when it had one (objects read from a cluster always do). */
  uid?: string;
  /** The object's resourceVersion when it was read: a status's freshness check tells a rewrite by it. */
  resourceVersion?: string;
  via: "sync" | "import";
}

/** Release name and revision from an object name `sh.helm.release.v1.<name>.v<revision>`; undefined for any other. */
export function parseStorageObjectName(objectName: string): { name: string; revision: number } | undefined {
  if (!objectName.startsWith(HELM_OBJECT_PREFIX)) return undefined;
  const match = /^(.+)\.v([1-9][0-9]{0,8})$/.exec(objectName.slice(HELM_OBJECT_PREFIX.length));
  if (!match) return undefined;
  return { name: match[1], revision: Number(match[2]) };
}

export function storageObjectName(name: string, revision: number): string {
  return `${HELM_OBJECT_PREFIX}${name}.v${revision}`;
}

/**
 * Why a decoded release may not be filed under its storage object, or undefined when it may. The message names
 * the object's own identity and which fields disagree, never the payload's values (a payload is the writer's
 * text: it is not echoed).
 */
export function identityConflict(object: KubeObject, release: Release): string | undefined {
  const metadata = object.metadata ?? {};
  const objectName = typeof metadata.name === "string" ? metadata.name : "";
  const fromName = parseStorageObjectName(objectName);
  if (!fromName) return `its name is not Helm's ${HELM_OBJECT_PREFIX}<release>.v<revision>; not filed as a release`;
  const labels = metadata.labels && typeof metadata.labels === "object" ? metadata.labels : {};
  const disagree: string[] = [];
  if (labels.name !== undefined && labels.name !== fromName.name) disagree.push("its name label");
  if (labels.version !== undefined && labels.version !== String(fromName.revision)) disagree.push("its version label");
  if (labels.owner !== undefined && labels.owner !== "helm") disagree.push("its owner label");
  if (disagree.length > 0) {
    return `${disagree.join(" and ")} disagree${disagree.length === 1 ? "s" : ""} with its name; refused (Helm's identity rule)`;
  }
  const namespace = typeof metadata.namespace === "string" && metadata.namespace ? metadata.namespace : undefined;
  const fields: string[] = [];
  if (namespace !== undefined && release.namespace !== namespace) fields.push("namespace");
  if (release.name !== fromName.name) fields.push("name");
  if (release.version !== fromName.revision) fields.push("revision");
  if (fields.length === 0) return undefined;
  const self = `${namespace ? `${namespace}/` : ""}${fromName.name} revision ${fromName.revision}`;
  return (
    `the release inside names another ${fields.join(", ")} than the object itself (${self}); refused: ` +
    "a storage object is the release its namespace, name and labels say (Helm's identity rule)"
  );
}

/** The identity a storage object claims by its own metadata (for naming a refused one): `namespace/name`, revision. */
export function claimedIdentity(object: KubeObject): { release: string; revision: number } | undefined {
  const metadata = object.metadata ?? {};
  const fromName = parseStorageObjectName(typeof metadata.name === "string" ? metadata.name : "");
  if (!fromName) return undefined;
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : "";
  return { release: namespace ? `${namespace}/${fromName.name}` : fromName.name, revision: fromName.revision };
}

export function sourceOf(object: KubeObject, via: RevisionSource["via"]): RevisionSource {
  const metadata = (object.metadata ?? {}) as { namespace?: unknown; uid?: unknown; resourceVersion?: unknown };
  const source: RevisionSource = { kind: object.kind === "ConfigMap" ? "ConfigMap" : "Secret", via };
  if (typeof metadata.namespace === "string" && metadata.namespace) source.namespace = metadata.namespace;
  if (typeof metadata.uid === "string" && metadata.uid) source.uid = metadata.uid;
  if (typeof metadata.resourceVersion === "string" && metadata.resourceVersion) {
    source.resourceVersion = metadata.resourceVersion;
  }
  return source;
}
