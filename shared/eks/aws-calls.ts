/**
 * The two AWS calls behind a kubeconfig: sts:AssumeRole (per-cluster role) and
 * eks:DescribeCluster (endpoint + CA). Each call is bounded by a deadline and every
 * failure becomes a cluster DomainError that names the cluster, the call and the
 * endpoint, so "unreachable" and "denied" read differently to an operator.
 */

import type {
  DescribeClusterCommand as DescribeClusterCommandClass,
  DescribeClusterCommandOutput,
} from "@aws-sdk/client-eks";
import type { AssumeRoleCommand as AssumeRoleCommandClass, AssumeRoleCommandOutput } from "@aws-sdk/client-sts";
import { awsErrorKind } from "../aws/error-names.ts";
import type { ClusterEntry } from "../clusters/connector.ts";
import { ClusterAccessDeniedError, ClusterNotActiveError, ClusterUnreachableError } from "../clusters/errors.ts";
import { awsRoleName, isDomainError, withoutAwsDetails } from "../errors.ts";
import { type BackoffPolicy, backoffDelay, sleep } from "../retry.ts";
import type { AwsCredentials } from "./token.ts";

export type CredentialsProvider = () => Promise<AwsCredentials>;
export type DescribeClusterCommand = DescribeClusterCommandClass;
export type AssumeRoleCommand = AssumeRoleCommandClass;

/** The one method the connector needs from an EKS client: a stub only has to answer this. */
export interface EksClientLike {
  send(command: DescribeClusterCommand, options?: { abortSignal?: AbortSignal }): Promise<DescribeClusterCommandOutput>;
}
export interface StsClientLike {
  send(command: AssumeRoleCommand, options?: { abortSignal?: AbortSignal }): Promise<AssumeRoleCommandOutput>;
}
export type EksClientFactory = (entry: ClusterEntry, credentials: CredentialsProvider) => EksClientLike;
export type StsClientFactory = (entry: ClusterEntry, credentials: CredentialsProvider) => StsClientLike;

/** Endpoint + CA of a usable cluster, as DescribeCluster gave them. */
export interface ClusterFacts {
  name: string;
  /** https://… with no trailing slash. */
  endpoint: string;
  /** Base64 of the PEM CA bundle, passed unchanged to client-node's caData. */
  caData: string;
  status: string;
  version?: string;
  arn?: string;
}

/** Session name shown in CloudTrail and in the access entry's {{SessionName}}. */
export const ROLE_SESSION_NAME = "helm-status-lambda";
/** Statuses whose API server answers: UPDATING is a version/config update of a live cluster. */
const USABLE_STATUSES = new Set(["ACTIVE", "UPDATING"]);

/**
 * SDK clients that give up quickly: one attempt each (the retries are callFor's, the shared policy: the SDK's
 * own on top would multiply the calls a throttled EKS gets), short socket timeouts, so a wrong or private
 * endpoint fails within the caller's deadline instead of the SDK's minutes.
 */
export function sdkClientConfig(entry: ClusterEntry, endpoint: string | undefined, requestTimeoutMs: number) {
  return {
    region: entry.region,
    endpoint,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: Math.min(requestTimeoutMs, 3000), requestTimeout: requestTimeoutMs },
  };
}

// The SDK clients are imported on first use: the `token` exec plugin never needs EKS,
// and needs STS only for a cluster with a role, so it does not pay for loading them.
export function defaultEksClientFactory(requestTimeoutMs: number): EksClientFactory {
  return (entry, credentials) =>
    loadedOnFirstSend(async () => {
      const { EKSClient } = await import("@aws-sdk/client-eks");
      return new EKSClient({ ...sdkClientConfig(entry, entry.eksEndpoint, requestTimeoutMs), credentials });
    });
}

export function defaultStsClientFactory(requestTimeoutMs: number): StsClientFactory {
  return (entry, credentials) =>
    loadedOnFirstSend(async () => {
      const { STSClient } = await import("@aws-sdk/client-sts");
      return new STSClient({ ...sdkClientConfig(entry, entry.stsEndpoint, requestTimeoutMs), credentials });
    });
}

/** A client whose `load` (the SDK module's import and the client's construction) runs on the first send, once. */
function loadedOnFirstSend<Client extends { send(command: never, options?: never): Promise<unknown> }>(
  load: () => Promise<Client>,
): Pick<Client, "send"> {
  let client: Promise<Client> | undefined;
  return {
    send: ((command: never, options?: never) => {
      client ??= load();
      return client.then((loaded) => loaded.send(command, options));
    }) as Client["send"],
  };
}

/** EKS and STS throttling (DescribeCluster has no published rate; AssumeRole throttles per account). */
export function isThrottled(error: unknown): boolean {
  const e = error as { message?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return (
    awsErrorKind(error) === "throttled" ||
    e?.$metadata?.httpStatusCode === 429 ||
    /^Rate exceeded/.test(e?.message ?? "")
  );
}

/** A failure worth another attempt: throttling, AWS's own 5xx, a connection reset mid-call (not a refused one). */
function retryable(error: unknown): boolean {
  const e = error as { $retryable?: unknown; $metadata?: { httpStatusCode?: number }; code?: string } | undefined;
  const status = e?.$metadata?.httpStatusCode;
  return (
    isThrottled(error) || Boolean(e?.$retryable) || (status !== undefined && status >= 500) || e?.code === "ECONNRESET"
  );
}

/**
 * A throttled or transient failure is retried with the shared policy's backoff (shared/retry.ts), within the
 * call's own deadline: the wait is this cluster's alone (the connector shares a refresh per cluster, never
 * across clusters). At most 3 calls (the SDK's clients make one attempt each).
 */
const AWS_CALL_RETRY: Required<Omit<BackoffPolicy, "random">> & { maxAttempts: number } = {
  maxAttempts: 3,
  baseMs: 200,
  capMs: 2_000,
};

/** One AWS call for `entry` within `timeoutMs`; its failure becomes the cluster area's error naming `action` and `where`. */
async function callFor<T>(
  entry: ClusterEntry,
  action: string,
  where: string,
  timeoutMs: number,
  call: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(deadline);
    } catch (error) {
      const wait = backoffDelay(attempt, AWS_CALL_RETRY);
      if (!retryable(error) || attempt >= AWS_CALL_RETRY.maxAttempts || deadline.aborted) {
        throw toClusterError(entry, action, where, timeoutMs, error);
      }
      await sleep(wait, deadline);
    }
  }
}

export async function describeCluster(
  entry: ClusterEntry,
  client: EksClientLike,
  timeoutMs: number,
): Promise<ClusterFacts> {
  const where = entry.eksEndpoint ?? `https://eks.${entry.region}.amazonaws.com`;
  const { DescribeClusterCommand } = await import("@aws-sdk/client-eks");
  const output = await callFor(entry, "DescribeCluster", where, timeoutMs, (abortSignal) =>
    client.send(new DescribeClusterCommand({ name: entry.name }), { abortSignal }),
  );
  const cluster = output.cluster;
  const status = cluster?.status ?? "UNKNOWN";
  if (!USABLE_STATUSES.has(status)) throw new ClusterNotActiveError(entry.name, status);
  const endpoint = cluster?.endpoint?.replace(/\/+$/, "");
  const caData = cluster?.certificateAuthority?.data;
  if (!endpoint || !caData) {
    throw new ClusterUnreachableError(
      entry.name,
      `DescribeCluster for cluster "${entry.name}" returned no ${endpoint ? "certificate authority" : "endpoint"}`,
    );
  }
  // A plain-http API server would carry the bearer token unencrypted and unverified.
  if (!endpoint.startsWith("https://")) {
    throw new ClusterUnreachableError(entry.name, `cluster "${entry.name}" has a non-https endpoint ${endpoint}`);
  }
  return { name: entry.name, endpoint, caData, status, version: cluster?.version, arn: cluster?.arn };
}

export async function assumeRole(
  entry: ClusterEntry & { roleArn: string },
  client: StsClientLike,
  timeoutMs: number,
): Promise<AwsCredentials> {
  const where = entry.stsEndpoint ?? `https://sts.${entry.region}.amazonaws.com`;
  const { AssumeRoleCommand } = await import("@aws-sdk/client-sts");
  const output = await callFor(entry, `AssumeRole ${entry.roleArn}`, where, timeoutMs, (abortSignal) =>
    client.send(
      new AssumeRoleCommand({
        RoleArn: entry.roleArn,
        RoleSessionName: ROLE_SESSION_NAME,
        ExternalId: entry.externalId,
      }),
      { abortSignal },
    ),
  );
  const issued = output.Credentials;
  if (!issued?.AccessKeyId || !issued.SecretAccessKey || !issued.SessionToken) {
    throw new ClusterAccessDeniedError(entry.name, `AssumeRole ${entry.roleArn} returned no credentials`, {
      action: publicAction(entry, `AssumeRole ${entry.roleArn}`),
    });
  }
  return {
    accessKeyId: issued.AccessKeyId,
    secretAccessKey: issued.SecretAccessKey,
    sessionToken: issued.SessionToken,
    expiration: issued.Expiration ? new Date(issued.Expiration) : undefined,
  };
}

const DENIED = new Set([
  "AccessDenied",
  "AccessDeniedException",
  "UnrecognizedClientException",
  "InvalidClientTokenId",
  "ExpiredToken",
  "ExpiredTokenException",
  "SignatureDoesNotMatch",
  "InvalidSignatureException",
  "IncompleteSignature",
  "MissingAuthenticationToken",
  "NotAuthorizedException",
  "CredentialsProviderError",
]);
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** The refused call as a caller of the API may read it: role names, no ARNs. */
function publicAction(entry: ClusterEntry, call: string): string {
  return call.startsWith("AssumeRole") ? `AssumeRole of role "${awsRoleName(entry.roleArn) ?? "?"}"` : call;
}

/** Classifies an SDK failure; the original error stays reachable as `cause`. */
export function toClusterError(entry: ClusterEntry, call: string, where: string, timeoutMs: number, error: unknown) {
  // Already classified (e.g. the credentials provider that the SDK client called failed).
  if (isDomainError(error)) return error;
  const e = error as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const cluster = entry.name;
  const detail = `${e.name ?? "Error"}: ${String(e.message ?? error).split("\n")[0]}`;
  if (e.name === "CredentialsProviderError") {
    return new ClusterAccessDeniedError(cluster, `${call} for cluster "${cluster}": no AWS credentials (${detail})`, {
      cause: error,
      action: `${publicAction(entry, call)} (no AWS credentials)`,
    });
  }
  const status = e.$metadata?.httpStatusCode;
  if (DENIED.has(e.name ?? "") || status === 401 || status === 403) {
    return new ClusterAccessDeniedError(cluster, `${call} for cluster "${cluster}" was denied: ${detail}`, {
      cause: error,
      action: publicAction(entry, call),
      // DescribeCluster runs as the cluster's role when it has one; AssumeRole as the function's own role,
      // which AWS's message names.
      role: call === "DescribeCluster" ? entry.roleArn : undefined,
    });
  }
  if (e.name === "ResourceNotFoundException") {
    return new ClusterUnreachableError(
      cluster,
      `cluster "${cluster}" does not exist in EKS region ${entry.region} (${call} at ${where}: ${detail})`,
      { cause: error, publicMessage: `cluster "${cluster}" does not exist in EKS region ${entry.region}` },
    );
  }
  if (e.name === "AbortError" || e.name === "TimeoutError" || e.code === "ETIMEDOUT") {
    return new ClusterUnreachableError(
      cluster,
      `${call} for cluster "${cluster}": ${where} did not answer within ${timeoutMs} ms`,
      { cause: error, publicMessage: `${call} for cluster "${cluster}": AWS did not answer within ${timeoutMs} ms` },
    );
  }
  const code = e.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  const reason = code && NETWORK_CODES.has(code) ? code : detail;
  return new ClusterUnreachableError(cluster, `${call} for cluster "${cluster}": cannot reach ${where} (${reason})`, {
    cause: error,
    publicMessage: `${call} for cluster "${cluster}": cannot reach AWS (${withoutAwsDetails(reason)})`,
  });
}
