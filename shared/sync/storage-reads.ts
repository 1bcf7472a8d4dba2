/**
 * The two reads of Helm's storage in a cluster, through a KubeSession (its
 * limits, retries, 429 handling and deadline):
 * - a metadata-only page of a LIST (`owner=helm`, PartialObjectMetadataList:
 *   names, labels, uid, resourceVersion; no payload), with `limit`/`continue`;
 * - the GET of one object, bounded in size before it is parsed.
 * Every answer is classified here so the sync never reads an HTTP status.
 */
import type { KubeSession } from "../kube/session.ts";
import { HELM_OBJECT_PREFIX } from "../release/helm-codec.ts";
import { parseStorageObjectName } from "../release/storage-identity.ts";

export const PARTIAL_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/** A Secret holds at most 1 MiB of data (kube-apiserver), ≈ 1.4 MB as JSON: anything far beyond is not Helm's. */
export const MAX_STORAGE_OBJECT_BYTES = 4 * 1024 * 1024;

export type StorageDriver = "secrets" | "configmaps";
export const KIND_OF: Record<StorageDriver, "Secret" | "ConfigMap"> = { secrets: "Secret", configmaps: "ConfigMap" };

/** One storage object as a metadata LIST shows it. */
export interface StorageEntry {
  /** `namespace/name`: the LIST's (etcd key) order. */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  labels: Record<string, string>;
}

export type PageAnswer =
  | { kind: "page"; entries: StorageEntry[]; continueToken?: string; bytes: number }
  /** 410 Gone, or `refused`: another 4xx to a continue token (one the server cannot read). Either way: restart. */
  | { kind: "expired"; bytes: number; refused?: string }
  | { kind: "forbidden"; message: string; bytes: number }
  | { kind: "deadline"; message: string }
  | { kind: "failed"; message: string; bytes: number };

export type ObjectAnswer =
  | { kind: "object"; object: unknown; bytes: number }
  | { kind: "gone"; bytes: number }
  | { kind: "refused"; message: string; bytes: number }
  | { kind: "deadline"; message: string };

export function listPath(
  driver: StorageDriver,
  namespace: string | undefined,
  selector: string,
  options: { limit?: number; continueToken?: string } = {},
): string {
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const query = new URLSearchParams({ labelSelector: selector });
  if (options.limit) query.set("limit", String(options.limit));
  if (options.continueToken) query.set("continue", options.continueToken);
  return `/api/v1${scope}/${driver}?${query}`;
}

export async function listPage(session: KubeSession, path: string): Promise<PageAnswer> {
  const result = await session.request(path, PARTIAL_LIST_ACCEPT);
  if (result.kind === "deadline") return { kind: "deadline", message: result.message };
  if (result.kind === "failed") return { kind: "failed", message: result.message, bytes: 0 };
  const { status, body } = result.response;
  const bytes = Buffer.byteLength(body);
  if (status === 410) return { kind: "expired", bytes };
  if (status === 403) return { kind: "forbidden", message: statusMessage(body) ?? "forbidden", bytes };
  // kube-apiserver's 400 "continue key is not valid", a proxy's 404...: sent again, the token is refused for ever.
  const withToken = new URLSearchParams(path.slice(path.indexOf("?") + 1)).has("continue");
  if (withToken && status >= 400 && status < 500 && status !== 429) {
    return { kind: "expired", bytes, refused: `HTTP ${status}${detail(body)}` };
  }
  if (status !== 200) return { kind: "failed", message: `HTTP ${status}${detail(body)}`, bytes };
  let parsed: { kind?: unknown; items?: unknown; metadata?: { continue?: unknown } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: "failed", message: "the LIST answer is not JSON", bytes };
  }
  if (!Array.isArray(parsed.items)) return { kind: "failed", message: "the LIST answer has no items", bytes };
  const entries: StorageEntry[] = [];
  for (const item of parsed.items as { metadata?: Record<string, unknown> }[]) {
    const metadata = item?.metadata ?? {};
    const name = typeof metadata.name === "string" ? metadata.name : "";
    const namespace = typeof metadata.namespace === "string" ? metadata.namespace : "";
    // Only Helm's own objects (a stray owner=helm object of another name is not a release).
    if (!name.startsWith(HELM_OBJECT_PREFIX) || !namespace) continue;
    const labels = isStringRecord(metadata.labels) ? metadata.labels : {};
    entries.push({
      key: `${namespace}/${name}`,
      namespace,
      name,
      uid: typeof metadata.uid === "string" ? metadata.uid : "",
      resourceVersion: typeof metadata.resourceVersion === "string" ? metadata.resourceVersion : "",
      labels,
    });
  }
  const token = parsed.metadata?.continue;
  return { kind: "page", entries, continueToken: typeof token === "string" && token ? token : undefined, bytes };
}

export async function getStorageObject(
  session: KubeSession,
  driver: StorageDriver,
  entry: { namespace: string; name: string },
): Promise<ObjectAnswer> {
  const path = `/api/v1/namespaces/${encodeURIComponent(entry.namespace)}/${driver}/${encodeURIComponent(entry.name)}`;
  const result = await session.request(path, "application/json");
  if (result.kind === "deadline") return { kind: "deadline", message: result.message };
  if (result.kind === "failed") return { kind: "refused", message: result.message, bytes: 0 };
  const { status, body } = result.response;
  const bytes = Buffer.byteLength(body);
  if (status === 404) return { kind: "gone", bytes };
  if (status !== 200) return { kind: "refused", message: `HTTP ${status}${detail(body)}`, bytes };
  if (bytes > MAX_STORAGE_OBJECT_BYTES) {
    return {
      kind: "refused",
      message: `the object is ${bytes} bytes, over the ${MAX_STORAGE_OBJECT_BYTES}-byte limit`,
      bytes,
    };
  }
  try {
    return { kind: "object", object: JSON.parse(body), bytes };
  } catch {
    return { kind: "refused", message: "the object is not JSON", bytes };
  }
}

/**
 * The release a listed storage object is, by Helm's identity rule (release/storage-identity.ts): its name,
 * with its `name` and `version` labels saying the same (as Helm labels every object it writes), and its
 * `status` label. Undefined for an object whose labels disagree with its name, or that lacks them.
 */
export function storageIdentity(
  entry: StorageEntry,
): { release: string; revision: number; status: string } | undefined {
  const fromName = parseStorageObjectName(entry.name);
  if (!fromName) return undefined;
  if (entry.labels.name !== fromName.name || entry.labels.version !== String(fromName.revision)) return undefined;
  return { release: fromName.name, revision: fromName.revision, status: entry.labels.status ?? "unknown" };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function statusMessage(body: string): string | undefined {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    return typeof message === "string" && message ? message.split("\n")[0].slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

function detail(body: string): string {
  const message = statusMessage(body);
  return message ? `: ${message}` : "";
}
