import {
  InvalidClusterNameError,
  InvalidNamespaceError,
  InvalidReleaseNameError,
  InvalidReleaseStatusError,
  InvalidRevisionError,
  quoteInput,
} from "./errors.ts";
import { isReleaseStatus, RELEASE_STATUSES, type ReleaseKey, type ReleaseStatus } from "./model.ts";

// Helm v4 pkg/chart/v2/util/validate_name.go: a DNS-1123 subdomain, at most 53 bytes
// (63 for a label minus 10 reserved for the suffixes charts append).
export const RELEASE_NAME_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const RELEASE_NAME = new RegExp(RELEASE_NAME_PATTERN);
export const MAX_RELEASE_NAME_BYTES = 53;

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const MAX_NAMESPACE_LENGTH = 63;

// EKS cluster names: 1-100 characters, alphanumerics, '-' and '_', starting with an alphanumeric.
// '#' can never appear, which keeps the store's composite keys unambiguous.
/** EKS's rule for a cluster name (1-100 of letters, digits, '-', '_', starting with a letter or digit). */
export const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
export const MAX_CLUSTER_NAME_LENGTH = 100;

export const MAX_REVISION = 2_147_483_647;

/**
 * A release name to look up (history, status, get, the API's paths): Helm's action wording,
 * `release name is invalid: NAME`, for any name ValidateReleaseName refuses.
 */
export function validateReleaseName(name: unknown): string {
  try {
    return validateNewReleaseName(name);
  } catch (error) {
    if (name === undefined || name === null || name === "") throw error;
    const shown =
      typeof name === "string" && name.length <= 100 && /^[\x20-\x7e]*$/.test(name) ? name : quoteInput(name);
    throw new InvalidReleaseNameError(`release name is invalid: ${shown}`);
  }
}

/**
 * A release name to read a revision's content by (`helm status`, `helm get manifest`, their API routes):
 * action.releaseContent words any bad name `releaseContent: Release name is invalid: NAME`.
 */
export function validateReleaseContentName(name: unknown): string {
  try {
    return validateNewReleaseName(name);
  } catch {
    throw new InvalidReleaseNameError(`releaseContent: Release name is invalid: ${String(name ?? "").slice(0, 100)}`);
  }
}

/** Helm v4's `ValidateReleaseName` with its exact messages, for a release being stored (import, CI push). */
export function validateNewReleaseName(name: unknown): string {
  if (name === undefined || name === null || name === "") throw new InvalidReleaseNameError("no name provided");
  if (
    typeof name !== "string" ||
    Buffer.byteLength(name, "utf8") > MAX_RELEASE_NAME_BYTES ||
    !RELEASE_NAME.test(name)
  ) {
    throw new InvalidReleaseNameError(
      `invalid release name, must match regex ${RELEASE_NAME_PATTERN} and the length must not be longer than ${MAX_RELEASE_NAME_BYTES}`,
    );
  }
  return name;
}

/** A Kubernetes namespace: a DNS-1123 label, kube-apiserver's wording. */
export function validateNamespace(namespace: unknown): string {
  return requiredName(namespace, {
    what: "namespace",
    pattern: DNS1123_LABEL,
    max: MAX_NAMESPACE_LENGTH,
    Error: InvalidNamespaceError,
    rules:
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', start and end with an " +
      `alphanumeric character, and be at most ${MAX_NAMESPACE_LENGTH} characters`,
  });
}

export function validateClusterName(cluster: unknown): string {
  return requiredName(cluster, {
    what: "cluster name",
    pattern: CLUSTER_NAME,
    max: MAX_CLUSTER_NAME_LENGTH,
    Error: InvalidClusterNameError,
    rules: `use letters, digits, '-' and '_', start with a letter or digit, at most ${MAX_CLUSTER_NAME_LENGTH} characters`,
  });
}

/** A name that must be given and match `pattern` within `max` characters: "no WHAT provided" / "invalid WHAT "x": RULES". */
function requiredName(
  value: unknown,
  rule: { what: string; pattern: RegExp; max: number; Error: new (message: string) => Error; rules: string },
): string {
  if (value === undefined || value === null || value === "") throw new rule.Error(`no ${rule.what} provided`);
  if (typeof value !== "string" || value.length > rule.max || !rule.pattern.test(value)) {
    throw new rule.Error(`invalid ${rule.what} ${quoteInput(value)}: ${rule.rules}`);
  }
  return value;
}

/**
 * A revision to read, Helm's rule once for every adapter: `version <= 0` means the latest
 * (undefined); a positive revision must be a valid one. Text must be an integer, a sign allowed.
 */
export function revisionOrLatest(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "string" && /^[-+]?[0-9]{1,10}$/.test(value) ? Number(value) : value;
  if (typeof number === "number" && Number.isInteger(number) && number <= 0) return undefined;
  if (typeof number !== "number" || !Number.isInteger(number) || number > MAX_REVISION) {
    throw new InvalidRevisionError(
      `invalid revision ${quoteInput(value)}: must be an integer no greater than ${MAX_REVISION} (0 or less: the latest)`,
    );
  }
  return number;
}

/** A revision as a number or as text (flag, path, query): a positive int32, digits only for text. */
export function validateRevision(value: unknown): number {
  let revision: number;
  if (typeof value === "number") revision = value;
  else if (typeof value === "string" && /^[0-9]{1,10}$/.test(value)) revision = Number(value);
  else revision = Number.NaN;
  if (!Number.isInteger(revision) || revision < 1 || revision > MAX_REVISION) {
    throw new InvalidRevisionError(
      `invalid revision ${quoteInput(value)}: must be a positive integer no greater than ${MAX_REVISION}`,
    );
  }
  return revision;
}

export function validateStatus(value: unknown): ReleaseStatus {
  if (!isReleaseStatus(value)) {
    throw new InvalidReleaseStatusError(
      `invalid release status ${quoteInput(value)}: must be one of ${RELEASE_STATUSES.join(", ")}`,
    );
  }
  return value;
}

/**
 * Validates the three parts of a release's identity, cluster first (the order of the key). A read of a revision's
 * content (`helm status`, `helm get manifest`) words a bad release name as Helm does there (`releaseContent: …`),
 * before anything else.
 */
export function validateReleaseKey(key: ReleaseKey, read: "content" | "stored" = "stored"): ReleaseKey {
  if (read === "content") validateReleaseContentName(key?.name);
  return {
    cluster: validateClusterName(key?.cluster),
    namespace: validateNamespace(key?.namespace),
    name: validateReleaseName(key?.name),
  };
}
