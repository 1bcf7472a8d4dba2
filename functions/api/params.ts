import { isReleaseStatus, RELEASE_STATUSES, type ReleaseStatus } from "../../shared/release/model.ts";
import { InvalidParameterError } from "./errors.ts";

/**
 * Path and query parameter validation. Each function takes the raw string the
 * event carries and either returns the typed value or throws an
 * InvalidParameterError whose message names the parameter and the rule, so a 400
 * always tells the caller exactly what to fix.
 */

type RawParams = Record<string, string | undefined> | undefined | null;

const INT32_MAX = 2_147_483_647;
// EKS's CreateCluster rule: letters, digits, hyphens and underscores, starting alphanumeric, up to 100.
const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
// Helm v4 release names: a lower-case DNS-1123 subdomain, at most 53 characters.
const RELEASE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RELEASE_NAME_MAX = 53;
// Namespaces: a DNS-1123 label, at most 63 characters.
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAMESPACE_MAX = 63;
// Cursors are opaque to callers but always URL-safe and short; anything else is a typo or an attack.
const CURSOR = /^[A-Za-z0-9_\-=.~+/]{1,2048}$/;

/** Shows a bad value without echoing a huge or binary string back. */
function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

function required(params: RawParams, key: string): string {
  const value = params?.[key];
  if (value === undefined || value === "") {
    throw new InvalidParameterError(key, "is required");
  }
  return value;
}

export function clusterParam(params: RawParams): string {
  const value = required(params, "cluster");
  if (!CLUSTER_NAME.test(value)) {
    throw new InvalidParameterError(
      "cluster",
      `${shown(value)} is not a valid EKS cluster name (letters, digits, '-' and '_', starting with a letter or digit, at most 100 characters)`,
    );
  }
  return value;
}

export function namespaceParam(params: RawParams): string {
  const value = required(params, "namespace");
  if (value.length > NAMESPACE_MAX || !NAMESPACE.test(value)) {
    throw new InvalidParameterError(
      "namespace",
      `${shown(value)} is not a valid namespace (a DNS-1123 label: lower-case letters, digits and '-', starting and ending alphanumeric, at most ${NAMESPACE_MAX} characters)`,
    );
  }
  return value;
}

export function releaseNameParam(params: RawParams): string {
  const value = required(params, "name");
  if (value.length > RELEASE_NAME_MAX || !RELEASE_NAME.test(value)) {
    throw new InvalidParameterError(
      "name",
      `${shown(value)} is not a valid release name (Helm's rule: a lower-case DNS-1123 subdomain of at most ${RELEASE_NAME_MAX} characters)`,
    );
  }
  return value;
}

/** A positive int32, as Helm's revision numbers are. */
export function positiveInt(key: string, value: string, max = INT32_MAX): number {
  if (!/^[0-9]+$/.test(value) || /^0+$/.test(value)) {
    throw new InvalidParameterError(key, `${shown(value)} is not a positive whole number`);
  }
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed > max) {
    throw new InvalidParameterError(key, `${shown(value)} is too large (at most ${max})`);
  }
  return parsed;
}

export function revisionParam(params: RawParams, key = "revision"): number {
  return positiveInt(key, required(params, key));
}

export function optionalRevision(query: RawParams): number | undefined {
  return query?.revision === undefined ? undefined : positiveInt("revision", query.revision);
}

export function optionalLimit(query: RawParams, key: string, max: number): number | undefined {
  const value = query?.[key];
  return value === undefined ? undefined : positiveInt(key, value, max);
}

export function optionalStatus(query: RawParams): ReleaseStatus | undefined {
  const value = query?.status;
  if (value === undefined) return undefined;
  if (!isReleaseStatus(value)) {
    throw new InvalidParameterError(
      "status",
      `${shown(value)} is not a release status (one of ${RELEASE_STATUSES.join(", ")})`,
    );
  }
  return value;
}

export function optionalCursor(query: RawParams): string | undefined {
  const value = query?.cursor;
  if (value === undefined) return undefined;
  if (!CURSOR.test(value)) {
    throw new InvalidParameterError(
      "cursor",
      "is not a cursor this API returned (pass the `cursor` of the previous page unchanged)",
    );
  }
  return value;
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
