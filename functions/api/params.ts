import type { ReleaseStatus } from "../../shared/release/model.ts";
import {
  revisionOrLatest,
  validateClusterName,
  validateNamespace,
  validateReleaseContentName,
  validateReleaseName,
  validateStatus,
} from "../../shared/release/validation.ts";
import { InvalidParameterError } from "../_shared/http/errors.ts";

/**
 * Path and query parameter validation. Identity parts, revisions and statuses use
 * the release model's validators (one rule for the API, the CLI and the store);
 * their errors say what is wrong in Helm's words. The rest throws an
 * InvalidParameterError naming the parameter, so a 400 always says what to fix.
 */

type RawParams = Record<string, string | undefined> | undefined | null;

/** Shows a bad value without echoing a huge string back. */
function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

export const clusterParam = (params: RawParams): string => validateClusterName(params?.cluster);
export const namespaceParam = (params: RawParams): string => validateNamespace(params?.namespace);
export const releaseNameParam = (params: RawParams): string => validateReleaseName(params?.name);
export const contentReleaseNameParam = (params: RawParams): string => validateReleaseContentName(params?.name);
/** A revision in a path or `?revision=`: Helm's rule, 0 or less means the latest (undefined). */
export const revisionParam = (params: RawParams): number | undefined => revisionOrLatest(params?.revision);

export function optionalStatus(query: RawParams): ReleaseStatus | undefined {
  return query?.status === undefined ? undefined : validateStatus(query.status);
}

/** Opaque: the store decodes it and refuses one it did not issue (a 400). */
export function optionalCursor(query: RawParams): string | undefined {
  return query?.cursor;
}

/** A page size or count: a positive whole number up to `max`. */
export function optionalLimit(query: RawParams, key: string, max: number): number | undefined {
  const value = query?.[key];
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new InvalidParameterError(key, `${shown(value)} is not a whole number from 1 to ${max}`);
  }
  return Number(value);
}

/** Unknown query parameters are refused: a misspelt `?revison=2` must not silently return the latest revision. */
export function onlyKnownQuery(query: RawParams, allowed: readonly string[]): void {
  for (const key of Object.keys(query ?? {})) {
    if (!allowed.includes(key)) {
      const hint = allowed.length > 0 ? `allowed here: ${allowed.join(", ")}` : "this route takes none";
      throw new InvalidParameterError(key, `is not a known query parameter (${hint})`);
    }
  }
}

/** `?<key>=true|false`, `fallback` when absent. */
export function optionalFlag(query: RawParams, key: string, fallback: boolean): boolean {
  const value = query?.[key];
  if (value === undefined) return fallback;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new InvalidParameterError(key, `${shown(value)} is not true or false`);
}

/** `?drift=true|false` (default true): whether the status compares live objects with the manifest. */
export function optionalDrift(query: RawParams): boolean {
  return optionalFlag(query, "drift", true);
}
