/**
 * Who made a write (issue #34, docs/who.md): the IAM identity the EKS audit log names for a Helm revision (the
 * create of its storage object `sh.helm.release.v1.<name>.v<N>`) and for a drift write (a patch/update by a field
 * manager at the managedFields time the DRIFT section shows). Looked up in the background by the sync and audit
 * workers, once per subject, and kept here; the status, history, dashboard and chat only read what is kept.
 *
 * The contract three parts share: the model, the store port (`AttributionStore`; DynamoDB and memory
 * implementations, one contract suite), the audit-log lookup port (`AuditLogLookup`; CloudWatch Logs), and the one
 * rule of what an identity shows to whom (`forAudience`).
 */
import { withoutAwsDetails } from "../errors.ts";
import type { ReleaseKey } from "../release/model.ts";

/** A Helm revision: the create of its storage object. */
export interface RevisionSubject {
  type: "revision";
  cluster: string;
  namespace: string;
  release: string;
  revision: number;
  /** Helm's storage driver: the object created is a Secret (default) or a ConfigMap. */
  storageKind: "Secret" | "ConfigMap";
  /** About when the object was created (its creationTimestamp, else the revision's time), RFC 3339: the window. */
  createdAt: string;
}

/** One write by a field manager that the DRIFT section shows (a managedFields entry). */
export interface WriteSubject {
  type: "write";
  cluster: string;
  /** The release whose drift showed the write (attributions are read per release). */
  namespace: string;
  release: string;
  apiVersion: string;
  kind: string;
  name: string;
  /** The object's namespace (absent for cluster-scoped objects). */
  objectNamespace?: string;
  /** managedFields `manager`, `operation` (Update/Apply) and `subresource`. */
  manager: string;
  operation?: string;
  subresource?: string;
  /** managedFields `time`, RFC 3339 at second precision. */
  at: string;
}

export type AttributionSubject = RevisionSubject | WriteSubject;

/** How each kind of subject's key starts: a reader that wants one kind reads that range of the release's keys. */
export const KEY_PREFIX: Record<AttributionSubject["type"], string> = { revision: "rev#", write: "write#" };

/** The one key of a subject inside its cluster: a subject is looked up once, whoever enqueues it. */
export function attributionKey(subject: AttributionSubject): string {
  if (subject.type === "revision") {
    return `${KEY_PREFIX.revision}${subject.namespace}#${subject.release}#${subject.revision}`;
  }
  return `${KEY_PREFIX.write}${[
    subject.objectNamespace ?? "",
    subject.apiVersion,
    subject.kind,
    subject.name,
    subject.manager,
    subject.subresource ?? "",
    subject.at,
  ].join("#")}`;
}

/** The identity behind a request as aws-iam-authenticator reports it in the audit event's `user`. */
export interface AuditIdentity {
  /**
   * What is shown: an assumed role's session name (IAM Identity Center puts the person's e-mail there), an IAM
   * user's name, or the Kubernetes username of a caller not mapped from IAM. Never an ARN.
   */
  name: string;
  type: "iam-user" | "assumed-role" | "kubernetes";
  /** The role's name (no path, no account) for an assumed role. */
  role?: string;
  /** The account id and the full ARN: only the IAM-signed API's JSON returns them (`forAudience`). */
  accountId?: string;
  arn?: string;
}

/** What the matching audit event says about the write. */
export interface WriteEvidence {
  identity: AuditIdentity;
  /** The audit event's verb (create, patch, update). */
  verb: string;
  /** The event's requestReceivedTimestamp, RFC 3339. */
  at: string;
  /** The client's claim (`Helm/4.1.0`, `kubectl/v1.35.0 ...`): shown as such, never as the identity. */
  userAgent?: string;
  sourceIp?: string;
  /** The event's auditID (kube-apiserver's), to find it again in CloudWatch. */
  auditId: string;
  /**
   * A write only: how many other writes by the same field manager fell in the managedFields second. The one
   * completed last is the evidence (managedFields keeps its time and fields); absent when there was none.
   */
  sameSecondWrites?: number;
}

/**
 * pending: not looked up yet, or looked up and not found while logs may still arrive (retried with backoff);
 * found; not-found: the retry window passed with no matching event; logging-off: the cluster's audit logging was
 * off; failed: a lookup that cannot succeed by retrying (AccessDenied, log group missing), with the reason.
 */
export type AttributionState = "pending" | "found" | "not-found" | "logging-off" | "failed";

export interface Attribution {
  cluster: string;
  /** `attributionKey(subject)`. */
  key: string;
  subject: AttributionSubject;
  state: AttributionState;
  evidence?: WriteEvidence;
  /** Lookups made so far. */
  attempts: number;
  /** When it was enqueued, RFC 3339. */
  enqueuedAt: string;
  /** pending: when the next lookup is due, RFC 3339. */
  nextAttemptAt?: string;
  /** not-found, failed, logging-off: why, in words a caller may read (no ARN, no account id). */
  reason?: string;
}

/**
 * Whether `subject` is another object than the one `kept` was enqueued for, under the same key: a revision number
 * Helm wrote again (uninstall, then install again: a new storage object, created later). What is kept
 * names whoever created the old object; the new one is looked up afresh. Drift writes carry their own time in the
 * key: never.
 */
export function supersedes(subject: AttributionSubject, kept: Attribution): boolean {
  if (subject.type !== "revision" || kept.subject.type !== "revision") return false;
  // Later only: an old object's document enqueued again (a re-push) never takes the number back.
  return Date.parse(subject.createdAt) > Date.parse(kept.subject.createdAt);
}

/** A subject as it is first kept: pending, due at once, not looked up yet. */
export function pendingAttribution(subject: AttributionSubject, now: Date): Attribution {
  const at = now.toISOString();
  return {
    cluster: subject.cluster,
    key: attributionKey(subject),
    subject: structuredClone(subject),
    state: "pending",
    attempts: 0,
    enqueuedAt: at,
    nextAttemptAt: at,
  };
}

/**
 * How long a settled attribution is kept (docs/who.md, "Retention"): 400 days after it was enqueued, a year and a
 * month of "who changed it", past any audit log's usual retention (so nothing kept could still be looked up again).
 * A fixed period rather than SNAPSHOT_RETENTION_DAYS: attributions live in the releases table, which the snapshot
 * settings do not govern, and a revision is usually read long after the 90 days snapshots are kept.
 */
export const ATTRIBUTION_RETENTION_DAYS = 400;

/**
 * When a kept attribution expires (epoch seconds, the releases table's TTL attribute `expiresAt`): settled ones
 * 400 days after they were enqueued; a pending one never (it is still in the queue; it settles within the retry
 * window and takes its expiry then).
 */
export function attributionExpiresAt(attribution: Attribution): number | undefined {
  if (attribution.state === "pending") return undefined;
  return Math.floor(Date.parse(attribution.enqueuedAt) / 1000) + ATTRIBUTION_RETENTION_DAYS * 86_400;
}

/** Whether an attribution is past its expiry at `now` (DynamoDB's TTL deletes up to days late: reads skip it). */
export function attributionExpired(attribution: Attribution, now: Date): boolean {
  const expiresAt = attributionExpiresAt(attribution);
  return expiresAt !== undefined && expiresAt * 1000 <= now.getTime();
}

/** Whether a cluster's audit logs could be read, as the last lookup found it (said once per cluster). */
export interface ClusterAuditLogging {
  enabled: boolean;
  checkedAt: string;
  /** When off: what to run (`aws eks update-cluster-config --name demo-us --logging ...`). */
  hint?: string;
}

/** Where attributions are kept: DynamoDB and memory implementations, one contract suite. */
export interface AttributionStore {
  /**
   * Adds subjects as pending, due at `now`; a subject already kept (any state) for its release is left as it is,
   * so nothing is looked up twice. Returns how many were new.
   */
  enqueue(subjects: readonly AttributionSubject[], now: Date): Promise<number>;
  /**
   * One cluster's pending attributions due at `now`, earliest due first then oldest enqueued (due-order.ts), at
   * most `limit`.
   */
  due(cluster: string, now: Date, limit: number): Promise<Attribution[]>;
  /** Writes the outcome of lookups (found, not-found, failed, logging-off, or pending with the next attempt). */
  settle(attributions: readonly Attribution[]): Promise<void>;
  /**
   * Every attribution kept for one release (its revisions' and the writes its drift showed), none expired; with
   * `only`, those of that kind only (history wants its revisions, a status its drift writes: neither reads the
   * other's, which a release deployed often or drifting often has many of).
   */
  forRelease(release: ReleaseKey, only?: AttributionSubject["type"]): Promise<Attribution[]>;
  clusterLogging(cluster: string): Promise<ClusterAuditLogging | undefined>;
  setClusterLogging(cluster: string, logging: ClusterAuditLogging): Promise<void>;
}

/** The outcome of looking up many subjects of one cluster in its audit log. */
export type LookupResult =
  | { outcome: "searched"; found: Map<string, WriteEvidence>; queries: number }
  | { outcome: "logging-off"; hint: string }
  | { outcome: "failed"; reason: string; retryable: boolean };

/** Looks subjects up in a cluster's audit log (CloudWatch Logs), batching them into as few queries as it can. */
export interface AuditLogLookup {
  lookup(cluster: string, subjects: readonly AttributionSubject[], signal?: AbortSignal): Promise<LookupResult>;
}

/** Who reads an answer: the IAM-signed API's JSON may show ARNs; everyone else (browser, chat, text) may not. */
export type Audience = "iam" | "public";

/**
 * The one rule of what an identity shows (docs/security.md): no account id, no ARN outside the IAM API's JSON. Not
 * in the identity's fields, nor in the texts read from the audit log beside them: a Kubernetes username an aws-auth
 * mapping or an access entry made an ARN (`arn:aws:iam::123456789012:role/admin` shows `role/admin`) or filled with
 * `{{AccountID}}`, a client's User-Agent. Here rather than when the evidence is kept, so what was kept before is
 * covered too.
 */
export function forAudience(evidence: WriteEvidence, audience: Audience): WriteEvidence {
  if (audience === "iam") return evidence;
  const { accountId: _accountId, arn: _arn, ...identity } = evidence.identity;
  const { userAgent, ...rest } = evidence;
  return {
    ...rest,
    identity: { ...identity, name: withoutAccount(identity.name) },
    ...(userAgent ? { userAgent: withoutAccount(userAgent) } : {}),
  };
}

/** An ARN cut to its resource (`role/admin`), and any account id left out (shared/errors.ts). */
const withoutAccount = (text: string) => withoutAwsDetails(text.replace(/\barn:aws[\w-]*:[\w-]*:[\w-]*:\d{12}:/g, ""));
