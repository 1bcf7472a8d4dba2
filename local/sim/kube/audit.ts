/**
 * The EKS control-plane audit log of one cluster: an audit.k8s.io/v1 Event per request, at the level EKS's fixed
 * policy gives it (Metadata for secrets, configmaps and tokenreviews; Request for reads and RequestResponse for
 * writes of the known groups; events not at all; Metadata for the rest), attributed to the IAM principal behind
 * the bearer token as aws-iam-authenticator reports it (`user.extra` arn, canonicalArn, sessionName, accessKeyId,
 * principalId). CloudWatch Logs (aws/logs.ts) serves the entries once `lagMs` has passed after each one.
 */
import { createHash, randomUUID } from "node:crypto";
import type { SimPrincipal } from "../aws/iam.ts";
import type { Request } from "./exchange.ts";
import { parseResourcePath, verbOf } from "./handlers.ts";
import type { ClusterState } from "./state.ts";

export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";

/** The groups EKS's policy names as known (their writes are logged with request and response bodies). */
const KNOWN_GROUPS = new Set([
  "",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "apps",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "extensions",
  "metrics.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
]);

const UNLOGGED_PATHS = /^\/(healthz|livez|readyz|version)(\/|$)/;
/** CloudWatch Logs' limit for one event; bigger entries lose their bodies. */
const MAX_ENTRY_BYTES = 256 * 1024;
/** Entries kept per cluster (the oldest go first), so a long-running simulator's memory stays flat (~15 MB). */
const MAX_ENTRIES = 10_000;

export interface AuditRequest {
  method: string;
  requestURI: string;
  pathname: string;
  verb: string;
  resource?: {
    group: string;
    version: string;
    plural: string;
    namespace?: string;
    name?: string;
    subresource?: string;
  };
  principal: SimPrincipal;
  sourceIPs: string[];
  userAgent: string;
  requestBody: Buffer;
  status: number;
  responseBody?: Buffer;
  receivedAt: Date;
  completedAt: Date;
  decision: "allow" | "forbid";
}

/** What the audit log needs of an answered request (`reply.payload`: the serialized body, none when streamed). */
export function auditRequestOf(
  req: Request,
  url: URL,
  body: Buffer,
  principal: SimPrincipal,
  reply: { status: number; payload?: Buffer },
  receivedAt: Date,
  state: ClusterState,
): AuditRequest {
  const pathname = url.pathname.replace(/\/+$/, "") || "/";
  const resourcePath = parseResourcePath(pathname, state);
  const method = req.method ?? "GET";
  const watch = ["true", "1"].includes(url.searchParams.get("watch") ?? "");
  // kube-apiserver lists X-Forwarded-For's addresses first, then the peer's.
  const forwarded = String(req.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((ip) => ip.trim())
    .filter(Boolean);
  const remote = (req.socket?.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  return {
    method,
    requestURI: req.url ?? pathname,
    pathname,
    verb: resourcePath ? verbOf(method, resourcePath, watch) : method.toLowerCase(),
    resource: resourcePath && {
      group: resourcePath.group,
      version: resourcePath.version,
      plural: resourcePath.plural,
      namespace: resourcePath.namespace,
      name: resourcePath.name,
      subresource: resourcePath.subresource,
    },
    principal,
    sourceIPs: [...forwarded, remote],
    userAgent: String(req.headers["user-agent"] ?? ""),
    requestBody: body,
    status: reply.status,
    responseBody: reply.payload,
    receivedAt,
    completedAt: state.now(),
    decision: reply.status === 403 ? "forbid" : "allow",
  };
}

/** The level EKS's audit policy gives a request. */
export function auditLevel(request: Pick<AuditRequest, "pathname" | "verb" | "resource">): AuditLevel {
  const resource = request.resource;
  if (!resource) return UNLOGGED_PATHS.test(request.pathname) ? "None" : "Metadata";
  if (resource.plural === "events") return "None";
  if (["secrets", "configmaps", "tokenreviews"].includes(resource.plural) && resource.group === "") return "Metadata";
  if (!KNOWN_GROUPS.has(resource.group)) return "Metadata";
  return ["get", "list", "watch"].includes(request.verb) ? "Request" : "RequestResponse";
}

const micro = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

function json(buffer: Buffer | undefined): unknown {
  if (!buffer || buffer.length === 0) return undefined;
  try {
    return JSON.parse(buffer.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The audit.k8s.io/v1 Event EKS would write for a request (undefined at level None). */
export function auditEvent(request: AuditRequest): Record<string, unknown> | undefined {
  const level = auditLevel(request);
  if (level === "None") return undefined;
  const { principal, resource } = request;
  const failed = request.status >= 400;
  // The answer is read only when the event needs it: a LIST's answer can be megabytes.
  const created = request.verb === "create" && request.status < 300;
  const needsResponse = failed || created || (level === "RequestResponse" && request.method !== "GET");
  const response = (needsResponse ? json(request.responseBody) : undefined) as
    | { metadata?: { name?: string }; message?: string; reason?: string; status?: string }
    | undefined;
  // On a create the name comes from the object (kube-apiserver fills objectRef.name even at Metadata level).
  const name = resource?.name ?? (created ? response?.metadata?.name : undefined);
  const event: Record<string, unknown> = {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level,
    auditID: randomUUID(),
    stage: "ResponseComplete",
    requestURI: request.requestURI,
    verb: request.verb,
    user: {
      username: principal.arn,
      uid: `aws-iam-authenticator:${principal.account}:${principal.userId}`,
      groups: ["system:authenticated"],
      extra: {
        accessKeyId: [principal.accessKeyId],
        arn: [principal.arn],
        canonicalArn: [principal.canonicalArn],
        principalId: [principal.userId],
        sessionName: [principal.sessionName ?? ""],
      },
    },
    sourceIPs: request.sourceIPs,
    userAgent: request.userAgent,
    ...(resource
      ? {
          objectRef: {
            resource: resource.plural,
            ...(resource.namespace ? { namespace: resource.namespace } : {}),
            ...(name ? { name } : {}),
            ...(resource.group ? { apiGroup: resource.group } : {}),
            apiVersion: resource.version,
            ...(resource.subresource ? { subresource: resource.subresource } : {}),
          },
        }
      : {}),
    responseStatus: failed
      ? {
          metadata: {},
          status: "Failure",
          message: response?.message ?? "",
          reason: response?.reason ?? "",
          code: request.status,
        }
      : { metadata: {}, code: request.status },
    requestReceivedTimestamp: micro(request.receivedAt),
    stageTimestamp: micro(request.completedAt),
    annotations: {
      "authorization.k8s.io/decision": request.decision,
      "authorization.k8s.io/reason":
        request.decision === "allow" ? "EKS Access Policy: allowed by AmazonEKSClusterAdminPolicy" : "",
    },
  };
  if ((level === "Request" || level === "RequestResponse") && request.method !== "GET") {
    const body = json(request.requestBody);
    if (body !== undefined) event.requestObject = body;
  }
  if (level === "RequestResponse" && !failed && response !== undefined) event.responseObject = response;
  if (JSON.stringify(event).length > MAX_ENTRY_BYTES) {
    delete event.requestObject;
    delete event.responseObject;
  }
  return event;
}

export interface AuditEntry {
  /** The event's time in CloudWatch (ms): its stageTimestamp. */
  timestamp: number;
  /** When CloudWatch Logs has it (ms): timestamp + the delivery lag. */
  ingestionTime: number;
  eventId: string;
  message: string;
}

/** One cluster's audit log: on or off (EKS's `audit` log type), entries with their delivery time. */
export class AuditLog {
  readonly streamName: string;
  readonly logGroupName: string;
  /** Whether the API server writes audit events now. */
  private on: boolean;
  /** The log group exists once audit logging was ever on (turning it off keeps the group and what it had). */
  private groupCreated: boolean;
  lagMs: number;
  private entries: AuditEntry[] = [];
  private sequence = 0;

  constructor(clusterName: string, options: { enabled: boolean; lagMs: number }) {
    this.logGroupName = `/aws/eks/${clusterName}/cluster`;
    this.streamName = `kube-apiserver-audit-${createHash("sha256").update(clusterName).digest("hex").slice(0, 32)}`;
    this.on = options.enabled;
    this.groupCreated = options.enabled;
    this.lagMs = options.lagMs;
  }

  get enabled(): boolean {
    return this.on;
  }

  get groupExists(): boolean {
    return this.groupCreated;
  }

  setEnabled(on: boolean): void {
    this.on = on;
    if (on) this.groupCreated = true;
  }

  record(request: AuditRequest): void {
    if (!this.on) return;
    const event = auditEvent(request);
    if (!event) return;
    const timestamp = request.completedAt.getTime();
    this.sequence += 1;
    this.entries.push({
      timestamp,
      ingestionTime: timestamp + this.lagMs,
      eventId: `${String(timestamp).padStart(20, "0")}${String(this.sequence).padStart(36, "0")}`,
      message: JSON.stringify(event),
    });
    // Trimmed in batches, not on every write once full.
    if (this.entries.length > MAX_ENTRIES * 1.1) this.entries = this.entries.slice(-MAX_ENTRIES);
  }

  /** Every entry written (delivered or not), oldest first: for tests. */
  all(): AuditEntry[] {
    return [...this.entries];
  }

  /** What CloudWatch Logs has by `now` (ms), in time order. */
  delivered(now: number): AuditEntry[] {
    return this.entries.filter((e) => e.ingestionTime <= now).sort((a, b) => a.timestamp - b.timestamp);
  }
}
