/**
 * The EKS bearer token: a presigned STS GetCallerIdentity URL whose signature covers
 * the `x-k8s-aws-id: <cluster>` header, so the API server's authenticator can replay it
 * to STS and learn who we are. Signing is local CPU work (no network, no permission).
 * Facts: reference eks-auth.md §1-§3.
 */
import { systemClock } from "../ports.ts";

/**
 * The signing libraries, loaded on the first signing: @smithy/signature-v4 brings its own copy of @smithy/core
 * (≈ 135 KB of the Lambda bundle besides the runtime's), which a cold start of a route that reads no cluster
 * should not evaluate.
 */
let signing:
  | Promise<
      [
        typeof import("@aws-crypto/sha256-js"),
        typeof import("@smithy/protocol-http"),
        typeof import("@smithy/signature-v4"),
      ]
    >
  | undefined;
/** The signing libraries, loaded once on first use (also by the CLI's API client, bin/lib/api-client.ts). */
export function signingLibraries() {
  signing ??= Promise.all([
    import("@aws-crypto/sha256-js"),
    import("@smithy/protocol-http"),
    import("@smithy/signature-v4"),
  ]);
  return signing;
}

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; a token is never reported valid past it. */
  expiration?: Date;
}

export interface EksToken {
  /** `k8s-aws-v1.` + unpadded base64url of the presigned URL. Secret: never log it. */
  token: string;
  /** X-Amz-Date: STS honours the URL until 15 minutes after it. */
  signedAt: Date;
  /** signedAt + 14 minutes: what `aws eks get-token` reports, a minute before STS stops honouring it. */
  expiresAt: Date;
}

export const TOKEN_PREFIX = "k8s-aws-v1.";
export const CLUSTER_ID_HEADER = "x-k8s-aws-id";
/** The value clients send; STS ignores it, old authenticators refused anything above 60. */
const PRESIGN_EXPIRES_SECONDS = 60;
export const TOKEN_REPORTED_LIFETIME_MS = 14 * 60_000;

/**
 * botocore's parameter order. Order matters neither to STS nor to the authenticator,
 * but it does to a byte-for-byte comparison with `aws eks get-token`; smithy's own
 * order puts X-Amz-Security-Token right after Version.
 */
const QUERY_ORDER = [
  "Action",
  "Version",
  "X-Amz-Algorithm",
  "X-Amz-Credential",
  "X-Amz-Date",
  "X-Amz-Expires",
  "X-Amz-SignedHeaders",
  "X-Amz-Security-Token",
  "X-Amz-Signature",
];

/** The regional STS host the authenticator accepts for `region` (aws-cn has its own domain). */
export function stsHostForRegion(region: string): string {
  if (region.startsWith("cn-")) return `sts.${region}.amazonaws.com.cn`;
  return `sts.${region}.amazonaws.com`;
}

/**
 * Presigns the token for `clusterName` (the cluster's name, or its id for an Outposts
 * local cluster). Always the regional host, also when AssumeRole went to an
 * `stsEndpoint` override: the API server only accepts real STS hosts.
 */
export async function createEksToken(input: {
  clusterName: string;
  region: string;
  credentials: AwsCredentials;
  /** The connector's clock's now (injectable for tests and for comparison with the AWS CLI). */
  signingDate?: Date;
}): Promise<EksToken> {
  const { clusterName, region, credentials } = input;
  // SigV4 has one-second resolution; dropping milliseconds keeps signedAt equal to X-Amz-Date.
  const signedAt = new Date(Math.floor((input.signingDate ?? systemClock.now()).getTime() / 1000) * 1000);
  const host = stsHostForRegion(region);
  const [{ Sha256 }, { HttpRequest }, { SignatureV4 }] = await signingLibraries();
  const signer = new SignatureV4({
    service: "sts",
    region,
    sha256: Sha256,
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      sessionToken: credentials.sessionToken,
    },
  });
  const request = new HttpRequest({
    method: "GET",
    protocol: "https:",
    hostname: host,
    path: "/",
    headers: { host, [CLUSTER_ID_HEADER]: clusterName },
    query: { Action: "GetCallerIdentity", Version: "2011-06-15" },
  });
  const signed = await signer.presign(request, { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: signedAt });
  const url = `https://${host}/?${serializeQuery(signed.query as Record<string, string>)}`;
  return {
    token: TOKEN_PREFIX + Buffer.from(url, "utf8").toString("base64url"),
    signedAt,
    expiresAt: new Date(signedAt.getTime() + TOKEN_REPORTED_LIFETIME_MS),
  };
}

function serializeQuery(query: Record<string, string>): string {
  const keys = Object.keys(query);
  const known = QUERY_ORDER.filter((key) => key in query);
  const rest = keys.filter((key) => !QUERY_ORDER.includes(key)).sort();
  return [...known, ...rest].map((key) => `${encodeRfc3986(key)}=${encodeRfc3986(query[key])}`).join("&");
}

/** SigV4's encoding: encodeURIComponent leaves !'()* alone, botocore does not. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The presigned URL inside a token, for tests and diagnostics (the URL is as secret as the token). */
export function decodeEksToken(token: string): URL {
  if (!token.startsWith(TOKEN_PREFIX)) throw new Error(`not an EKS token: missing the ${TOKEN_PREFIX} prefix`);
  return new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url").toString("utf8"));
}
