/**
 * Helm's own storage encoding (helm-status.md §6): a Secret or ConfigMap named
 * `sh.helm.release.v1.NAME.vN` whose `data.release` is base64(gzip -9(release JSON));
 * Secret data is base64 once more on the wire. Decoding keeps the chart's metadata
 * only (templates and files are what make Helm's Secrets overflow).
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { MAX_NESTING_DEPTH, nestedDeeperThan } from "../input/nesting.ts";
import { jsonErrorMessage } from "../input/parse-errors.ts";
import { isRecord } from "../input/values.ts";
import { HelmPayloadError } from "./errors.ts";
import { type ChartMetadata, type Hook, orderedLastRun, type Release, type ReleaseInfo } from "./model.ts";
import { validateNamespace, validateNewReleaseName, validateRevision, validateStatus } from "./validation.ts";

export const HELM_STORAGE_TYPE = "helm.sh/release.v1";
export const HELM_OBJECT_PREFIX = "sh.helm.release.v1.";
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];
/** Refuse to inflate beyond this: a gzip bomb must be a clear error, not an out-of-memory crash. */
export const MAX_RELEASE_JSON_BYTES = 64 * 1024 * 1024;
/** Labels Helm manages itself and filters out of `release.labels` on read. */
const SYSTEM_LABELS = new Set(["name", "owner", "status", "version", "createdAt", "modifiedAt"]);

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  type?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, unknown>;
  stringData?: Record<string, unknown>;
}

/** "Secret/ns/name" (or "Kind/name"), how import results name an object. */
export function describeObject(object: unknown): string {
  const o = (object ?? {}) as KubeObject;
  const kind = typeof o.kind === "string" && o.kind ? o.kind : "Object";
  const name = typeof o.metadata?.name === "string" ? o.metadata.name : "<unnamed>";
  const ns = typeof o.metadata?.namespace === "string" && o.metadata.namespace ? `${o.metadata.namespace}/` : "";
  return `${kind}/${ns}${name}`;
}

/** Whether Helm wrote this object: a Secret/ConfigMap of Helm's type, or labelled owner=helm with Helm's name prefix. */
export function isHelmStorageObject(object: unknown): boolean {
  const o = object as KubeObject;
  if (!o || typeof o !== "object" || (o.kind !== "Secret" && o.kind !== "ConfigMap")) return false;
  if (o.kind === "Secret" && o.type === HELM_STORAGE_TYPE) return true;
  return o.metadata?.labels?.owner === "helm" && (o.metadata?.name ?? "").startsWith(HELM_OBJECT_PREFIX);
}

/** Decodes one Helm Secret/ConfigMap into the release model. Throws HelmPayloadError. */
export function decodeHelmStorageObject(object: KubeObject): Release {
  let payload: string;
  const fromData = object.data?.release;
  if (object.kind === "Secret" && typeof fromData === "string") {
    payload = decodeBase64(fromData, "data.release (Secret data is base64 on the wire)").toString("latin1");
  } else if (typeof fromData === "string") {
    payload = fromData;
  } else if (typeof object.stringData?.release === "string") {
    payload = object.stringData.release;
  } else {
    throw new HelmPayloadError("no data.release field");
  }
  const release = decodeReleasePayload(payload, object.metadata?.namespace);
  const labels = customLabels(object.metadata?.labels);
  return labels ? { ...release, labels } : release;
}

/** Helm's `decodeRelease`: base64, gunzip only when the gzip magic is present, JSON. */
export function decodeReleasePayload(payload: string, defaultNamespace?: string): Release {
  let bytes = decodeBase64(payload, "release payload");
  if (bytes.length > 3 && GZIP_MAGIC.every((b, i) => bytes[i] === b)) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: MAX_RELEASE_JSON_BYTES });
    } catch (error) {
      const tooBig = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      throw new HelmPayloadError(
        tooBig
          ? `release payload inflates beyond ${MAX_RELEASE_JSON_BYTES} bytes`
          : `release payload is not valid gzip: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new HelmPayloadError(`release payload is not valid JSON: ${jsonErrorMessage(error)}`, { cause: error });
  }
  return releaseFromHelmJson(json, defaultNamespace);
}

/**
 * Normalises a Helm release JSON (as stored, or as `helm status -o json` prints it)
 * into the model: chart reduced to its metadata, v3's empty-string zero times dropped.
 */
export function releaseFromHelmJson(json: unknown, defaultNamespace = "default"): Release {
  if (!json || typeof json !== "object" || Array.isArray(json))
    throw new HelmPayloadError("release JSON is not an object");
  const raw = json as Record<string, unknown>;
  // Before anything recursive touches it (hashing, YAML output): a value 10,000 levels deep fails here, by field.
  for (const [field, value] of Object.entries(raw)) {
    if (nestedDeeperThan(value, MAX_NESTING_DEPTH - 1)) {
      throw new HelmPayloadError(`release ${field} is nested deeper than ${MAX_NESTING_DEPTH} levels`);
    }
  }
  if (raw.name === undefined || raw.name === "") throw new HelmPayloadError("release JSON has no name");
  if (raw.version === undefined) throw new HelmPayloadError("release JSON has no version");
  const name = asPayload(() => validateNewReleaseName(raw.name));
  const version = asPayload(() => validateRevision(raw.version));
  const namespace = asPayload(() =>
    validateNamespace(raw.namespace === undefined || raw.namespace === "" ? defaultNamespace : raw.namespace),
  );
  const release: Release = { name, namespace, version, manifest: "" };
  // No info is kept as no info (Helm's storage can hold one): status says "release info is missing".
  const info = infoFrom(raw.info);
  if (info) release.info = info;
  const chart = chartFrom(raw.chart);
  if (chart) release.chart = { metadata: chart };
  if (isRecord(raw.config) && Object.keys(raw.config).length > 0) release.config = raw.config;
  if (raw.manifest !== undefined && typeof raw.manifest !== "string")
    throw new HelmPayloadError("manifest is not a string");
  release.manifest = (raw.manifest as string | undefined) ?? "";
  if (raw.hooks !== undefined && raw.hooks !== null) {
    if (!Array.isArray(raw.hooks)) throw new HelmPayloadError("hooks is not a list");
    release.hooks = raw.hooks.map(hookFrom);
  }
  if (isRecord(raw.labels) && Object.keys(raw.labels).length > 0) {
    release.labels = raw.labels as Record<string, string>;
  }
  if (typeof raw.apply_method === "string" && raw.apply_method) release.apply_method = raw.apply_method;
  return release;
}

function infoFrom(value: unknown): ReleaseInfo | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new HelmPayloadError("info is not an object");
  const info: ReleaseInfo = { status: "unknown" };
  for (const field of ["first_deployed", "last_deployed", "deleted", "description"] as const) {
    const v = value[field];
    if (typeof v === "string" && v !== "") info[field] = v;
  }
  info.status = asPayload(() => validateStatus(value.status ?? "unknown"));
  if (typeof value.notes === "string" && value.notes !== "") info.notes = value.notes;
  return info;
}

function chartFrom(value: unknown): ChartMetadata | undefined {
  if (value === undefined || value === null) return undefined;
  const metadata = (value as { metadata?: unknown }).metadata;
  if (!isRecord(metadata)) return undefined;
  const chart: ChartMetadata = { name: String(metadata.name ?? ""), version: String(metadata.version ?? "") };
  for (const field of ["appVersion", "apiVersion", "description"] as const) {
    if (typeof metadata[field] === "string" && metadata[field] !== "") chart[field] = metadata[field] as string;
  }
  return chart;
}

function hookFrom(value: unknown, index: number): Hook {
  if (!isRecord(value)) throw new HelmPayloadError(`hooks[${index}] is not an object`);
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const hook: Hook = {
    name: text(value.name),
    kind: text(value.kind),
    path: text(value.path),
    manifest: text(value.manifest),
    events: Array.isArray(value.events) ? value.events.map(String) : [],
  };
  if (isRecord(value.last_run)) {
    const run = value.last_run;
    hook.last_run = orderedLastRun({
      started_at: text(run.started_at),
      completed_at: text(run.completed_at),
      phase: text(run.phase),
    });
  }
  if (typeof value.weight === "number") hook.weight = value.weight;
  if (Array.isArray(value.delete_policies)) hook.delete_policies = value.delete_policies.map(String);
  if (Array.isArray(value.output_log_policies)) hook.output_log_policies = value.output_log_policies.map(String);
  return hook;
}

/** Helm's `encodeRelease`: base64(gzip level 9(json.Marshal(release))). */
export function encodeReleasePayload(release: Release): string {
  const { labels: _labels, ...stored } = release; // Helm's Labels field is json:"-"
  return gzipSync(Buffer.from(goJsonMarshal(stored), "utf8"), { level: 9 }).toString("base64");
}

function storageObjectMeta(release: Release, createdAt?: number) {
  const labels: Record<string, string> = {
    ...release.labels,
    name: release.name,
    owner: "helm",
    status: release.info?.status ?? "unknown",
    version: String(release.version),
  };
  if (createdAt !== undefined) labels.createdAt = String(createdAt);
  return { name: `${HELM_OBJECT_PREFIX}${release.name}.v${release.version}`, namespace: release.namespace, labels };
}

/** A Secret exactly as the Kubernetes API returns Helm's: data.release is base64(base64(gzip(json))). */
export function encodeHelmSecret(release: Release, options: { createdAt?: number } = {}) {
  const payload = encodeReleasePayload(release);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: storageObjectMeta(release, options.createdAt),
    type: HELM_STORAGE_TYPE,
    data: { release: Buffer.from(payload, "latin1").toString("base64") },
  };
}

/** A ConfigMap as Helm's configmap driver writes it: data.release is base64(gzip(json)). */
export function encodeHelmConfigMap(release: Release, options: { createdAt?: number } = {}) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: storageObjectMeta(release, options.createdAt),
    data: { release: encodeReleasePayload(release) },
  };
}

/** Go's json.Marshal escapes HTML-significant characters and the JS line separators. */
export function goJsonMarshal(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function customLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!labels || typeof labels !== "object") return undefined;
  const custom = Object.entries(labels).filter(([k, v]) => !SYSTEM_LABELS.has(k) && typeof v === "string");
  return custom.length ? Object.fromEntries(custom) : undefined;
}

/** Strict standard base64 (Go's StdEncoding ignores CR/LF; Node's decoder silently skips garbage). */
function decodeBase64(text: string, what: string): Buffer {
  const compact = text.replace(/[\r\n]/g, "");
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw new HelmPayloadError(`${what} is not valid base64`);
  }
  return Buffer.from(compact, "base64");
}

function asPayload<T>(validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    throw new HelmPayloadError(`release JSON: ${(error as Error).message}`, { cause: error });
  }
}
