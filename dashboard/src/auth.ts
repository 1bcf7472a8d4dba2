/**
 * Sign-in: OpenID Connect authorization code flow with PKCE (RFC 7636), done by oauth4webapi (a maintained,
 * certified client library; no crypto of our own). The access token lives in this module's memory only,
 * never in localStorage or a cookie: a reload signs in again (silently while the IdP's session lasts).
 * sessionStorage holds only the one-time PKCE verifier, state and the page to come back to, for the redirect.
 */
import * as oauth from "oauth4webapi";

export interface AuthConfig {
  mode: "off" | "oidc";
  issuer?: string;
  clientId?: string;
  scopes?: string;
}

const PENDING = "helm-status-dashboard.sign-in";

let config: AuthConfig = { mode: "off" };
let server: oauth.AuthorizationServer | undefined;
let token: { value: string; expiresAt: number } | undefined;
let person: string | undefined;

export function accessToken(): string | undefined {
  return token?.value;
}

export function signedInAs(): string | undefined {
  return person;
}

export function authMode(): AuthConfig["mode"] {
  return config.mode;
}

function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}

/** Plain http only to a loopback issuer (a local test provider); oauth4webapi refuses it otherwise. */
function insecureOk(): { [oauth.allowInsecureRequests]?: boolean } {
  const url = new URL(config.issuer!);
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)
    ? { [oauth.allowInsecureRequests]: true }
    : {};
}

async function discover(): Promise<oauth.AuthorizationServer> {
  if (server) return server;
  const issuer = new URL(config.issuer!);
  const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...insecureOk() });
  server = await oauth.processDiscoveryResponse(issuer, response);
  return server;
}

/** On load: finish a sign-in that came back with ?code=, else start one. Resolves once a token is held. */
export async function initAuth(auth: AuthConfig): Promise<void> {
  config = auth;
  if (auth.mode === "off") return;
  const url = new URL(location.href);
  const pending = sessionStorage.getItem(PENDING);
  if ((url.searchParams.has("code") || url.searchParams.has("error")) && pending) {
    sessionStorage.removeItem(PENDING);
    const { verifier, state, returnTo } = JSON.parse(pending) as { verifier: string; state: string; returnTo: string };
    const as = await discover();
    const client: oauth.Client = { client_id: auth.clientId! };
    const params = oauth.validateAuthResponse(as, client, url, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri(),
      verifier,
      insecureOk(),
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    token = { value: result.access_token, expiresAt: Date.now() + (result.expires_in ?? 300) * 1000 };
    const claims = oauth.getValidatedIdTokenClaims(result);
    person = String(claims?.email ?? claims?.preferred_username ?? claims?.sub ?? "");
    // The code is spent: take it out of the address bar and history, back to the page asked for.
    history.replaceState(null, "", `${redirectUri()}${returnTo}`);
    return;
  }
  await signIn();
}

/** Leaves for the identity provider's sign-in page; comes back to the current page. */
export async function signIn(): Promise<never> {
  const as = await discover();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo: location.hash }));
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", config.clientId!);
  url.searchParams.set("redirect_uri", redirectUri());
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", config.scopes ?? "openid");
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  location.assign(url.href);
  return new Promise<never>(() => {});
}

export async function signOut(): Promise<void> {
  token = undefined;
  person = undefined;
  const as = await discover();
  if (as.end_session_endpoint) {
    const url = new URL(as.end_session_endpoint);
    url.searchParams.set("client_id", config.clientId!);
    url.searchParams.set("post_logout_redirect_uri", redirectUri());
    location.assign(url.href);
  } else {
    location.reload();
  }
}
