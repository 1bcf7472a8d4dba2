/** `helm history` from the store: revision metadata, newest first, one page of at most `max`. */
import type { ReleaseKey, ReleaseMetadata } from "../release/model.ts";
import { validateReleaseKey } from "../release/validation.ts";
import type { Page, ReleaseStore } from "../store/release-store.ts";

export interface ReleaseHistoryOptions {
  /** Page size (Helm's --max); the store caps it. */
  max?: number;
  cursor?: string;
}

export async function releaseHistory(
  deps: { store: ReleaseStore },
  key: ReleaseKey,
  options: ReleaseHistoryOptions = {},
): Promise<Page<ReleaseMetadata>> {
  return deps.store.history(validateReleaseKey(key), { limit: options.max, cursor: options.cursor });
}
