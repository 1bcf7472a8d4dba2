import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { Sha256 } from "@aws-crypto/sha256-js";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import type { SimCredentials, SimIam, SimPrincipal } from "./iam.ts";

/** Why a signature was refused; the servers turn it into their own error shapes. */
export class SignatureRejected extends Error {
  readonly awsCode: string;
  constructor(awsCode: string, message: string) {
    super(message);
    this.awsCode = awsCode;
  }
}

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export function parseAmzDate(value: string | undefined): Date | undefined {
  const m = value ? AMZ_DATE.exec(value) : null;
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

/**
 * Verifies a request signed with an `Authorization: AWS4-HMAC-SHA256 ...` header (what
 * the AWS SDK sends to EKS and STS) by re-signing the same bytes with the known secret
 * via @smithy/signature-v4 and comparing in constant time.
 */
export async function verifyHeaderSignature(
  iam: SimIam,
  request: {
    method: string;
    path: string;
    query: Record<string, string>;
    headers: Record<string, string>;
    body: string;
  },
  now: Date,
): Promise<SimPrincipal> {
  const auth = request.headers.authorization ?? "";
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/,]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m)
    throw new SignatureRejected("MissingAuthenticationToken", "Request is missing a valid SigV4 Authorization header");
  const [, accessKeyId, shortDate, region, service, signedHeaderList, signature] = m;
  const record = iam.lookupKey(accessKeyId);
  if (!record)
    throw new SignatureRejected("InvalidClientTokenId", "The security token included in the request is invalid.");
  const date = parseAmzDate(request.headers["x-amz-date"]);
  if (!date || !request.headers["x-amz-date"].startsWith(shortDate)) {
    throw new SignatureRejected("IncompleteSignature", "x-amz-date is missing or does not match the credential scope");
  }
  if (Math.abs(now.getTime() - date.getTime()) > 15 * 60_000) {
    throw new SignatureRejected(
      "SignatureDoesNotMatch",
      "Signature expired: the request time is more than 15 minutes away",
    );
  }
  if (record.credentials.sessionToken && request.headers["x-amz-security-token"] !== record.credentials.sessionToken) {
    throw new SignatureRejected("InvalidClientTokenId", "The security token included in the request is invalid.");
  }
  const signedHeaders = signedHeaderList.split(";");
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = request.headers[name] ?? "";
  const signer = new SignatureV4({
    service,
    region,
    sha256: Sha256,
    credentials: record.credentials,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: "https:",
      hostname: headers.host ?? "localhost",
      path: safeDecodePath(request.path),
      query: request.query,
      headers,
      body: request.body,
    }),
    { signingDate: date, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? "";
  if (!sameHex(expected, signature)) {
    throw new SignatureRejected(
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided.",
    );
  }
  return record.principal;
}

/**
 * Recomputes the signature of a presigned STS GetCallerIdentity URL the way STS would,
 * with `x-k8s-aws-id` set to the verifying cluster's own name (so a token minted for
 * another cluster fails, as with aws-iam-authenticator).
 */
export async function verifyPresignedUrl(
  iam: SimIam,
  url: URL,
  clusterName: string,
): Promise<{ principal: SimPrincipal; credentials: SimCredentials }> {
  const params = Object.fromEntries(url.searchParams.entries());
  const credential = params["X-Amz-Credential"] ?? "";
  const [accessKeyId, shortDate, region, service, terminator] = credential.split("/");
  if (!accessKeyId || !shortDate || !region || service !== "sts" || terminator !== "aws4_request") {
    throw new SignatureRejected("IncompleteSignature", "X-Amz-Credential is malformed");
  }
  const record = iam.lookupKey(accessKeyId);
  if (!record) throw new SignatureRejected("InvalidClientTokenId", `unknown or expired access key ${accessKeyId}`);
  const date = parseAmzDate(params["X-Amz-Date"]);
  if (!date || !params["X-Amz-Date"].startsWith(shortDate)) {
    throw new SignatureRejected("IncompleteSignature", "X-Amz-Date does not match the credential scope");
  }
  if ((params["X-Amz-Security-Token"] ?? undefined) !== record.credentials.sessionToken) {
    throw new SignatureRejected("InvalidClientTokenId", "the session token does not belong to the access key");
  }
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (!key.toLowerCase().startsWith("x-amz-")) query[key] = value;
  }
  const signedHeaders = (params["X-Amz-SignedHeaders"] ?? "").split(";");
  const headers: Record<string, string> = { host: url.host };
  if (signedHeaders.includes("x-k8s-aws-id")) headers["x-k8s-aws-id"] = clusterName;
  const signer = new SignatureV4({ service: "sts", region, sha256: Sha256, credentials: record.credentials });
  const presigned = await signer.presign(
    new HttpRequest({ method: "GET", protocol: "https:", hostname: url.hostname, path: url.pathname, query, headers }),
    { signingDate: date, expiresIn: Number(params["X-Amz-Expires"] ?? "60"), signableHeaders: new Set(signedHeaders) },
  );
  const expected = String(presigned.query?.["X-Amz-Signature"] ?? "");
  if (!sameHex(expected, params["X-Amz-Signature"] ?? "")) {
    throw new SignatureRejected("SignatureDoesNotMatch", "the presigned URL's signature does not match");
  }
  return { principal: record.principal, credentials: record.credentials };
}

/**
 * Mints an EKS token exactly as `aws eks get-token` does (eks-auth.md §1.1, same parameter
 * order), synchronously with node:crypto so kubeconfig() can stay a plain function.
 * The tests check it against @smithy/signature-v4's presign.
 */
export function mintEksToken(
  credentials: SimCredentials,
  clusterName: string,
  region: string,
  signingDate: Date,
): string {
  const host = `sts.${region}.amazonaws.com`;
  const longDate = signingDate
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const shortDate = longDate.slice(0, 8);
  const scope = `${shortDate}/${region}/sts/aws4_request`;
  const params: Array<[string, string]> = [
    ["Action", "GetCallerIdentity"],
    ["Version", "2011-06-15"],
    ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
    ["X-Amz-Credential", `${credentials.accessKeyId}/${scope}`],
    ["X-Amz-Date", longDate],
    ["X-Amz-Expires", "60"],
    ["X-Amz-SignedHeaders", "host;x-k8s-aws-id"],
  ];
  if (credentials.sessionToken) params.push(["X-Amz-Security-Token", credentials.sessionToken]);
  const encode = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = [...params]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .join("&");
  const canonicalRequest = [
    "GET",
    "/",
    canonicalQuery,
    `host:${host}\nx-k8s-aws-id:${clusterName}\n`,
    "host;x-k8s-aws-id",
    createHash("sha256").update("").digest("hex"),
  ].join("\n");
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    longDate,
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  let key: Buffer = createHmac("sha256", `AWS4${credentials.secretAccessKey}`).update(shortDate).digest();
  for (const part of [region, "sts", "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  const signature = createHmac("sha256", key).update(stringToSign).digest("hex");
  const query = [...params, ["X-Amz-Signature", signature]].map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
  return `k8s-aws-v1.${Buffer.from(`https://${host}/?${query}`).toString("base64url")}`;
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

function safeDecodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
