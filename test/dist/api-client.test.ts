/**
 * The CLI's client of the deployed API (`remote …`, and so `helm fleet …`), in process against a loopback
 * server that records what arrives: requests are SigV4-signed for execute-api (the signature recomputed here
 * from what the server received), go only to the configured endpoint (flag, env, config file), never follow a
 * redirect, map the API's error document to one line, and never print the credentials.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { Sha256 } from "@aws-crypto/sha256-js";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { runCli } from "../support/cli.ts";

const KEYS = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const work = mkdtempSync(join(tmpdir(), "api-client-"));
let server: Server;
let endpoint = "";
let received: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
let answer: { status: number; headers?: Record<string, string>; body: string } = { status: 200, body: "" };

before(async () => {
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    res.writeHead(answer.status, { "content-type": "text/plain; charset=utf-8", ...answer.headers });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.close();
  rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
  received = [];
  answer = { status: 200, body: "NAME: api\n" };
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: work,
  AWS_ACCESS_KEY_ID: KEYS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
  AWS_REGION: "eu-west-1",
  HELM_STATUS_ENDPOINT: endpoint,
  ...extra,
});

test("status: a SigV4-signed GET of the text route, printed as it came", async () => {
  answer = { status: 200, body: "NAME: api\nSTATUS: deployed\n" };
  const result = await runCli(["remote", "status", "api", "-n", "shop", "--cluster", "demo-eu"], env());
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "NAME: api\nSTATUS: deployed\n");
  assert.equal(received.length, 1);
  const [request] = received;
  assert.equal(request.url, "/clusters/demo-eu/namespaces/shop/releases/api/status?output=table");
  const authorization = String(request.headers.authorization);
  assert.match(
    authorization,
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, /,
  );

  // The signature is the one AWS computes from what arrived.
  const date = String(request.headers["x-amz-date"]);
  const signer = new SignatureV4({ service: "execute-api", region: "eu-west-1", credentials: KEYS, sha256: Sha256 });
  const url = new URL(request.url, endpoint);
  const expected = await signer.sign(
    new HttpRequest({
      method: "GET",
      protocol: "http:",
      hostname: "127.0.0.1",
      port: Number(url.port || new URL(endpoint).port),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { host: String(request.headers.host), accept: "*/*" },
    }),
    {
      signingDate: new Date(
        `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13)}`,
      ),
    },
  );
  assert.equal(authorization, expected.headers.authorization);
  assert.doesNotMatch(result.stdout + result.stderr, /wJalrXUtnFEMI/);
});

test("the cluster from --kube-context: the EKS ARN of the context's cluster (an alias names only the context)", async () => {
  const kubeconfig = join(work, "names-only.kubeconfig");
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "current-context: prod",
      "contexts:",
      "- name: prod",
      "  context: {cluster: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu', user: me}",
      "- name: arn:aws:eks:us-east-1:123456789012:cluster/demo-us",
      "  context: {cluster: other, user: me}",
    ].join("\n"),
  );
  await runCli(["remote", "history", "web", "-n", "shop"], env({ KUBECONFIG: kubeconfig }));
  await runCli(
    ["remote", "history", "web"],
    env({
      KUBECONFIG: kubeconfig,
      HELM_KUBECONTEXT: "arn:aws:eks:us-east-1:123456789012:cluster/demo-us",
      HELM_NAMESPACE: "team",
    }),
  );
  assert.deepEqual(
    received.map((r) => r.url),
    [
      "/clusters/prod-eu/namespaces/shop/releases/web/history?output=table",
      "/clusters/demo-us/namespaces/team/releases/web/history?output=table",
    ],
  );
  const unknown = await runCli(["remote", "status", "web", "--kube-context", "nope"], env({ KUBECONFIG: kubeconfig }));
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /kube context "nope" is not in .*names-only\.kubeconfig \(contexts: prod, arn:/);
});

test("the endpoint: flag, then HELM_STATUS_ENDPOINT, then the config file; nothing is sent without one", async () => {
  const none = await runCli(["remote", "status", "api", "--cluster", "c"], env({ HELM_STATUS_ENDPOINT: "" }));
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /^Error: which API\? pass --endpoint URL, set HELM_STATUS_ENDPOINT, or write "endpoint: URL" to /,
  );

  const config = join(work, "config.yaml");
  writeFileSync(config, `endpoint: ${endpoint}/prod\n`);
  const fromFile = await runCli(
    ["remote", "list", "--cluster", "c", "-A"],
    env({ HELM_STATUS_ENDPOINT: "", HELM_STATUS_CONFIG: config }),
  );
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(received.at(-1)?.url, "/prod/clusters/c/releases?output=table");

  writeFileSync(config, "endpoint: https://x.example\nsecret: 1\n");
  const badFile = await runCli(
    ["remote", "list", "--cluster", "c"],
    env({ HELM_STATUS_ENDPOINT: "", HELM_STATUS_CONFIG: config }),
  );
  assert.match(badFile.stderr, /unknown key "secret" \(known: endpoint, region\)/);

  for (const bad of [
    "http://api.example.com",
    "https://user:pw@api.example.com",
    "https://api.example.com/?x=1",
    "ftp://x",
  ]) {
    const refused = await runCli(["remote", "status", "api", "--cluster", "c", "--endpoint", bad], env());
    assert.equal(refused.code, 2, bad);
    assert.match(refused.stderr, /^Error: --endpoint: /);
  }
  assert.equal(received.length, 1, "only the config file's request was sent");
});

test("a redirect is not followed; the API's error document is one line with its message", async () => {
  answer = { status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" }, body: "" };
  const redirected = await runCli(["remote", "status", "api", "--cluster", "c"], env());
  assert.equal(redirected.code, 1);
  assert.match(redirected.stderr, /answered 302 \(a redirect, not followed\)/);
  assert.equal(received.length, 1);

  answer = { status: 404, body: JSON.stringify({ error: { code: "ReleaseNotFound", message: "release: not found" } }) };
  const missing = await runCli(["remote", "status", "api", "--cluster", "c"], env());
  assert.deepEqual([missing.code, missing.stderr], [1, "Error: release: not found\n"]);

  answer = {
    status: 400,
    body: JSON.stringify({ error: { code: "InvalidParameter", message: 'invalid revision "4294967296"' } }),
  };
  // An int flag in Go's syntax (0x…) is sent as its decimal value; the API's refusal is printed as it is.
  const bad = await runCli(["remote", "status", "api", "--cluster", "c", "--revision", "0x100000000"], env());
  assert.deepEqual([bad.code, bad.stderr], [2, 'Error: invalid revision "4294967296"\n']);
  assert.equal(new URL(received.at(-1)?.url ?? "", "http://x").searchParams.get("revision"), "4294967296");

  answer = { status: 403, body: JSON.stringify({ message: "User: arn:aws:iam::1:user/x is not authorized" }) };
  const denied = await runCli(["remote", "status", "api", "--cluster", "c"], env());
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /^Error: the API answered 403: /);
});

test("a non-loopback endpoint needs credentials; a loopback one is asked unsigned without them", async () => {
  const unsigned = await runCli(["remote", "status", "api", "--cluster", "c"], {
    HOME: work,
    HELM_STATUS_ENDPOINT: endpoint,
    AWS_CONFIG_FILE: join(work, "none"),
    AWS_SHARED_CREDENTIALS_FILE: join(work, "none"),
  });
  assert.equal(unsigned.code, 0, unsigned.stderr);
  assert.equal(received.at(-1)?.headers.authorization, undefined);
});
