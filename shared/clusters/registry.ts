/**
 * The cluster registry: which clusters the product may reach. Read once at cold start
 * from CLUSTERS (inline JSON or YAML) or the file named by CLUSTERS_FILE; anything
 * malformed stops the start with a message naming the entry and the field, because a
 * registry half-understood would fail later, per request, far from its cause.
 */
import { parse } from "yaml";
import { inlineOrFile } from "../input/env.ts";
import { OBJECTIVE_RULE, parseObjective } from "../input/objective.ts";
import { firstLine } from "../input/values.ts";
import { CLUSTER_NAME, validateNamespace, validateNewReleaseName } from "../release/validation.ts";
import type { ClusterEntry, RegistryObjectives, SyncPolicy } from "./connector.ts";
import { ClusterRegistryError } from "./errors.ts";

/** us-east-1, eu-central-2, us-gov-west-1, cn-north-1, ap-southeast-4, us-isob-east-1. */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
/** An IAM role (paths allowed) in any partition. */
const ROLE_ARN = /^arn:aws(-cn|-us-gov|-iso|-iso-[a-z])?:iam::\d{12}:role\/([\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;
/** sts:AssumeRole's ExternalId constraint. */
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

const FIELDS = [
  "name",
  "region",
  "roleArn",
  "externalId",
  "eksEndpoint",
  "stsEndpoint",
  "endpoint",
  "certificateAuthority",
] as const;
type Field = (typeof FIELDS)[number];

/** Parses and validates a registry document (a JSON or YAML list); `source` names it in errors. */
export function parseClusterRegistry(text: string, source: string): ClusterEntry[] {
  if (text.trim() === "") throw new ClusterRegistryError(`${source}: the cluster registry is empty (expected a list)`);
  let document: unknown;
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both; duplicate keys are errors.
    document = parse(text, { uniqueKeys: true, prettyErrors: false, maxAliasCount: 0 });
  } catch (error) {
    throw new ClusterRegistryError(`${source}: not valid JSON or YAML: ${firstLine(error)}`, { cause: error });
  }
  if (!Array.isArray(document)) {
    throw new ClusterRegistryError(
      `${source}: expected a list of clusters ({name, region, roleArn?, externalId?, eksEndpoint?, stsEndpoint?, endpoint?, certificateAuthority?}), got ${describe(document)}`,
    );
  }
  const seen = new Map<string, number>();
  return document.map((item, index) => {
    const entry = validateClusterEntry(item, `${source}: entry ${index}`);
    const first = seen.get(entry.name);
    if (first !== undefined) {
      throw new ClusterRegistryError(
        `${source}: entry ${index} ("${entry.name}"): duplicate cluster name, already defined by entry ${first}`,
      );
    }
    seen.set(entry.name, index);
    return entry;
  });
}

/**
 * The registry configured in `env`: CLUSTERS (inline) or CLUSTERS_FILE (a path), not both.
 * Neither set is an empty registry; use `clusterRegistryConfigured(env)` to tell the two apart.
 */
export function loadClusterRegistry(env: NodeJS.ProcessEnv): ClusterEntry[] {
  const given = inlineOrFile(
    env,
    "CLUSTERS",
    "CLUSTERS_FILE",
    (message, options) => new ClusterRegistryError(message, options),
  );
  return given === undefined ? [] : parseClusterRegistry(given.text, given.source);
}

/** Whether CLUSTERS or CLUSTERS_FILE is set (an empty registry and no registry differ for the CLI). */
export function clusterRegistryConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CLUSTERS?.trim() || env.CLUSTERS_FILE?.trim());
}

/** Validates one entry (also used for a cluster given on the command line); `where` prefixes errors. */
export function validateClusterEntry(item: unknown, where: string): ClusterEntry {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    throw new ClusterRegistryError(`${where}: expected an object {name, region, ...}, got ${describe(item)}`);
  }
  const record = item as Record<string, unknown>;
  const named = typeof record.name === "string" && record.name ? `${where} ("${record.name}")` : where;
  for (const key of Object.keys(record)) {
    // `access` is deploy-time only (EKS access entries, infra/eks-access.cjs validates it): the runtime ignores it.
    if (!(FIELDS as readonly string[]).includes(key) && key !== "access" && key !== "sync" && key !== "slo") {
      throw new ClusterRegistryError(`${named}: unknown field "${key}" (allowed: ${FIELDS.join(", ")}, sync, slo)`);
    }
  }
  const text = (field: Field, required: boolean): string | undefined => {
    const value = record[field];
    if (value === undefined || value === null) {
      if (required) throw new ClusterRegistryError(`${named}: field "${field}" is required`);
      return undefined;
    }
    if (typeof value !== "string") {
      throw new ClusterRegistryError(`${named}: field "${field}" must be a string, got ${describe(value)}`);
    }
    return value;
  };
  const check = (field: Field, value: string | undefined, ok: (v: string) => boolean, rule: string) => {
    if (value !== undefined && !ok(value)) {
      throw new ClusterRegistryError(`${named}: field "${field}" ${JSON.stringify(value)} is invalid: ${rule}`);
    }
  };

  const name = text("name", true)!;
  check("name", name, (v) => CLUSTER_NAME.test(v), "an EKS cluster name has 1-100 letters, digits, '-' or '_'");
  const region = text("region", true)!;
  check("region", region, (v) => REGION.test(v), "expected an AWS region such as us-east-1");
  const roleArn = text("roleArn", false);
  check("roleArn", roleArn, (v) => ROLE_ARN.test(v), "expected an IAM role ARN arn:aws:iam::123456789012:role/NAME");
  const externalId = text("externalId", false);
  check("externalId", externalId, (v) => EXTERNAL_ID.test(v), "2-1224 characters of letters, digits and +=,.@:/-");
  if (externalId !== undefined && roleArn === undefined) {
    throw new ClusterRegistryError(`${named}: field "externalId" is only meaningful with "roleArn"`);
  }
  const eksEndpoint = text("eksEndpoint", false);
  check("eksEndpoint", eksEndpoint, isAcceptableEndpoint, endpointRule);
  const stsEndpoint = text("stsEndpoint", false);
  check("stsEndpoint", stsEndpoint, isAcceptableEndpoint, endpointRule);
  const endpoint = text("endpoint", false);
  check("endpoint", endpoint, isAcceptableEndpoint, endpointRule);
  const certificateAuthority = certificateAuthorityOf(record.certificateAuthority, named);
  if ((endpoint === undefined) !== (certificateAuthority === undefined)) {
    throw new ClusterRegistryError(
      `${named}: fields "endpoint" and "certificateAuthority" go together (what aws eks describe-cluster prints), or neither`,
    );
  }

  const entry: ClusterEntry = { name, region };
  if (roleArn !== undefined) entry.roleArn = roleArn;
  if (externalId !== undefined) entry.externalId = externalId;
  if (eksEndpoint !== undefined) entry.eksEndpoint = eksEndpoint;
  if (stsEndpoint !== undefined) entry.stsEndpoint = stsEndpoint;
  if (endpoint !== undefined) entry.endpoint = endpoint.replace(/\/+$/, "");
  if (certificateAuthority !== undefined) entry.certificateAuthority = certificateAuthority;
  const sync = syncPolicyOf(record.sync, named);
  if (sync !== undefined) entry.sync = sync;
  const slo = objectivesOf(record.slo, named);
  if (slo !== undefined) entry.slo = slo;
  return entry;
}

/**
 * `slo`: the availability objective of the cluster's releases that carry no `helm-status/slo` annotation, as
 * `"99.5"` (every release) or `{default: "99.5", releases: {"namespace/name": "99.9"}}` (docs/history.md).
 */
function objectivesOf(value: unknown, named: string): RegistryObjectives | undefined {
  if (value === undefined || value === null) return undefined;
  const rule = 'expected a percentage such as "99.5", or {default: "99.5", releases: {"namespace/name": "99.9"}}';
  const share = (given: unknown, field: string): number => {
    const objective = parseObjective(given);
    if (objective === undefined) {
      throw new ClusterRegistryError(`${named}: field "${field}" ${JSON.stringify(given)} ${OBJECTIVE_RULE}`);
    }
    return objective;
  };
  if (typeof value === "string" || typeof value === "number") return { default: share(value, "slo") };
  const record = nestedObject(value, "slo", ["default", "releases"], rule, named);
  const objectives: RegistryObjectives = {};
  if (record.default !== undefined) objectives.default = share(record.default, "slo.default");
  if (record.releases !== undefined) {
    const releases = record.releases;
    if (releases === null || typeof releases !== "object" || Array.isArray(releases)) {
      throw new ClusterRegistryError(`${named}: field "slo.releases" must map "namespace/name" to a percentage`);
    }
    objectives.releases = {};
    for (const [key, given] of Object.entries(releases)) {
      const [namespace, name, ...rest] = key.split("/");
      if (rest.length > 0 || !accepts(validateNamespace, namespace) || !accepts(validateNewReleaseName, name)) {
        throw new ClusterRegistryError(
          `${named}: field "slo.releases" key ${JSON.stringify(key)} is not "namespace/name"`,
        );
      }
      objectives.releases[key] = share(given, `slo.releases.${key}`);
    }
  }
  return objectives;
}

/**
 * `sync`: whether the release sync may read this cluster's Helm storage (docs/sync.md). `false` turns it
 * off (the cluster's role then needs no list on Secrets); `{namespaces: [a, b]}` limits it to those
 * namespaces (per-namespace Roles); absent or `true` is every namespace.
 */
function syncPolicyOf(value: unknown, named: string): SyncPolicy | undefined {
  if (value === undefined || value === null || value === true) return undefined;
  if (value === false) return { enabled: false };
  const rule = "expected false, true or {namespaces: [NAMESPACE, ...]} (optionally enabled: false)";
  const record = nestedObject(value, "sync", ["namespaces", "enabled"], rule, named);
  if (record.enabled !== undefined && typeof record.enabled !== "boolean") {
    throw new ClusterRegistryError(`${named}: field "sync.enabled" must be true or false`);
  }
  const policy: SyncPolicy = { enabled: record.enabled !== false };
  if (record.namespaces !== undefined) {
    const namespaces = record.namespaces;
    if (
      !Array.isArray(namespaces) ||
      namespaces.length === 0 ||
      !namespaces.every((n) => accepts(validateNamespace, n))
    ) {
      throw new ClusterRegistryError(`${named}: field "sync.namespaces" must be a non-empty list of namespace names`);
    }
    policy.namespaces = [...new Set(namespaces as string[])].sort();
  }
  return policy;
}

/** An object-valued field (`sync`, `slo`) with only the `keys` its `rule` names. */
function nestedObject(
  value: unknown,
  field: string,
  keys: readonly string[],
  rule: string,
  named: string,
): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ClusterRegistryError(`${named}: field "${field}" is invalid: ${rule}`);
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw new ClusterRegistryError(`${named}: field "${field}" has an unknown key "${key}": ${rule}`);
    }
  }
  return value as Record<string, unknown>;
}

/** Whether `validate` (the API's own rule for a name) accepts `value`; the registry words its own error. */
function accepts(validate: (value: unknown) => unknown, value: unknown): boolean {
  try {
    validate(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * `certificateAuthority`: base64 of a PEM bundle, given as a string or as describe-cluster's `{data: "..."}`.
 * Checked to decode to PEM certificates, so a pasted ARN or a truncated value fails at start, not per request.
 */
function certificateAuthorityOf(value: unknown, named: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  const data =
    typeof value === "object" && !Array.isArray(value) && Object.keys(value).join() === "data"
      ? (value as { data: unknown }).data
      : value;
  const rule = 'expected the base64 PEM CA bundle (describe-cluster\'s certificateAuthority.data, or {data: "..."})';
  if (typeof data !== "string" || !/^[A-Za-z0-9+/\s]+=*\s*$/.test(data)) {
    throw new ClusterRegistryError(`${named}: field "certificateAuthority" is invalid: ${rule}`);
  }
  const pem = Buffer.from(data, "base64").toString("utf8");
  if (!/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/.test(pem.trim())) {
    throw new ClusterRegistryError(
      `${named}: field "certificateAuthority" does not decode to a PEM certificate: ${rule}`,
    );
  }
  return data.replace(/\s+/g, "");
}

const endpointRule = "expected an https:// URL without credentials, query or fragment (http:// only for loopback)";

/** Credentials travel to these endpoints signed but in clear over http, so http is for loopback simulators only. */
function isAcceptableEndpoint(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.search || url.hash) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopback(url.hostname);
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}
