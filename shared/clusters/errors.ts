import { awsRoleName, errorKind, withoutAwsDetails } from "../errors.ts";

/**
 * Errors of the cluster area: the registry (read once at cold start) and reaching a
 * cluster through EKS. Messages name the cluster and say what failed; they never
 * contain a token, a secret key or a kubeconfig.
 */

/** CLUSTERS / CLUSTERS_FILE is malformed: the product refuses to start (fail fast). */
export class ClusterRegistryError extends errorKind("validation", "ClusterRegistryInvalid") {}

/** A cluster that is not in the registry: nothing is ever sent over the network for it. */
export class UnknownClusterError extends errorKind("not-found", "ClusterNotFound") {
  readonly cluster: string;
  constructor(cluster: string, options?: { cause?: unknown; known?: string[] }) {
    const known = options?.known;
    const hint = known === undefined ? "" : known.length ? ` (known: ${listSome(known)})` : " (the registry is empty)";
    super(`unknown cluster "${cluster}"${hint}`, options);
    this.cluster = cluster;
  }
}

/** DescribeCluster answered, but the cluster cannot serve requests (CREATING, DELETING, FAILED, ...). */
export class ClusterNotActiveError extends errorKind("unavailable", "ClusterNotActive") {
  readonly cluster: string;
  readonly status: string;
  constructor(cluster: string, status: string, options?: { cause?: unknown }) {
    super(`cluster "${cluster}" is ${status}, not ACTIVE: its API server cannot be used now`, options);
    this.cluster = cluster;
    this.status = status;
  }
}

/**
 * EKS, STS or the cluster's API endpoint could not be reached (refused, DNS, timeout, 5xx, missing in EKS).
 * `message` names the endpoint (for the log and the CLI); remote callers read `publicMessage`, which does not.
 */
export class ClusterUnreachableError extends errorKind("unavailable", "ClusterUnreachable") {
  readonly cluster: string;
  override readonly publicMessage: string;
  constructor(cluster: string, message: string, options?: { cause?: unknown; publicMessage?: string }) {
    super(message, options);
    this.cluster = cluster;
    this.publicMessage = options?.publicMessage ?? withoutAwsDetails(message);
  }
}

/**
 * The API server's certificate does not verify against the cluster's CA (the
 * registry's or DescribeCluster's `certificateAuthority`, or the kubeconfig's):
 * a wrong or rotated CA, or something else answering on that address. Not
 * retried, and never "fixed" by trusting other CAs.
 */
export class ClusterCertificateError extends errorKind("unavailable", "ClusterCertificateMismatch") {
  readonly cluster: string;
  override readonly publicMessage: string;
  constructor(cluster: string, server: string, reason: string, options?: { cause?: unknown }) {
    super(
      `kubernetes cluster "${cluster}": the cluster's certificate does not match its CA (${server}: ${reason})`,
      options,
    );
    this.cluster = cluster;
    this.publicMessage = `kubernetes cluster "${cluster}": the cluster's certificate does not match its CA (${reason})`;
  }
}

/**
 * The product's own identity was refused: DescribeCluster or AssumeRole denied, no credentials at all, or the
 * cluster's API server rejecting its token. Not the caller's fault, so not a 403: the service is misconfigured
 * (502). `message` keeps AWS's full text for the log and the CLI; callers of the API get `publicMessage`,
 * which names the cluster and the role but not the principal ARN.
 */
export class ClusterAccessDeniedError extends errorKind("misconfigured", "ClusterAccessDenied") {
  readonly cluster: string;
  /** The refused role's name, when known. */
  readonly role?: string;
  override readonly publicMessage: string;
  constructor(
    cluster: string,
    message: string,
    options?: {
      cause?: unknown;
      /** What was refused, without ARNs ("DescribeCluster", "AssumeRole of role x", "the Kubernetes API"). */
      action?: string;
      /** The refused role (ARN or name); else read from AWS's message. */
      role?: string;
    },
  ) {
    super(message, options);
    this.cluster = cluster;
    const cause = options?.cause as { message?: string } | undefined;
    this.role = awsRoleName(options?.role) ?? awsRoleName(cause?.message);
    const role = this.role ? `role "${this.role}"` : "AWS role";
    this.publicMessage =
      `service misconfigured: ${options?.action ?? "access"} for cluster "${cluster}" was denied to the service's ${role}; ` +
      "an operator must fix its IAM permissions or the cluster's access entries";
  }
}

/** A kubeconfig file given with --kubeconfig is missing, unreadable or has no usable context. */
export class KubeconfigFileError extends errorKind("validation", "KubeconfigInvalid") {}

/** A hint, not an inventory: a registry of hundreds of clusters stays a one-line error. */
function listSome(names: string[], max = 10): string {
  const shown = names.slice(0, max).join(", ");
  return names.length > max ? `${shown}, and ${names.length - max} more` : shown;
}
