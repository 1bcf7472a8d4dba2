/**
 * What both stores agree a revision *is*: the immutable content (hashed, so a
 * re-put is recognised as identical and a different one as a conflict), the few
 * fields Helm itself rewrites in place on an existing revision (status,
 * description, deleted time, hook last runs), and the manifest bodies that live
 * apart from the metadata.
 */
import { createHash } from "node:crypto";
import { ValidationError } from "../errors.ts";
import { MAX_NESTING_DEPTH, nestedDeeperThan } from "../input/nesting.ts";
import { ReleaseTooLargeError } from "../release/errors.ts";
import {
  type Hook,
  type HookLastRun,
  type HookMetadata,
  orderedLastRun,
  type Release,
  type ReleaseInfo,
  type ReleaseMetadata,
  type ReleaseStatus,
  type ReleaseSummary,
} from "../release/model.ts";
import type { RevisionSource } from "../release/storage-identity.ts";
import {
  validateClusterName,
  validateNamespace,
  validateNewReleaseName,
  validateRevision,
  validateStatus,
} from "../release/validation.ts";

/** Fields Helm updates on a stored revision (superseded on upgrade, uninstalled, `helm test` runs). */
export interface MutableFields {
  status: ReleaseStatus;
  description?: string;
  deleted?: string;
  /** One entry per hook, in hook order. */
  hookRuns?: (HookLastRun | null)[];
  /**
   * Provenance, not Helm's: the storage object the revision was filed from (docs/security.md). Kept beside
   * Helm's mutable fields (outside the content hash); absent on revisions stored before it was kept.
   */
  source?: RevisionSource;
}

/** The manifest and the hook manifests, stored compressed apart from the metadata. */
export interface ManifestBody {
  manifest: string;
  hooks: string[];
}

export interface RevisionParts {
  /** Metadata without the mutable fields: never changes once stored. */
  fixed: ReleaseMetadata;
  mutable: MutableFields;
  body: ManifestBody;
  /** sha256 over the canonical JSON of `fixed` + `body`. */
  contentHash: string;
}

/** Checks what a store needs before writing; the messages name the bad field. */
export function validateReleaseForStore(cluster: string, release: Release): void {
  validateClusterName(cluster);
  if (!release || typeof release !== "object") throw new ValidationError("release must be an object");
  validateNewReleaseName(release.name);
  validateNamespace(release.namespace);
  validateRevision(release.version);
  // A revision without `info` is kept as Helm stored it: status then says "release info is missing".
  if (release.info !== undefined) validateStatus(release.info?.status);
  if (typeof release.manifest !== "string") throw new ValidationError("release manifest must be a string");
  for (const [i, hook] of (release.hooks ?? []).entries()) {
    if (typeof hook?.manifest !== "string") throw new ValidationError(`hooks[${i}].manifest must be a string`);
  }
  for (const [field, value] of Object.entries(release)) {
    if (nestedDeeperThan(value, MAX_NESTING_DEPTH - 1)) {
      throw new ValidationError(
        `release ${field} is nested deeper than ${MAX_NESTING_DEPTH} levels; such values cannot be stored`,
        "ValueTooDeep",
      );
    }
  }
}

export function splitRelease(release: Release): RevisionParts {
  const info: ReleaseInfo = release.info ?? { status: "unknown" };
  const hooks = release.hooks ?? [];
  const mutable: MutableFields = { status: info.status };
  if (info.description !== undefined) mutable.description = info.description;
  if (info.deleted !== undefined) mutable.deleted = info.deleted;
  if (hooks.some((h) => h.last_run)) mutable.hookRuns = hooks.map((h) => h.last_run ?? null);

  const { manifest, hooks: _hooks, info: _info, ...rest } = release;
  const fixed: ReleaseMetadata = { ...rest };
  const fixedInfo: Partial<ReleaseInfo> = { ...info };
  delete fixedInfo.status;
  delete fixedInfo.description;
  delete fixedInfo.deleted;
  if (release.info) fixed.info = fixedInfo as ReleaseInfo;
  if (release.hooks) {
    fixed.hooks = hooks.map(({ manifest: _m, last_run: _r, ...hook }) => hook);
  }
  const body: ManifestBody = { manifest, hooks: hooks.map((h) => h.manifest) };
  const contentHash = sha256Hex(canonicalJson({ fixed, body }));
  return { fixed, mutable, body, contentHash };
}

/** A revision's metadata is kept in two items (REV#, LATEST) of at most 400 KB each, manifests aside. */
export const MAX_METADATA_BYTES = 350 * 1024;

/** Both stores refuse the same oversized revisions (huge values, notes or descriptions) with a clear error. */
export function checkMetadataSize(parts: RevisionParts): void {
  const bytes = Buffer.byteLength(JSON.stringify(parts.fixed)) + Buffer.byteLength(JSON.stringify(parts.mutable));
  if (bytes > MAX_METADATA_BYTES) {
    const { name, namespace, version } = parts.fixed;
    throw new ReleaseTooLargeError(
      `release metadata (values, notes, hooks, description) of ${namespace}/${name} revision ${version} is ` +
        `${bytes} bytes; at most ${MAX_METADATA_BYTES} bytes can be stored`,
    );
  }
}

/**
 * The provenance of a release a store read returned, beside it rather than in it (a Release is Helm's document:
 * every output prints it, none may show this): the stores remember it for the object they return, and a
 * status's freshness check asks. A copy of the release has none.
 */
const storedSources = new WeakMap<Release, RevisionSource>();

export function withStoredSource(release: Release, source: RevisionSource | undefined): Release {
  if (source) storedSources.set(release, source);
  return release;
}

export function storedSourceOf(release: Release): RevisionSource | undefined {
  return storedSources.get(release);
}

/** Helm's mutable fields alike (provenance aside). */
export function sameMutable(a: MutableFields, b: MutableFields): boolean {
  const { source: _a, ...helmA } = a;
  const { source: _b, ...helmB } = b;
  return canonicalJson(helmA) === canonicalJson(helmB);
}

/**
 * A re-put of a stored revision with the same content: `updated` when Helm's mutable fields changed; a change
 * of provenance alone (the same revision read from its object for the first time since provenance was kept, or
 * from a recreated object) is written but stays `unchanged`: Helm's revision did not change. A put without a
 * source keeps the stored one. `write` is what to store, absent when nothing changes.
 */
export function reconcileMutable(
  stored: MutableFields,
  incoming: MutableFields,
): { result: "unchanged" | "updated"; write?: MutableFields } {
  const merged: MutableFields = { ...incoming };
  delete merged.source;
  const source = incoming.source ?? stored.source;
  if (source) merged.source = source;
  if (!sameMutable(stored, merged)) return { result: "updated", write: merged };
  const sameSource = canonicalJson(stored.source ?? null) === canonicalJson(merged.source ?? null);
  return sameSource ? { result: "unchanged" } : { result: "unchanged", write: merged };
}

/** Rebuilds metadata in Helm's JSON field order. */
export function assembleMetadata(fixed: ReleaseMetadata, mutable: MutableFields): ReleaseMetadata {
  const src = (fixed.info ?? {}) as Partial<ReleaseInfo>;
  const ordered: Partial<ReleaseInfo> = {
    first_deployed: src.first_deployed,
    last_deployed: src.last_deployed,
    deleted: mutable.deleted,
    description: mutable.description,
    status: mutable.status,
    notes: src.notes,
  };
  const info = Object.fromEntries(Object.entries(ordered).filter(([, v]) => v !== undefined)) as unknown as ReleaseInfo;
  const result: Record<string, unknown> = { name: fixed.name };
  if (fixed.info) result.info = info;
  if (fixed.chart) result.chart = fixed.chart;
  if (fixed.config) result.config = fixed.config;
  if (fixed.hooks) {
    result.hooks = fixed.hooks.map((hook, i) => {
      const run = mutable.hookRuns?.[i];
      return orderHook({ ...hook, last_run: run ? orderedLastRun(run) : undefined });
    });
  }
  result.version = fixed.version;
  result.namespace = fixed.namespace;
  if (fixed.labels) result.labels = fixed.labels;
  if (fixed.apply_method) result.apply_method = fixed.apply_method;
  return result as unknown as ReleaseMetadata;
}

/** Metadata plus bodies, in Helm's field order (manifest after config, hooks after manifest). */
export function assembleRelease(metadata: ReleaseMetadata, body: ManifestBody): Release {
  const { hooks, version, namespace, labels, apply_method, ...head } = metadata;
  const release: Record<string, unknown> = { ...head, manifest: body.manifest };
  if (hooks) release.hooks = hooks.map((hook, i): Hook => insertManifest(hook, body.hooks[i] ?? ""));
  release.version = version;
  release.namespace = namespace;
  if (labels) release.labels = labels;
  if (apply_method) release.apply_method = apply_method;
  return release as unknown as Release;
}

function insertManifest(hook: HookMetadata, manifest: string): Hook {
  return orderHook({ ...hook, manifest }) as Hook;
}

/** Helm's hook field order (pkg/release/v1/hook.go), absent fields left out. */
function orderHook<T extends HookMetadata>(hook: T): T {
  const fields = [
    "name",
    "kind",
    "path",
    "manifest",
    "events",
    "last_run",
    "weight",
    "delete_policies",
    "output_log_policies",
  ];
  const source = hook as unknown as Record<string, unknown>;
  const keys = [...fields, ...Object.keys(source).filter((k) => !fields.includes(k))];
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]])) as unknown as T;
}

export function summaryOf(cluster: string, metadata: ReleaseMetadata): ReleaseSummary {
  const summary: ReleaseSummary = {
    cluster,
    namespace: metadata.namespace,
    name: metadata.name,
    revision: metadata.version,
    status: metadata.info?.status ?? "unknown",
  };
  if (metadata.info?.last_deployed) summary.updated = metadata.info.last_deployed;
  if (metadata.chart?.metadata) summary.chart = metadata.chart.metadata;
  if (metadata.info?.description !== undefined) summary.description = metadata.info.description;
  return summary;
}

/**
 * JSON with object keys sorted, so equal content hashes equally whatever encoder wrote it.
 * JSON.stringify recurses: a value nested thousands of levels deep would overflow the
 * stack, so the depth is bounded first (stores validate it earlier, by field name).
 */
export function canonicalJson(value: unknown): string {
  if (nestedDeeperThan(value)) {
    throw new ValidationError(`value is nested deeper than ${MAX_NESTING_DEPTH} levels`, "ValueTooDeep");
  }
  return JSON.stringify(value, (_key, v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, v[k]]),
      );
    }
    return v;
  });
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
