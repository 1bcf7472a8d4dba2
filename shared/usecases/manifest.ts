/** `helm get manifest`: the manifest of one revision (the latest when none is given), exactly as stored. */
import type { ReleaseKey } from "../release/model.ts";
import { revisionOrLatest, validateReleaseKey } from "../release/validation.ts";
import type { ReleaseStore } from "../store/release-store.ts";

export interface StoredManifest {
  revision: number;
  manifest: string;
}

export async function getManifest(
  deps: { store: ReleaseStore },
  key: ReleaseKey,
  revision?: number,
): Promise<StoredManifest> {
  const k = validateReleaseKey(key);
  // Helm's rule: a revision of 0 or less is the latest.
  const wanted = revisionOrLatest(revision);
  const release = wanted === undefined ? await deps.store.getLatest(k) : await deps.store.getRevision(k, wanted);
  return { revision: release.version, manifest: release.manifest };
}
