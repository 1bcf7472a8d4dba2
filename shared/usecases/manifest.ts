/**
 * `helm get manifest`: the manifest of one revision (the latest when none is given), as stored except that the
 * values of Secret documents are replaced (redactManifest). Redacting here, not in each adapter, is what keeps
 * a new adapter from leaking them; no caller ever gets the raw text.
 */
import { type ClusterScope, releaseInScope } from "../clusters/scope.ts";
import { redactManifest } from "../manifest/redact.ts";
import type { ReleaseKey } from "../release/model.ts";
import { revisionOrLatest } from "../release/validation.ts";
import type { ReleaseStore } from "../store/release-store.ts";

export interface StoredManifest {
  revision: number;
  /** Secret values redacted; every other document byte for byte. */
  manifest: string;
}

export async function getManifest(
  deps: { store: ReleaseStore; clusters: ClusterScope },
  key: ReleaseKey,
  revision?: number,
): Promise<StoredManifest> {
  const k = releaseInScope(deps.clusters, key, "content");
  // Helm's rule: a revision of 0 or less is the latest.
  const wanted = revisionOrLatest(revision);
  const release = wanted === undefined ? await deps.store.getLatest(k) : await deps.store.getRevision(k, wanted);
  return { revision: release.version, manifest: redactManifest(release.manifest) };
}
