/**
 * What the planner sends the worker: one message per part of a cluster's
 * deployed releases (a cluster's releases share one kubeconfig and discovery
 * cache in the worker). Parsed strictly: a malformed message is poison (DLQ).
 */
import { ValidationError } from "../errors.ts";
import { messageJson } from "../queue/message-body.ts";
import { validateClusterName, validateNamespace, validateReleaseName } from "../release/validation.ts";
import { isRunId } from "../snapshots/model.ts";

export interface AuditTarget {
  namespace: string;
  name: string;
  revision: number;
}

export interface AuditMessage {
  v: 1;
  runId: string;
  /** Unique per run: `<cluster>-<n>`; the run record counts each part once. */
  part: string;
  cluster: string;
  releases: AuditTarget[];
}

export class InvalidAuditMessageError extends ValidationError {
  constructor(detail: string) {
    super(`invalid audit message: ${detail}`, "InvalidAuditMessage");
  }
}

export const MAX_RELEASES_PER_MESSAGE = 100;

export function parseAuditMessage(body: string): AuditMessage {
  const raw = messageJson(body, () => new InvalidAuditMessageError("the body is not JSON"));
  const m = raw as Partial<AuditMessage> | null;
  if (!m || typeof m !== "object" || m.v !== 1) throw new InvalidAuditMessageError("not a version 1 audit message");
  if (!isRunId(m.runId)) throw new InvalidAuditMessageError("runId is not a run id");
  if (typeof m.part !== "string" || !/^[A-Za-z0-9_-]{1,120}$/.test(m.part)) {
    throw new InvalidAuditMessageError("part is not a part id");
  }
  // The reasons name the field, never its value: they are logged (a poison message's payload is not).
  try {
    validateClusterName(m.cluster);
  } catch {
    throw new InvalidAuditMessageError("cluster is not a cluster name");
  }
  if (!Array.isArray(m.releases) || m.releases.length === 0 || m.releases.length > MAX_RELEASES_PER_MESSAGE) {
    throw new InvalidAuditMessageError(`releases must be a list of 1..${MAX_RELEASES_PER_MESSAGE}`);
  }
  for (const target of m.releases) {
    try {
      validateNamespace(target?.namespace);
    } catch {
      throw new InvalidAuditMessageError("a release namespace is not a namespace name");
    }
    try {
      validateReleaseName(target?.name);
    } catch {
      throw new InvalidAuditMessageError("a release name is not a release name");
    }
    if (!Number.isInteger(target.revision) || target.revision < 1) {
      throw new InvalidAuditMessageError("a release revision is not a positive integer");
    }
  }
  return m as AuditMessage;
}

/** Where the planner puts messages: SQS in AWS and on fauxqs, an array for the in-process `audit`. */
export interface AuditQueue {
  /** Sends every message or throws; answers the part ids that were sent before a failure via onSent. */
  send(messages: AuditMessage[], onSent: (parts: AuditMessage[]) => Promise<void>): Promise<void>;
}
