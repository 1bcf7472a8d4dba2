/**
 * Which audit event is a subject's (docs/who.md, "The lookup"). The rules, each because a wrong match would name
 * the wrong person:
 * - the object exactly: resource, API group, namespace, name and subresource equal (`web-config` is never
 *   `web-config-2`, a ConfigMap never the Secret of the same name);
 * - a request that changed something: a 2xx answer (a refused or failed write changed nothing) and no `dryRun`;
 * - a revision is the create of its storage object `sh.helm.release.v1.<release>.v<N>`; when the name was
 *   created more than once (uninstalled and installed again), the create nearest the revision's time;
 * - a write is a patch or update (an apply is a patch; an `Update` entry may also come from the object's create)
 *   by the same field manager (`fieldManager=` in the request URI, else the User-Agent's product, as
 *   kube-apiserver defaults it), whose request was being served during the managedFields second `[at, at+1s)`;
 *   a request only within `SKEW_MS` of that second is taken when none is inside it;
 * - two or more such writes in that second: managedFields keeps the time (and the fields) of the last one, so the
 *   one completed last is taken, and `sameSecondWrites` says how many others there were.
 */
import { storageObjectName } from "../release/storage-identity.ts";
import { type AttributionSubject, attributionKey, type WriteEvidence, type WriteSubject } from "./attribution.ts";
import { type AuditEventFacts, clientClaims, identityOf } from "./audit-events.ts";

/** Tolerance around the managedFields second, used only when no request falls inside it. */
export const SKEW_MS = 500;

/** The object an audit event must name for a subject. */
export interface AuditTarget {
  resource: string;
  /** Absent for the core group. */
  apiGroup?: string;
  namespace?: string;
  name: string;
  subresource?: string;
}

/** Plurals that the lowercase-and-suffix rule gets wrong. */
const IRREGULAR_RESOURCES: Record<string, string> = {
  endpoints: "endpoints",
  podsecuritypolicy: "podsecuritypolicies",
};

/**
 * The resource (plural) of a kind, as kube-apiserver names it in `objectRef.resource`: lower case, then
 * `-y` → `-ies`, `-s`/`-x`/`-ch`/`-sh` → `-es`, else `-s` (the rule Kubernetes itself guesses with, which CRDs
 * follow by convention).
 */
export function resourceOfKind(kind: string): string {
  const lower = kind.toLowerCase();
  const irregular = IRREGULAR_RESOURCES[lower];
  if (irregular) return irregular;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

export function targetOf(subject: AttributionSubject): AuditTarget {
  if (subject.type === "revision") {
    return {
      resource: subject.storageKind === "ConfigMap" ? "configmaps" : "secrets",
      namespace: subject.namespace,
      // Helm's storage object of the revision (its Secret or ConfigMap).
      name: storageObjectName(subject.release, subject.revision),
    };
  }
  const slash = subject.apiVersion.indexOf("/");
  return {
    resource: resourceOfKind(subject.kind),
    ...(slash > 0 ? { apiGroup: subject.apiVersion.slice(0, slash) } : {}),
    ...(subject.objectNamespace ? { namespace: subject.objectNamespace } : {}),
    name: subject.name,
    ...(subject.subresource ? { subresource: subject.subresource } : {}),
  };
}

/** The request's query parameter `name` (the first), or undefined. */
function queryParameter(requestURI: string, name: string): string | undefined {
  const query = requestURI.indexOf("?");
  if (query < 0) return undefined;
  return new URLSearchParams(requestURI.slice(query + 1)).get(name) ?? undefined;
}

/** A request that changed the target: the exact object, a 2xx answer, not a dry run. */
function changed(event: AuditEventFacts, target: AuditTarget): boolean {
  return (
    event.name === target.name &&
    event.resource === target.resource &&
    event.apiGroup === target.apiGroup &&
    event.namespace === target.namespace &&
    event.subresource === target.subresource &&
    event.code !== undefined &&
    event.code >= 200 &&
    event.code < 300 &&
    queryParameter(event.requestURI, "dryRun") === undefined
  );
}

/** The field manager kube-apiserver recorded for a request: `fieldManager=`, else the User-Agent's product. */
export function managerOf(event: Pick<AuditEventFacts, "requestURI" | "userAgent">): string | undefined {
  return queryParameter(event.requestURI, "fieldManager") ?? event.userAgent?.split("/")[0];
}

export function evidenceOf(event: AuditEventFacts, sameSecondWrites = 0): WriteEvidence {
  const { userAgent, sourceIp } = clientClaims(event);
  return {
    identity: identityOf(event),
    verb: event.verb,
    at: event.receivedAt,
    ...(userAgent ? { userAgent } : {}),
    ...(sourceIp ? { sourceIp } : {}),
    auditId: event.auditId,
    ...(sameSecondWrites > 0 ? { sameSecondWrites } : {}),
  };
}

function matchRevision(subject: AttributionSubject & { type: "revision" }, events: readonly AuditEventFacts[]) {
  const target = targetOf(subject);
  const creates = events.filter((e) => e.verb === "create" && changed(e, target));
  const wanted = Date.parse(subject.createdAt);
  const distance = (e: AuditEventFacts) => (Number.isNaN(wanted) ? 0 : Math.abs(e.receivedMs - wanted));
  const nearest = creates.reduce<AuditEventFacts | undefined>(
    (best, e) => (best === undefined || distance(e) < distance(best) ? e : best),
    undefined,
  );
  return nearest && evidenceOf(nearest);
}

function matchWrite(subject: WriteSubject, events: readonly AuditEventFacts[]) {
  const second = Date.parse(subject.at);
  if (Number.isNaN(second)) return undefined;
  const target = targetOf(subject);
  const verbs = subject.operation === "Apply" ? ["patch"] : ["patch", "update", "create"];
  const writes = events.filter((e) => verbs.includes(e.verb) && changed(e, target) && managerOf(e) === subject.manager);
  // Being served during [second, second + 1s): received before its end, answered at or after its start.
  const within = (skew: number) =>
    writes.filter((e) => e.receivedMs < second + 1000 + skew && e.completedMs >= second - skew);
  const inside = within(0);
  const candidates = inside.length > 0 ? inside : within(SKEW_MS);
  if (candidates.length === 0) return undefined;
  const last = candidates.reduce((latest, e) => (e.completedMs >= latest.completedMs ? e : latest));
  return evidenceOf(last, candidates.length - 1);
}

/** Each subject's evidence among `events` (the subjects without one are left out: not found, yet). */
export function matchSubjects(
  subjects: readonly AttributionSubject[],
  events: readonly AuditEventFacts[],
): Map<string, WriteEvidence> {
  const byName = new Map<string, AuditEventFacts[]>();
  for (const event of events) {
    if (event.name === undefined) continue;
    const named = byName.get(event.name);
    if (named) named.push(event);
    else byName.set(event.name, [event]);
  }
  const found = new Map<string, WriteEvidence>();
  for (const subject of subjects) {
    const named = byName.get(targetOf(subject).name) ?? [];
    const evidence = subject.type === "revision" ? matchRevision(subject, named) : matchWrite(subject, named);
    if (evidence) found.set(attributionKey(subject), evidence);
  }
  return found;
}
