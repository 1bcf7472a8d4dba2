/**
 * What a release's attributions show (docs/who.md "Where it shows"): the one join of the kept attributions to the
 * revisions and drifted fields a caller reads, read with one `forRelease` per request and shaped by `forAudience`,
 * so no surface picks fields of an identity itself and none shows an ARN or an account id to a browser or a chat.
 */
import type { DriftedField } from "../drift/types.ts";
import type { Logger } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import {
  type Attribution,
  type AttributionState,
  type AttributionStore,
  type AttributionSubject,
  type Audience,
  type AuditIdentity,
  attributionKey,
  type ClusterAuditLogging,
  forAudience,
} from "./attribution.ts";
import { driftWriteSubject } from "./subjects.ts";

/** A write whose audit event was found: who made it, as the audience may see it. */
export interface WhoFound {
  state: "found";
  /** The session name (IAM Identity Center: the person's e-mail), the IAM user's name or the Kubernetes user. */
  name: string;
  type: AuditIdentity["type"];
  /** The assumed role's name (no path, no account). */
  role?: string;
  verb: string;
  /** When the API server received the write, RFC 3339. */
  at: string;
  /** The client's claim (`Helm/4.1.0`, `kubectl/...`): what the caller said it ran, never who it is. */
  userAgent?: string;
  sourceIp?: string;
  /** Only for the IAM-signed API's JSON (`forAudience`). */
  accountId?: string;
  arn?: string;
}

/** A write whose author is not known (yet): the state and what to say about it. */
export interface WhoUnknown {
  state: Exclude<AttributionState, "found">;
  /** `pending`, `not found`, `audit logs are off for demo-us`, or why the lookup failed. */
  note: string;
}

export type ShownWho = WhoFound | WhoUnknown;

/** One release's attributions, joined once per request. */
export interface ShownAttributions {
  release: ReleaseKey;
  /** Revision number → who created it. */
  revisions: ReadonlyMap<number, ShownWho>;
  /** `attributionKey` of a write subject → who made it. */
  writes: ReadonlyMap<string, ShownWho>;
  /** Every subject whose author was found, with who: what a notification or a diff says preceded a change. */
  found: readonly { subject: AttributionSubject; who: WhoFound }[];
  /** `audit logs are off for demo-us: <what to run>`, when the cluster's last lookup found them off. */
  loggingOff?: string;
}

/** Nothing kept: what a caller without an attribution store (or whose read failed) joins against. */
export function noAttributions(release: ReleaseKey): ShownAttributions {
  return { release, revisions: new Map(), writes: new Map(), found: [] };
}

/**
 * Reads a release's attributions (one `forRelease`, and unless `clusterLogging: false` the cluster's logging state
 * beside it) and shapes each for `audience`. The store failing is not the caller's failure: the answer says nothing
 * of who, the log says why.
 */
export async function readShownAttributions(
  store: AttributionStore,
  release: ReleaseKey,
  audience: Audience,
  onError?: (error: unknown) => void,
  /** `only`: one kind of subject (`forRelease`'s), for a caller that shows only that kind. */
  options: { clusterLogging?: boolean; only?: AttributionSubject["type"] } = {},
): Promise<ShownAttributions> {
  try {
    const [kept, logging] = await Promise.all([
      store.forRelease(release, options.only),
      options.clusterLogging === false ? undefined : store.clusterLogging(release.cluster),
    ]);
    return joinAttributions(release, kept, logging, audience);
  } catch (error) {
    onError?.(error);
    return noAttributions(release);
  }
}

/**
 * A status's attributions (its last step, docs/who.md): read with one `forRelease` once `stored` (the status's store
 * read) settles, so it never queues beside the read the wave waits for and has answered long before the report is
 * ready. Undefined without an attribution store or for a release not stored; the store failing names nobody and is
 * logged, never the status's failure.
 */
export function readStatusAttributions(
  deps: { attributions?: AttributionStore; logger: Logger },
  release: ReleaseKey,
  audience: Audience,
  stored: Promise<unknown>,
): Promise<ShownAttributions | undefined> {
  const store = deps.attributions;
  if (!store) return Promise.resolve(undefined);
  const onError = (error: unknown) =>
    deps.logger.warn("attributions not read", { error: (error as Error)?.message ?? String(error) });
  // One Query: the logging being off is told by the records the workers settled (their reason is the hint).
  return stored.then(
    // Its drift writes only: a status shows who made each drifted field, never who made a revision.
    () => readShownAttributions(store, release, audience, onError, { clusterLogging: false, only: "write" }),
    () => undefined,
  );
}

/** A drifted field with who made its write, when the audit log said. */
export interface AttributedDriftedField extends DriftedField {
  who?: ShownWho;
}

/**
 * A report's drifted fields with their writers, named when the audit log said (`whoOfField`), and the cluster's
 * logging being off said once (`auditLogging`) when some field names a writer nobody is put to.
 */
export function attributeDrift<R extends { drift?: { fields: AttributedDriftedField[] }; auditLogging?: string }>(
  report: R,
  shown: ShownAttributions | undefined,
): R {
  const drift = report.drift;
  if (!shown || !drift || drift.fields.length === 0) return report;
  const fields = drift.fields.map((field) => {
    const who = whoOfField(shown, field);
    return who ? { ...field, who } : field;
  });
  const unnamed = fields.some(
    (field) => field.changedBy && field.helmRevision === undefined && field.who?.state !== "found",
  );
  return {
    ...report,
    drift: { ...drift, fields },
    ...(unnamed && shown.loggingOff ? { auditLogging: shown.loggingOff } : {}),
  };
}

/** The pure join (readShownAttributions' second half). */
export function joinAttributions(
  release: ReleaseKey,
  kept: readonly Attribution[],
  logging: ClusterAuditLogging | undefined,
  audience: Audience,
): ShownAttributions {
  // The cluster's state when it was read; else what the records say (a logging-off record's reason is the hint).
  const offRecord = kept.find((attribution) => attribution.state === "logging-off");
  const loggingOff = logging
    ? logging.enabled
      ? undefined
      : loggingOffLine(release.cluster, logging.hint)
    : offRecord && loggingOffLine(release.cluster, offRecord.reason);
  const revisions = new Map<number, ShownWho>();
  const writes = new Map<string, ShownWho>();
  const found: { subject: AttributionSubject; who: WhoFound }[] = [];
  for (const attribution of kept) {
    const shown = shownWho(attribution, audience, release.cluster);
    if (attribution.subject.type === "revision") revisions.set(attribution.subject.revision, shown);
    else writes.set(attributionKey(attribution.subject), shown);
    if (shown.state === "found") found.push({ subject: attribution.subject, who: shown });
  }
  return { release, revisions, writes, found, ...(loggingOff ? { loggingOff } : {}) };
}

/** The one wording of a cluster whose audit logs cannot be read because they are off. */
export function loggingOffLine(cluster: string, hint: string | undefined): string {
  return `audit logs are off for ${cluster}${hint ? `: ${hint}` : ""}`;
}

/** Who made the write a drifted field names; none when the field names no writer or nothing is kept for it. */
export function whoOfField(shown: ShownAttributions, field: DriftedField): ShownWho | undefined {
  const subject = driftWriteSubject(shown.release, field);
  return subject && shown.writes.get(attributionKey(subject));
}

/** `alice@example.com` for a found write; undefined otherwise (the surfaces then name the program only). */
export function whoName(who: ShownWho | undefined): string | undefined {
  return who?.state === "found" ? who.name : undefined;
}

function shownWho(attribution: Attribution, audience: Audience, cluster: string): ShownWho {
  if (attribution.state === "found" && attribution.evidence) {
    const evidence = forAudience(attribution.evidence, audience);
    const { identity } = evidence;
    return {
      state: "found",
      name: identity.name,
      type: identity.type,
      ...(identity.role ? { role: identity.role } : {}),
      verb: evidence.verb,
      at: evidence.at,
      ...(evidence.userAgent ? { userAgent: evidence.userAgent } : {}),
      ...(evidence.sourceIp ? { sourceIp: evidence.sourceIp } : {}),
      ...(identity.accountId ? { accountId: identity.accountId } : {}),
      ...(identity.arn ? { arn: identity.arn } : {}),
    };
  }
  const state = attribution.state === "found" ? "not-found" : attribution.state;
  return { state, note: noteOf(state, attribution.reason, cluster) };
}

function noteOf(state: WhoUnknown["state"], reason: string | undefined, cluster: string): string {
  switch (state) {
    case "pending":
      return "pending";
    case "not-found":
      return "not found";
    case "logging-off":
      return `audit logs are off for ${cluster}`;
    case "failed":
      return `lookup failed${reason ? `: ${reason}` : ""}`;
  }
}
