/**
 * `npm start`'s stand-in for API Gateway's JWT authorizer (HTTP API, `type: jwt`): for the dashboard's API
 * routes it takes `Authorization: Bearer <JWT>`, checks it as AWS does (signature against the issuer's JWKS
 * from its discovery document, RSA keys; `iss` equal to the issuer; `aud` or else `client_id` one of the
 * audiences; `exp` after now, `nbf` and `iat` before it, no skew allowed) with `jose`, and hands the claims to the function the way AWS does
 * (`requestContext.authorizer.jwt.claims`, every value a string, a list flattened to `[a b]`). A refused
 * token gets AWS's own answer: 401 `{"message":"Unauthorized"}`.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";

export interface LocalJwtAuthorizer {
  issuer: string;
  audience: string[];
  /** Requests under this path need a token (the dashboard's API mount). */
  pathPrefix: string;
  /** The claims as API Gateway passes them, or undefined for a missing or refused token. */
  verify(authorization: string | undefined): Promise<{ claims: Record<string, string>; scopes: string[] } | undefined>;
}

/** `now`: the clock tokens are checked by (epoch ms; a test's own). */
export function localJwtAuthorizer(
  env: Record<string, string | undefined>,
  now: () => number = Date.now,
): LocalJwtAuthorizer {
  const issuer = env.DASHBOARD_OIDC_ISSUER?.trim();
  const clientId = env.DASHBOARD_OIDC_CLIENT_ID?.trim();
  if (!issuer || !clientId) {
    throw new Error("DASHBOARD_AUTH=jwt locally needs DASHBOARD_OIDC_ISSUER and DASHBOARD_OIDC_CLIENT_ID");
  }
  const audience = (env.DASHBOARD_OIDC_AUDIENCE?.trim() || clientId).split(",").map((a) => a.trim());
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const jwks = async () => {
    if (keys) return keys;
    const response = await fetch(
      new URL(".well-known/openid-configuration", issuer.endsWith("/") ? issuer : `${issuer}/`),
      {
        signal: AbortSignal.timeout(5000),
      },
    );
    if (!response.ok) throw new Error(`the issuer's discovery document answered ${response.status}`);
    const { jwks_uri } = (await response.json()) as { jwks_uri?: string };
    if (!jwks_uri) throw new Error("the issuer's discovery document has no jwks_uri");
    keys = createRemoteJWKSet(new URL(jwks_uri), { timeoutDuration: 5000 });
    return keys;
  };
  return {
    issuer,
    audience,
    pathPrefix: "/dashboard/api/",
    async verify(authorization) {
      const token = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(authorization ?? "")?.[1];
      if (!token) return undefined;
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await jwks(), {
          issuer,
          algorithms: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
          requiredClaims: ["exp", "iat"],
          currentDate: new Date(now()),
        }));
      } catch {
        return undefined;
      }
      // API Gateway: `iat` must be before the current time (jose checks it is a number, not when; it took a
      // token issued a day ahead). `exp` and `nbf` are jose's own checks, with no tolerance, as AWS's.
      if (typeof payload.iat !== "number" || payload.iat > Math.floor(now() / 1000)) return undefined;
      const audiences = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      const matched =
        audiences.length > 0
          ? audiences.some((a) => audience.includes(a))
          : typeof payload.client_id === "string" && audience.includes(payload.client_id);
      if (!matched) return undefined;
      return apiGatewayClaims(payload);
    },
  };
}

/**
 * A verified token's payload as API Gateway's JWT authorizer hands it to the function: every claim a string, a
 * list flattened to `[a b]` (so the function reads groups from the token itself: shared/access/verified-token.ts).
 */
export function apiGatewayClaims(payload: Record<string, unknown>): {
  claims: Record<string, string>;
  scopes: string[];
} {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    claims[name] = Array.isArray(value)
      ? `[${value.join(" ")}]`
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  }
  const scopes = typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [];
  return { claims, scopes };
}
