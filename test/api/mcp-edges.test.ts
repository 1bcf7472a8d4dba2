/**
 * The MCP tools' remaining bad inputs of issue #35, with the SDK's real Client: an OIDC token for another audience
 * on the viewer's mount (npm start's stand-in for API Gateway's JWT authorizer, a loopback issuer), a tool call
 * that would outlast the Lambda (a cluster silent during the TLS handshake: the status answers what it has), and a
 * history tool where no snapshots table is configured (the API's 502 as a tool error).
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { exportJWK, SignJWT } from "jose";
import { ATTACK_RELEASE } from "../../bench/attack-fixtures.ts";
import { type StallServer, stallConnector, startStallServer } from "../../bench/stall-server.ts";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import { localJwtAuthorizer } from "../../local/jwt-authorizer.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { httpApiEvent, lambdaContext, testApiDeps } from "./support.ts";

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/** The Client's fetch as API Gateway delivers to the function (IAM mount), each message with `budgetMs` left. */
function asLambda(handler: ReturnType<typeof createApiHandler>, budgetMs: number): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const event = httpApiEvent(init?.method ?? "GET", url.pathname, {
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      ...(init?.body ? { body: String(init.body) } : {}),
    });
    const result = await handler(event, lambdaContext(budgetMs));
    const status = result.statusCode ?? 200;
    return new Response(status === 202 ? null : (result.body ?? ""), {
      status,
      headers: result.headers as Record<string, string>,
    });
  };
}

async function connect(url: string, options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1]) {
  const client = new Client({ name: "mcp-edges-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), options));
  return client;
}

describe("the viewer's mount behind npm start's JWT authorizer: a token for another audience gets nothing", () => {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  let issuerServer: Server;
  let issuer: string;
  let server: LocalServer;

  before(async () => {
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    issuerServer = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/.well-known/openid-configuration") {
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      } else res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => issuerServer.listen(0, "127.0.0.1", resolve));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const env = { DASHBOARD_OIDC_ISSUER: issuer, DASHBOARD_OIDC_CLIENT_ID: "app" };
    const handler = createApiHandler(
      testApiDeps({
        dashboard: {
          auth: "jwt",
          groupsClaim: "groups",
          access: parseViewerAccessMap("groups:\n  - group: eu-team\n    clusters: [eu]\n", "test"),
          assetsDir: "/nonexistent",
          connectOrigins: [],
          oidc: { issuer, clientId: "app", scopes: "openid" },
        },
      }),
    );
    server = await startLocalServer({ handler, port: 0, jwt: localJwtAuthorizer(env) });
  });

  after(async () => {
    await server?.close();
    await new Promise((resolve) => issuerServer?.close(resolve));
  });

  const token = (audience: string) =>
    new SignJWT({ sub: "ana", aud: audience, groups: ["eu-team"] })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(issuer)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 60)
      .setExpirationTime("10m")
      .sign(privateKey);

  test("the token for this dashboard lists its clusters; one for another audience is refused (401)", async () => {
    const mount = `${server.url}/dashboard/api/mcp`;
    const ours = await connect(mount, { requestInit: { headers: { authorization: `Bearer ${await token("app")}` } } });
    const clusters = (await ours.callTool({ name: "list_clusters", arguments: {} })) as CallToolResult;
    assert.deepEqual(clusters.structuredContent, { clusters: [{ name: "eu", region: "eu-west-1" }] });
    await ours.close();
    const theirs = { requestInit: { headers: { authorization: `Bearer ${await token("another-app")}` } } };
    await assert.rejects(connect(mount, theirs), /401|Unauthorized/);
    await assert.rejects(connect(mount, {}), /401|Unauthorized/, "no token at all");
  });
});

describe("a tool call longer than the Lambda's deadline answers what it has, as the status route", () => {
  let stall: StallServer;
  let kube: KubeReader;

  before(async () => {
    stall = await startStallServer("tls");
  });
  after(async () => {
    await kube?.close();
    await stall?.close();
  });

  test("release_status on a cluster silent during the TLS handshake: a partial answer, no error", async () => {
    const store = new MemoryReleaseStore();
    await store.putRevision("silent", ATTACK_RELEASE);
    const connector = stallConnector(stall);
    kube = createKubeReader({ connector });
    const handler = createApiHandler(
      testApiDeps({
        store,
        clusters: connector,
        kube,
        clock: kube.clock,
        settings: apiSettingsFromEnv({ STATUS_DEADLINE_MARGIN_MS: "500" }),
      }),
    );
    const client = await connect("https://api.example/mcp", { fetch: asLambda(handler, 2_000) });
    const key = { cluster: "silent", namespace: ATTACK_RELEASE.namespace, name: ATTACK_RELEASE.name };
    const result = (await client.callTool({ name: "release_status", arguments: key })) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    assert.match(textOf(result), /not read in time/);
    assert.equal((result.structuredContent as { complete: boolean }).complete, false);
    await client.close();
  });
});

test("a history tool without a snapshots table: the API's 502 (SnapshotsNotConfigured) as a tool error", async () => {
  const handler = createApiHandler(testApiDeps());
  const client = await connect("https://api.example/mcp", { fetch: asLambda(handler, 29_000) });
  for (const name of ["release_timeline", "fleet_health"]) {
    const args = name === "fleet_health" ? {} : { cluster: "eu", namespace: "shop", name: "api" };
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(result.isError, true, name);
    assert.match(textOf(result), /^SnapshotsNotConfigured: /, name);
  }
  await client.close();
});
