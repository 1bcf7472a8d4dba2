/**
 * A real OpenID Provider on loopback for the dashboard's sign-in tests: npm `oidc-provider` (a certified
 * implementation) with one public client (authorization code + PKCE, no secret), JWT access tokens for the
 * dashboard's API (RS256, audience = the client id, as API Gateway's authorizer checks) carrying the person's
 * `groups`, and its development login form (any password; the login names the account).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  close(): Promise<void>;
}

export async function startOidcProvider(options: {
  redirectUri: string;
  /** login name -> groups */
  accounts: Record<string, string[]>;
}): Promise<TestOidcProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "helm-status-dashboard";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        token_endpoint_auth_method: "none",
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email"], profile: ["name"] },
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => ({ sub: id, email: `${id}@example.test`, name: id }) };
    },
    features: {
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => "https://helm-status.example.test/dashboard/api",
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: "openid",
          audience: clientId,
          accessTokenFormat: "jwt",
          accessTokenTTL: 600,
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    extraTokenClaims: async (_ctx: unknown, token: unknown) => {
      const account = (token as { accountId?: string }).accountId;
      return account ? { groups: options.accounts[account] ?? [] } : {};
    },
    pkce: { required: () => true },
    cookies: { keys: ["test-only-cookie-key"] },
  });
  provider.proxy = false;
  server.on("request", provider.callback());
  return {
    issuer,
    clientId,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
