/**
 * An EKS audit event as the lookup reads it (docs/who.md, "The lookup"): the few fields a Logs Insights query
 * returns for it (`AUDIT_EVENT_FIELDS`, so RequestResponse bodies never travel), made into plain facts, and the
 * identity aws-iam-authenticator put in `user` made into an `AuditIdentity`. Everything read here is data from
 * the cluster: control characters are stripped and lengths bounded; escaping for display is the display's job.
 */
import type { AuditIdentity } from "./attribution.ts";

/** The fields asked of Logs Insights, JSON paths with arrays as `.0` (its flattening). */
export const AUDIT_EVENT_FIELDS = [
  "@timestamp",
  "auditID",
  "verb",
  "requestURI",
  "user.username",
  "user.extra.arn.0",
  "user.extra.sessionName.0",
  "userAgent",
  "sourceIPs.0",
  "objectRef.resource",
  "objectRef.namespace",
  "objectRef.name",
  "objectRef.apiGroup",
  "objectRef.subresource",
  "responseStatus.code",
  "requestReceivedTimestamp",
  "stageTimestamp",
] as const;

/** What one audit event says, as the matching needs it. */
export interface AuditEventFacts {
  auditId: string;
  verb: string;
  requestURI: string;
  username?: string;
  arn?: string;
  sessionName?: string;
  userAgent?: string;
  sourceIp?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  /** Absent for the core group. */
  apiGroup?: string;
  subresource?: string;
  code?: number;
  /** requestReceivedTimestamp (else the log event's time), RFC 3339 to the millisecond, and in ms. */
  receivedAt: string;
  receivedMs: number;
  /** stageTimestamp (ResponseComplete: when the answer was sent), in ms. */
  completedMs: number;
}

/**
 * The longest of each text kept from an audit event (longer is cut): an identity's name (an IAM session name is at
 * most 64, a Kubernetes username has no limit), an ARN (IAM's own limit), the client's user agent, a source IP.
 */
const MAX_LENGTH = { name: 256, arn: 2048, userAgent: 512, ip: 64 } as const;

/**
 * Text from the audit log made safe to keep: no control or bidirectional-override characters (a name could
 * otherwise rewrite a terminal line or reorder what a reader sees), at most `max` characters, trimmed.
 */
export function cleanText(value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const clean = value
    .replace(/[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/gu, "")
    .trim()
    .slice(0, max);
  return clean === "" ? undefined : clean;
}

/** One Insights result row (`[{field, value}]`) as facts; undefined when it is not a usable audit event. */
export function auditEventFromRow(row: ReadonlyArray<{ field?: string; value?: string }>): AuditEventFacts | undefined {
  const fields = new Map<string, string>();
  for (const { field, value } of row) if (field && value !== undefined) fields.set(field, value);
  return auditEventFrom((path) => fields.get(path));
}

/** A whole audit event (the JSON message of a log event) as facts. */
export function auditEventFromJson(message: string): AuditEventFacts | undefined {
  let event: unknown;
  try {
    event = JSON.parse(message);
  } catch {
    return undefined;
  }
  return auditEventFrom((path) => {
    let current: unknown = event;
    for (const step of path.split(".")) {
      if (current === null || typeof current !== "object") return undefined;
      current = (current as Record<string, unknown>)[step];
    }
    return typeof current === "string" || typeof current === "number" ? String(current) : undefined;
  });
}

/** Insights' `@timestamp` (`2026-12-02 15:10:05.000`, UTC) or an RFC 3339 time, in ms; NaN when neither. */
function timeOf(text: string | undefined): number {
  if (text === undefined) return Number.NaN;
  return Date.parse(/^\d{4}-\d\d-\d\d \d/.test(text) ? `${text.replace(" ", "T")}Z` : text);
}

function auditEventFrom(get: (path: (typeof AUDIT_EVENT_FIELDS)[number]) => string | undefined) {
  const auditId = get("auditID");
  const verb = get("verb");
  // Insights discovers the first 200 fields of a JSON event, and EKS writes the two timestamps after the bodies
  // of a RequestResponse event: for a big one, the log event's own time (the stage's) stands in.
  const logged = timeOf(get("@timestamp"));
  const stated = timeOf(get("requestReceivedTimestamp"));
  const receivedMs = Number.isNaN(stated) ? logged : stated;
  const stage = timeOf(get("stageTimestamp"));
  const completedMs = Number.isNaN(stage) ? (Number.isNaN(logged) ? receivedMs : logged) : stage;
  if (!auditId || !verb || Number.isNaN(receivedMs) || Number.isNaN(completedMs)) return undefined;
  const code = Number(get("responseStatus.code"));
  return {
    auditId: cleanText(auditId, 64) ?? "",
    verb,
    requestURI: get("requestURI") ?? "",
    username: get("user.username"),
    arn: get("user.extra.arn.0"),
    sessionName: get("user.extra.sessionName.0"),
    userAgent: get("userAgent"),
    sourceIp: get("sourceIPs.0"),
    resource: get("objectRef.resource"),
    namespace: get("objectRef.namespace"),
    name: get("objectRef.name"),
    apiGroup: get("objectRef.apiGroup") || undefined,
    subresource: get("objectRef.subresource") || undefined,
    code: Number.isInteger(code) ? code : undefined,
    receivedAt: new Date(receivedMs).toISOString(),
    receivedMs,
    completedMs,
  } satisfies AuditEventFacts;
}

const ASSUMED_ROLE = /^arn:aws[\w-]*:sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/([\w+=,.@-]+)$/;
const IAM_USER = /^arn:aws[\w-]*:iam::(\d{12}):user\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/;

/**
 * Who made the request: the session ARN aws-iam-authenticator reports (`user.extra.arn`, else a username that is
 * an ARN, as access entries make it) read as an assumed role's session (the session name shown: IAM Identity
 * Center puts the person's e-mail there) or an IAM user; any other caller by its Kubernetes username. The
 * User-Agent never enters here: a client can claim any.
 */
export function identityOf(event: Pick<AuditEventFacts, "username" | "arn" | "sessionName">): AuditIdentity {
  const arn = cleanText(event.arn ?? (event.username?.startsWith("arn:") ? event.username : undefined), MAX_LENGTH.arn);
  const role = arn ? ASSUMED_ROLE.exec(arn) : null;
  if (arn && role) {
    const name = cleanText(event.sessionName, MAX_LENGTH.name) ?? role[3];
    return { type: "assumed-role", name, role: role[2], accountId: role[1], arn };
  }
  const user = arn ? IAM_USER.exec(arn) : null;
  if (arn && user) return { type: "iam-user", name: user[2], accountId: user[1], arn };
  // Any other caller by its username, which an aws-auth mapping or an access entry may make an ARN the patterns
  // above do not read (a role's, a federated user's, the root's): the ARN and its account are kept as for the
  // others, for the IAM audience; what the name shows everyone else is `forAudience`'s.
  const accountId = arn ? ARN_ACCOUNT.exec(arn)?.[1] : undefined;
  return {
    type: "kubernetes",
    name: cleanText(event.username, MAX_LENGTH.name) ?? "(unknown)",
    ...(arn && accountId ? { accountId, arn } : {}),
  };
}

/** The account id of an ARN. */
const ARN_ACCOUNT = /^arn:aws[\w-]*:[\w-]*:[\w-]*:(\d{12}):/;

/** The evidence's client claims, cleaned: the User-Agent and the first source address. */
export function clientClaims(event: Pick<AuditEventFacts, "userAgent" | "sourceIp">) {
  return {
    userAgent: cleanText(event.userAgent, MAX_LENGTH.userAgent),
    sourceIp: cleanText(event.sourceIp, MAX_LENGTH.ip),
  };
}
