/** Attributions as the workers settle them, for the tests of what they show (docs/who.md). */
import {
  type Attribution,
  type AttributionSubject,
  type AuditIdentity,
  attributionKey,
} from "../../shared/who/attribution.ts";

export const ACCOUNT = "111122223333";
export const ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/AWSReservedSSO_Admin_abc/alice@example.com`;

/** Alice through IAM Identity Center: her e-mail as the session name, the role and the ARN the lookup found. */
export const ALICE: AuditIdentity = {
  name: "alice@example.com",
  type: "assumed-role",
  role: "AWSReservedSSO_Admin_abc",
  accountId: ACCOUNT,
  arn: ARN,
};

/** A session name carrying markup and control characters: shown as text everywhere, never run or interpreted. */
export const HOSTILE: AuditIdentity = {
  name: "<img src=x onerror=alert(1)>\u001b[31m\nbob",
  type: "assumed-role",
  role: "ci",
  accountId: ACCOUNT,
  arn: `arn:aws:sts::${ACCOUNT}:assumed-role/ci/x`,
};

export function found(subject: AttributionSubject, identity: AuditIdentity, at = "2026-12-02T15:30:00Z"): Attribution {
  return {
    cluster: subject.cluster,
    key: attributionKey(subject),
    subject,
    state: "found",
    evidence: {
      identity,
      verb: subject.type === "revision" ? "create" : "patch",
      at,
      userAgent: subject.type === "revision" ? "Helm/4.1.0" : "kubectl/v1.35.0 (linux/amd64)",
      sourceIp: "203.0.113.7",
      auditId: `audit-${attributionKey(subject)}`,
    },
    attempts: 1,
    enqueuedAt: at,
  };
}

export function unsettled(subject: AttributionSubject, state: Attribution["state"], reason?: string): Attribution {
  return {
    cluster: subject.cluster,
    key: attributionKey(subject),
    subject,
    state,
    attempts: 1,
    enqueuedAt: "2026-12-02T15:30:00Z",
    ...(reason ? { reason } : {}),
  };
}

export function revisionSubject(cluster: string, namespace: string, release: string, revision: number) {
  return {
    type: "revision" as const,
    cluster,
    namespace,
    release,
    revision,
    storageKind: "Secret" as const,
    createdAt: "2026-12-02T15:00:00Z",
  };
}
