/**
 * `npm start`'s server against a web page's tricks (issue #38 item 5): a Host that is not this machine (DNS
 * rebinding), a write a browser sends from another site, an import in a type a form can send, a dashboard mount
 * wider than AWS's, a token issued in the future; and nosniff on every answer (the function's, the static files,
 * config.json, the server's own refusals). Real HTTP on loopback, the API handler on memory stores.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { exportJWK, SignJWT } from "jose";
import { localJwtAuthorizer } from "../../local/jwt-authorizer.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { testApiHandler } from "../api/support.ts";
import { makeRelease } from "../store/fixtures.ts";

const registryOnly: ClusterConnector = {
  list: () => [{ name: "demo-eu", region: "eu-west-1" }],
  access: async () => assert.fail("no cluster is read"),
  invalidate: () => {},
};
const assets = mkdtempSync(join(tmpdir(), "guard-assets-"));
mkdirSync(join(assets, "assets"));
writeFileSync(join(assets, "index.html"), "<!doctype html><title>helm status</title>");
writeFileSync(join(assets, "assets", "app-ABCD1234.js"), "console.log(1)");

let server: LocalServer;

before(async () => {
  const handler = testApiHandler({
    store: new MemoryReleaseStore(),
    clusters: registryOnly,
    syncState: new MemorySyncStateStore(),
    dashboard: { auth: "off", groupsClaim: "groups", access: { groups: [] }, assetsDir: assets, connectOrigins: [] },
  });
  server = await startLocalServer({ handler, port: 0 });
});

after(() => server.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch would not let a test set Host). */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, method, path, headers, timeout: 10_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer in 10 s")));
    req.on("error", reject);
    req.end(body);
  });
}

const importPath = "/clusters/demo-eu/releases/import";
const secret = () => JSON.stringify(encodeHelmSecret(makeRelease({ name: "api", namespace: "shop" })));

test("a Host that is not this machine is a 421 whatever the method (DNS rebinding); loopback names pass", async () => {
  for (const host of ["evil.example", `evil.example:${server.port}`, "127.0.0.1.evil.example", "10.0.0.7"]) {
    const answer = await send("GET", "/healthz", { host });
    assert.equal(answer.status, 421, host);
    assert.equal(JSON.parse(answer.body).error.code, "MisdirectedRequest");
    assert.match(JSON.parse(answer.body).error.message, /not this machine/);
    assert.equal(answer.headers["x-content-type-options"], "nosniff");
  }
  assert.equal(
    (await send("POST", importPath, { host: "evil.example", "content-type": "application/json" }, secret())).status,
    421,
  );
  for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`, "localhost"]) {
    assert.equal((await send("GET", "/healthz", { host })).status, 200, host);
  }
});

test("a write from another site is a 403 (Origin or Sec-Fetch-Site); the same write from curl or this origin passes", async () => {
  const json = { "content-type": "application/json" };
  const foreign: Record<string, string>[] = [
    { origin: "https://evil.example" },
    { origin: "null" },
    { origin: "http://localhost:1" },
    { "sec-fetch-site": "cross-site" },
    { "sec-fetch-site": "same-site" },
  ];
  for (const headers of foreign) {
    for (const path of [importPath, "/clusters/demo-eu/sync"]) {
      const answer = await send("POST", path, { ...json, ...headers }, path === importPath ? secret() : undefined);
      assert.equal(answer.status, 403, `${path} ${JSON.stringify(headers)}`);
      assert.equal(JSON.parse(answer.body).error.code, "CrossSiteRequest");
      assert.equal(answer.headers["x-content-type-options"], "nosniff");
    }
  }
  // A cross-site GET is not refused: reads answer the page nothing it can read (no CORS headers).
  assert.equal((await send("GET", "/healthz", { origin: "https://evil.example" })).status, 200);
  assert.equal((await send("POST", importPath, json, secret())).status, 200);
  const own = { ...json, origin: `http://127.0.0.1:${server.port}`, "sec-fetch-site": "same-origin" };
  assert.equal((await send("POST", importPath, own, secret())).status, 200);
});

test("an import in a type a form or a no-preflight fetch can send is a 415; JSON and YAML are read", async () => {
  for (const type of [
    "text/plain",
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
  ]) {
    const answer = await send("POST", importPath, { "content-type": type }, secret());
    assert.equal(answer.status, 415, type);
    assert.equal(JSON.parse(answer.body).error.code, "UnsupportedMediaType");
  }
  assert.equal((await send("POST", importPath, { "content-type": "application/json" }, secret())).status, 200);
  assert.equal((await send("POST", importPath, { "content-type": "application/yaml" }, secret())).status, 200);
});

test("the dashboard's mount serves what AWS mounts, not the sync state or the IAM-only routes", async () => {
  assert.equal((await send("GET", "/dashboard/api/clusters")).status, 200);
  for (const path of [
    "/dashboard/api/clusters/demo-eu/sync",
    "/dashboard/api/clusters/demo-eu/releases",
    "/dashboard/api/clusters/demo-eu/namespaces/shop/releases",
    "/dashboard/api/openapi.json",
  ]) {
    const answer = await send("GET", path);
    assert.equal(answer.status, 404, path);
    assert.equal(JSON.parse(answer.body).error.code, "RouteNotFound");
  }
});

test("X-Content-Type-Options: nosniff on every answer: API, errors, config.json, static files, the server's own", async () => {
  for (const path of [
    "/healthz",
    "/clusters",
    "/nowhere",
    "/dashboard/config.json",
    "/dashboard/",
    "/dashboard/assets/app-ABCD1234.js",
    "/dashboard/api/clusters",
  ]) {
    const answer = await send("GET", path);
    assert.equal(answer.headers["x-content-type-options"], "nosniff", `${path} (${answer.status})`);
  }
  const tooLarge = await send("POST", importPath, { "content-length": String(11 * 1024 * 1024) });
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.headers["x-content-type-options"], "nosniff");
});

test("the stand-in JWT authorizer refuses a token issued in the future, as API Gateway does (iat before now)", async () => {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const issuerServer = createServer((req, res) => {
    const base = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration")
      res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
    else res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, "127.0.0.1", resolve));
  try {
    const issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const now = Date.parse("2026-12-04T12:00:00Z");
    const authorizer = localJwtAuthorizer(
      { DASHBOARD_OIDC_ISSUER: issuer, DASHBOARD_OIDC_CLIENT_ID: "app" },
      () => now,
    );
    const token = (iat: number) =>
      new SignJWT({ sub: "ana", aud: "app" })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(issuer)
        .setIssuedAt(Math.floor(iat / 1000))
        .setExpirationTime(Math.floor((now + 3_600_000) / 1000))
        .sign(privateKey);
    assert.ok(await authorizer.verify(`Bearer ${await token(now - 60_000)}`), "issued a minute ago");
    assert.ok(await authorizer.verify(`Bearer ${await token(now)}`), "issued now");
    assert.equal(await authorizer.verify(`Bearer ${await token(now + 86_400_000)}`), undefined, "a day ahead");
    assert.equal(await authorizer.verify(`Bearer ${await token(now + 5_000)}`), undefined, "seconds ahead");
  } finally {
    issuerServer.close();
  }
});

test("a server started closed answers 503 with Retry-After (even /healthz) until it is opened", async () => {
  const closed = await startLocalServer({
    handler: async () => ({ statusCode: 200, body: "ok" }),
    port: 0,
    closed: true,
  });
  try {
    const get = (path: string) => fetch(`${closed.url}${path}`, { signal: AbortSignal.timeout(10_000) });
    for (const path of ["/healthz", "/chatops/slack/commands"]) {
      const early = await get(path);
      assert.equal(early.status, 503, path);
      assert.equal(early.headers.get("retry-after"), "1");
      assert.equal(((await early.json()) as { error: { code: string } }).error.code, "Starting");
    }
    closed.open();
    assert.equal((await get("/healthz")).status, 200);
  } finally {
    await closed.close();
  }
});
