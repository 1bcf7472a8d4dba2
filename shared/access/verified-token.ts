/**
 * The claims of the bearer token API Gateway's JWT authorizer already verified, with their JSON types.
 *
 * The authorizer hands the function its claims as strings, a list flattened to one string (`[a b]`): a group named
 * `contractors platform-admins` and the two groups `contractors`, `platform-admins` then read the same, so no
 * membership can be decided from it (issue #38 item 4). The token itself is in the request (the authorizer's
 * identity source, `Authorization: Bearer <JWT>`), its signature already checked: its payload segment is decoded
 * here (no second verification: API Gateway refused the request otherwise), and it must be the very token the
 * authorizer verified (the identifying claims it passed on are equal), else nothing is trusted.
 */
import { isRecord } from "../input/values.ts";

/** Claims that identify one token; each one present on either side must be equal on both. */
const IDENTIFYING = ["iss", "sub", "iat", "exp", "jti", "client_id"] as const;
/** A JWT as API Gateway's identity source carries it (`Bearer` prefix optional, as there). */
const BEARER = /^(?:Bearer +)?([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/;
/** Tokens longer than this are not read (API Gateway's header limit is ~10 KB). */
const MAX_TOKEN_CHARS = 16 * 1024;

/**
 * The payload of the token in `authorization` when it is the one whose claims the authorizer passed on
 * (`authorizerClaims`: requestContext.authorizer.jwt.claims); undefined when there is none, it does not decode, or
 * it is another token.
 */
export function verifiedTokenPayload(
  authorization: string | undefined,
  authorizerClaims: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (typeof authorization !== "string" || authorization.length > MAX_TOKEN_CHARS) return undefined;
  const segment = BEARER.exec(authorization.trim())?.[2];
  if (!segment) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isRecord(payload)) return undefined;
  for (const name of IDENTIFYING) {
    const mine = payload[name];
    const theirs = authorizerClaims[name];
    if (mine === undefined && theirs === undefined) continue;
    if (mine === undefined || theirs === undefined || claimText(mine) !== String(theirs)) return undefined;
  }
  return payload;
}

/** A claim as the authorizer writes it: a string as is, anything else as its JSON text. */
function claimText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
