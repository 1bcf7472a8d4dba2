import type { SimIam, SimPrincipal } from "./iam.ts";
import { parseAmzDate, SignatureRejected, verifyPresignedUrl } from "./sigv4.ts";

const PREFIX = "k8s-aws-v1.";
const MAX_TOKEN_BYTES = 4096;
const URL_VALIDITY_MS = 15 * 60_000;
const ALLOWED_PARAMS = new Set([
  "action",
  "version",
  "x-amz-algorithm",
  "x-amz-credential",
  "x-amz-date",
  "x-amz-expires",
  "x-amz-security-token",
  "x-amz-signature",
  "x-amz-signedheaders",
]);
const REGION_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** A token the API server refuses (the reason goes to the request log, the client sees a plain 401). */
export class TokenRejected extends Error {}

/**
 * The checks of aws-iam-authenticator's tokenVerifier.Verify, in its order (eks-auth.md §4),
 * then the SigV4 signature recomputed against the simulated IAM instead of replaying the
 * URL to STS.
 */
export async function verifyEksToken(
  iam: SimIam,
  token: string,
  clusterName: string,
  now: Date,
): Promise<SimPrincipal> {
  if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) throw new TokenRejected("token is too large");
  if (!token.startsWith(PREFIX)) throw new TokenRejected(`token is missing expected "${PREFIX}" prefix`);
  const encoded = token.slice(PREFIX.length);
  // Go's base64.RawURLEncoding refuses padding, the standard alphabet and impossible lengths;
  // Buffer's decoder silently accepts all three (and stray trailing bits), so the payload must
  // be exactly the unpadded base64url encoding of the bytes it decodes to.
  const decoded = /^[A-Za-z0-9_-]+$/.test(encoded) ? Buffer.from(encoded, "base64url") : undefined;
  if (!decoded || decoded.toString("base64url") !== encoded) {
    throw new TokenRejected("token is not valid unpadded base64url");
  }
  // Go's url.Parse refuses control characters, while the WHATWG parser strips leading and trailing
  // controls and spaces and drops tabs and newlines anywhere: a valid token with "AA" appended
  // (a NUL byte) would parse to the very URL that was signed. A genuine presigned URL is
  // percent-encoded printable ASCII, so any other byte means the token was tampered with.
  if (decoded.some((byte) => byte <= 0x20 || byte >= 0x7f)) {
    throw new TokenRejected("pre-signed URL contains a control character, a space or a non-ASCII byte");
  }
  let url: URL;
  try {
    url = new URL(decoded.toString("latin1"));
  } catch {
    throw new TokenRejected("token does not decode to a URL");
  }
  if (url.protocol !== "https:") throw new TokenRejected(`unexpected scheme "${url.protocol}" in pre-signed URL`);
  if (!isAllowedStsHost(url.host)) throw new TokenRejected(`unexpected hostname "${url.host}" in pre-signed URL`);
  if (url.pathname !== "/") throw new TokenRejected("unexpected path in pre-signed URL");
  const seen = new Set<string>();
  for (const key of url.searchParams.keys()) {
    const lower = key.toLowerCase();
    if (seen.has(lower)) throw new TokenRejected(`query parameter "${key}" appears more than once`);
    seen.add(lower);
    if (!ALLOWED_PARAMS.has(lower)) throw new TokenRejected(`non-whitelisted query parameter "${key}"`);
  }
  const param = (name: string) => {
    for (const [key, value] of url.searchParams) if (key.toLowerCase() === name) return value;
    return undefined;
  };
  if (param("action") !== "GetCallerIdentity") throw new TokenRejected("unexpected action parameter in pre-signed URL");
  const signedHeaders = (param("x-amz-signedheaders") ?? "").toLowerCase().split(";");
  if (!signedHeaders.includes("x-k8s-aws-id")) {
    throw new TokenRejected("client did not sign the x-k8s-aws-id header in the pre-signed URL");
  }
  const expires = Number(param("x-amz-expires"));
  if (!/^\d+$/.test(param("x-amz-expires") ?? "") || expires < 0 || expires > 900) {
    throw new TokenRejected("X-Amz-Expires must be an integer between 0 and 900");
  }
  const date = parseAmzDate(param("x-amz-date"));
  if (!date) throw new TokenRejected("X-Amz-Date is missing or malformed");
  if (now.getTime() > date.getTime() + URL_VALIDITY_MS) {
    throw new TokenRejected("X-Amz-Date parameter is expired (15 minute expiration)");
  }
  try {
    const { principal } = await verifyPresignedUrl(iam, url, clusterName);
    return principal;
  } catch (error) {
    if (error instanceof SignatureRejected) throw new TokenRejected(`STS rejected the URL: ${error.message}`);
    throw error;
  }
}

function isAllowedStsHost(host: string): boolean {
  if (host === "sts.amazonaws.com") return true;
  const labels = host.split(".");
  if (labels.length < 4) return false;
  const [service, region, ...domainLabels] = labels;
  const domain = domainLabels.join(".");
  if (service !== "sts" && service !== "sts-fips") return false;
  if (!REGION_LABEL.test(region)) return false;
  const china = region.startsWith("cn-");
  const domains = china ? ["amazonaws.com.cn", "api.amazonwebservices.com.cn"] : ["amazonaws.com", "api.aws"];
  return domains.includes(domain);
}
