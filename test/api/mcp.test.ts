/**
 * The MCP tools (functions/api/mcp/) driven by the SDK's real Client: over streamable HTTP against the API on
 * the local server (127.0.0.1, DynamoDB Local, the simulated EKS with the demo seeded), and on the dashboard's
 * mount with the claims API Gateway's JWT authorizer passes (real v2 events), where a viewer's grants narrow
 * every tool.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import { MCP_TOOLS } from "../../functions/api/mcp/server.ts";
import { DEMO_CLUSTERS } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { observe, recordAudited, run } from "../history/fixtures.ts";
import { makeRelease } from "../store/fixtures.ts";
import { CLI } from "../support/cli.ts";
import {
  httpApiEvent,
  lambdaContext,
  RecordingLogger,
  RecordingMetrics,
  signedTokenEvent,
  testApiHandler,
  unreachedClusters,
} from "./support.ts";

const DEMO_API = { cluster: "demo-eu", namespace: "shop", name: "api" };
const hasJava = spawnSync("java", ["-version"]).status === 0;
/** The demo's Secret value (base64 of "demo-password"), which no answer may carry in either form. */
const SECRET_VALUES = ["ZGVtby1wYXNzd29yZA==", "demo-password"];

async function connect(url: string, fetch?: typeof globalThis.fetch): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : undefined));
  return client;
}

/** The audit run id of a time (whole minutes, as the planner's). */
const runAt = (minutesAgo: number) =>
  new Date(Math.floor(Date.now() / 60_000 - minutesAgo) * 60_000)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("POST /mcp over HTTP on 127.0.0.1 (DynamoDB Local, the simulated EKS, the demo)", {
  skip: !hasJava && "no java for DynamoDB Local",
}, () => {
  let dynamo: DynamoDbLocal;
  let sim: SimulatedEks;
  let server: LocalServer;
  let client: Client;

  before(async () => {
    [dynamo, sim] = await Promise.all([
      startDynamoDbLocal(),
      startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })) }),
    ]);
    const env = {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
      RELEASES_TABLE: "mcp-test",
      SNAPSHOTS_TABLE: "mcp-test-snapshots",
      CLUSTERS: JSON.stringify(sim.registryEntries()),
    };
    const dynamoClient = new DynamoDBClient({
      region: "us-east-1",
      endpoint: dynamo.endpoint,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
    });
    await ensureReleasesTable(dynamoClient, { tableName: "mcp-test", region: "us-east-1", endpoint: dynamo.endpoint });
    await ensureSnapshotsTable(dynamoClient, {
      tableName: env.SNAPSHOTS_TABLE,
      region: "us-east-1",
      endpoint: dynamo.endpoint,
    });
    dynamoClient.destroy();
    // The SDK's credential chain (the sim's keys), as the Lambda's role would give them.
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
    });
    const deps = apiDepsFromEnv(env, {
      telemetry: { logger: new RecordingLogger(), metrics: new RecordingMetrics() },
    });
    await seedDemo(deps.store, sim);
    // The audits' history of the demo's api (DynamoDB Local): crash-looping 20 minutes ago, then fixed.
    for (const [minutesAgo, podHealth] of [
      [20, "Failed"],
      [15, "Current"],
      [10, "Current"],
    ] as const) {
      await recordAudited(deps.historyStores!, observe(DEMO_API, runAt(minutesAgo), { podHealth }));
    }
    server = await startLocalServer({ handler: createApiHandler(deps), port: 0 });
    client = await connect(`${server.url}/mcp`);
  });

  after(async () => {
    await client?.close();
    await Promise.allSettled([server?.close(), sim?.stop(), dynamo?.stop()]);
  });

  test("tools/list: every tool, read-only, with input and output schemas from the API's rules", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      MCP_TOOLS.map((t) => t.name),
    );
    assert.equal(tools.length, 11);
    for (const tool of tools) {
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      assert.equal(tool.annotations?.destructiveHint, false, tool.name);
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, tool.name);
      assert.equal(tool.outputSchema?.type, "object", tool.name);
    }
    const status = tools.find((t) => t.name === "release_status")!;
    const properties = status.inputSchema.properties as Record<string, { pattern?: string; maxLength?: number }>;
    assert.deepEqual(status.inputSchema.required, ["cluster", "namespace", "name"]);
    assert.equal(properties.cluster.maxLength, 100);
    assert.equal(properties.name.maxLength, 53);
    assert.ok(properties.namespace.pattern);
  });

  test("release_status on the demo: Helm's text with HEALTH and WHY, the document as structuredContent", async () => {
    const result = await call(client, "release_status", { cluster: "demo-eu", namespace: "shop", name: "api" });
    assert.equal(result.isError, undefined, textOf(result));
    const text = textOf(result);
    assert.match(text, /^NAME: api$/m);
    assert.match(text, /^HEALTH: /m);
    assert.match(text, /^==> WHY\n.*\n.*container api CrashLoopBackOff/m, "the cause of the crash-looping pod");
    const document = result.structuredContent as { name: string; health: { overall: string }; causes?: unknown[] };
    assert.equal(document.name, "api");
    assert.notEqual(document.health.overall, "Current");
    assert.ok((document.causes?.length ?? 0) > 0);
  });

  test("the stored releases: helm list, history, manifest (the Secret redacted), clusters", async () => {
    const clusters = await call(client, "list_clusters");
    assert.deepEqual(
      (clusters.structuredContent as { clusters: { name: string }[] }).clusters.map((c) => c.name),
      ["demo-eu", "demo-us"],
    );
    const list = await call(client, "list_releases", { cluster: "demo-eu", deployed: true });
    assert.match(textOf(list), /^NAME\s+NAMESPACE\s+REVISION/);
    assert.deepEqual((list.structuredContent as { releases: { name: string }[] }).releases.map((r) => r.name).sort(), [
      "api",
      "web",
    ]);
    const history = await call(client, "release_history", { cluster: "demo-eu", namespace: "shop", name: "web" });
    assert.match(textOf(history), /^REVISION\s+UPDATED/);
    const web = { cluster: "demo-eu", namespace: "shop", name: "web" };
    const answers = [await call(client, "release_manifest", web), await call(client, "release_status", web)];
    assert.match(textOf(answers[0]), /kind: Secret/);
    for (const answer of answers) {
      const everything = JSON.stringify(answer);
      for (const secret of SECRET_VALUES) assert.ok(!everything.includes(secret), "no Secret value in any result");
    }
  });

  test("bad input is a tool error naming the parameter, in the validator's words", async () => {
    const bad = await call(client, "release_status", { cluster: "demo eu!", namespace: "shop", name: "api" });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /invalid cluster name .* at cluster/);
    const type = await call(client, "release_history", {
      cluster: "demo-eu",
      namespace: "shop",
      name: "api",
      max: "x",
    });
    assert.equal(type.isError, true);
    assert.match(textOf(type), /max/);
    const unknownArgument = await call(client, "list_clusters", { cluster: "demo-eu" });
    assert.equal(unknownArgument.isError, true);
    assert.match(textOf(unknownArgument), /cluster/);
    const missing = await call(client, "release_status", { cluster: "demo-eu", namespace: "shop", name: "nope" });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /^ReleaseNotFound: /);
    for (const [args, message] of [
      [{ since: 42 }, /since/],
      [{ since: "yesterday" }, /^InvalidHistoryQuery: since "yesterday" is not a time/],
      [{ since: "200d" }, /longer than 92 days/],
      [{ until: "2h", since: "1h" }, /is not before until/],
      [{ name: "Api!" }, /release name is invalid: Api! at name/],
      [{ revision: 2 }, /revision/],
    ] as const) {
      const wrong = await call(client, "release_timeline", { ...DEMO_API, ...args });
      assert.equal(wrong.isError, true, JSON.stringify(args));
      assert.match(textOf(wrong), message, JSON.stringify(args));
    }
  });

  test("release_timeline on the demo: the audits' stripes and changes, as the dashboard's timeline route", async () => {
    const result = await call(client, "release_timeline", { ...DEMO_API, since: "1h" });
    assert.equal(result.isError, undefined, textOf(result));
    const timeline = result.structuredContent as {
      release: object;
      stripes: { health: string; snapshotId: string }[];
      events: { kind: string; text: string }[];
    };
    assert.deepEqual(timeline.release, DEMO_API);
    assert.deepEqual(
      timeline.stripes.map((stripe) => stripe.health),
      ["Failed", "Current"],
    );
    assert.ok(timeline.events.some((event) => event.kind === "health"));
    assert.deepEqual(JSON.parse(textOf(result)), timeline, "the text is the document (the route has no text form)");
    const route = await fetch(`${server.url}/clusters/demo-eu/namespaces/shop/releases/api/timeline?since=1h`);
    const routeTimeline = (await route.json()) as typeof timeline;
    assert.deepEqual(routeTimeline.stripes, timeline.stripes, "the same use case as GET .../timeline");
    const fleet = await call(client, "fleet_health");
    assert.deepEqual(
      (fleet.structuredContent as { releases: { release: object }[] }).releases.map((r) => r.release),
      [DEMO_API],
    );
  });

  test("read-only is enforced when a tool is called: any other name is an error, nothing runs", async () => {
    for (const name of ["sync_now", "import_release", "delete_release", "helm_uninstall", "__proto__", "constructor"]) {
      const result = await call(client, name, { cluster: "demo-eu" });
      assert.equal(result.isError, true, name);
      // Object's own keys are no tools either ("disabled" from the SDK's lookup): never run.
      assert.match(textOf(result), /^MCP error -32602: Tool \S+ (not found|disabled)$/, name);
    }
  });

  test("stdio through the CLI: `mcp --endpoint` proxies to /mcp, the same tools and answers", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--endpoint", server.url, "--timeout", "30"],
      env: { ...process.env, HELM_STATUS_CONFIG: "/nonexistent/config.yaml" } as Record<string, string>,
      stderr: "pipe",
    });
    const stdio = new Client({ name: "mcp-stdio-test", version: "1.0.0" });
    await stdio.connect(transport);
    try {
      assert.equal((await stdio.listTools()).tools.length, MCP_TOOLS.length);
      const status = await call(stdio, "release_status", { cluster: "demo-eu", namespace: "shop", name: "api" });
      assert.equal(status.isError, undefined, textOf(status));
      assert.match(textOf(status), /^HEALTH: Failed/m);
      assert.match(textOf(status), /^==> WHY$/m);
      const unknown = await call(stdio, "sync_now");
      assert.equal(unknown.isError, true);
    } finally {
      await stdio.close();
    }
  });

  test("the transport's edges: a batch is a 400, a stream (GET) a 405, huge arguments a 413", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const batch = await fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify([message]) });
    assert.equal(batch.status, 400);
    assert.match(await batch.text(), /batches are not supported/);
    const stream = await fetch(`${server.url}/mcp`, { headers: { accept: "text/event-stream" } });
    assert.equal(stream.status, 405);
    const huge = {
      ...message,
      method: "tools/call",
      params: { name: "list_clusters", arguments: { x: "a".repeat(70_000) } },
    };
    const tooLarge = await fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(huge) });
    assert.equal(tooLarge.status, 413);
    const notJson = await fetch(`${server.url}/mcp`, { method: "POST", headers, body: "{" });
    assert.equal(notJson.status, 400);
    const version = { ...headers, "mcp-protocol-version": "1999-01-01" };
    const oldVersion = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: version,
      body: JSON.stringify(message),
    });
    assert.equal(oldVersion.status, 400);
    assert.match(await oldVersion.text(), /Unsupported protocol version/);
    const noAccept = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(message),
    });
    assert.equal(noAccept.status, 406, "JSON and an event stream must both be accepted (the transport's rule)");
  });
});

describe("POST /dashboard/api/mcp: a signed-in viewer's grants narrow every tool", () => {
  const clusters = unreachedClusters([
    { name: "eu", region: "eu-west-1" },
    { name: "us", region: "us-east-1" },
  ]);
  const store = new MemoryReleaseStore();
  const history = memoryHistoryStores();
  const handler = testApiHandler({
    store,
    clusters,
    clock: { now: () => new Date("2026-01-01T00:00:00Z") },
    historyStores: history,
    history: { auditIntervalSeconds: 300, retentionDays: 90 },
    dashboard: {
      auth: "jwt",
      groupsClaim: "groups",
      access: parseViewerAccessMap(
        "groups:\n  - group: us-team\n    clusters: [us]\n  - group: shop-team\n    clusters: [eu]\n    namespaces: [shop]\n",
        "test",
      ),
      assetsDir: "/nonexistent",
      connectOrigins: [],
      oidc: { issuer: "https://issuer.example", clientId: "app", scopes: "openid" },
    },
  });

  /**
   * The SDK client's fetch, as API Gateway would deliver it: a v2 event with a real signed bearer token and the JWT
   * authorizer's claims of it (the groups are read from the token itself, exactly: docs/dashboard.md).
   */
  const asViewer =
    (claims?: Record<string, unknown>): typeof fetch =>
    async (input, init) => {
      const url = new URL(String(input));
      const method = init?.method ?? "GET";
      const options = {
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
        ...(init?.body ? { body: String(init.body) } : {}),
      };
      const event = claims
        ? await signedTokenEvent(method, url.pathname, claims, options)
        : httpApiEvent(method, url.pathname, options);
      if (!claims) (event.requestContext as { authorizer?: unknown }).authorizer = {};
      const result = await handler(event, lambdaContext());
      const status = result.statusCode ?? 200;
      return new Response(status === 202 ? null : (result.body ?? ""), {
        status,
        headers: result.headers as Record<string, string>,
      });
    };

  before(async () => {
    await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop" }));
    await store.putRevision("eu", makeRelease({ name: "db", namespace: "data" }));
    await store.putRevision("us", makeRelease({ name: "db", namespace: "data" }));
    for (const release of [
      { cluster: "eu", namespace: "shop", name: "api" },
      { cluster: "us", namespace: "data", name: "db" },
    ]) {
      for (const minutes of [-20, -15, -10]) {
        const podHealth = minutes === -20 ? "Failed" : "Current";
        await recordAudited(history, observe(release, run(minutes), { podHealth }));
      }
    }
  });

  test("a viewer sees only their clusters and namespaces; the rest is AccessDenied as a tool error", async () => {
    const shopTeam = await connect(
      "https://api.example/dashboard/api/mcp",
      asViewer({ sub: "u1", groups: ["shop-team"] }),
    );
    const clustersSeen = await call(shopTeam, "list_clusters");
    assert.deepEqual(clustersSeen.structuredContent, { clusters: [{ name: "eu", region: "eu-west-1" }] });
    const mine = await call(shopTeam, "release_history", { cluster: "eu", namespace: "shop", name: "api" });
    assert.equal(mine.isError, undefined, textOf(mine));
    for (const [name, args] of [
      ["release_history", { cluster: "eu", namespace: "data", name: "db" }],
      ["release_manifest", { cluster: "eu", namespace: "data", name: "db" }],
      ["release_status", { cluster: "us", namespace: "data", name: "db" }],
      ["status_at", { cluster: "us", namespace: "data", name: "db", at: "2025-12-31T23:45:00Z" }],
      ["release_timeline", { cluster: "us", namespace: "data", name: "db", since: "1h" }],
      ["release_timeline", { cluster: "eu", namespace: "data", name: "db", since: "1h" }],
      ["release_reliability", { cluster: "us", namespace: "data", name: "db" }],
      ["list_releases", { cluster: "us" }],
    ] as const) {
      const denied = await call(shopTeam, name, args);
      assert.equal(denied.isError, true, name);
      assert.match(textOf(denied), /^AccessDenied: not allowed/, name);
    }
    const fleet = (await call(shopTeam, "fleet_health")).structuredContent as { releases: { release: object }[] };
    assert.deepEqual(
      fleet.releases.map((r) => r.release),
      [{ cluster: "eu", namespace: "shop", name: "api" }],
    );
    await shopTeam.close();
  });

  test("the history tools answer on the mount: status_at, release_timeline, snapshot_diff, reliability", async () => {
    const usTeam = await connect("https://api.example/dashboard/api/mcp", asViewer({ sub: "u2", groups: ["us-team"] }));
    const key = { cluster: "us", namespace: "data", name: "db" };
    const at = await call(usTeam, "status_at", { ...key, at: "2025-12-31T23:41:00Z" });
    assert.equal(at.isError, undefined, textOf(at));
    assert.match(textOf(at), /^SNAPSHOT: .*\nNAME: db\nHEALTH: Failed/);
    const diff = await call(usTeam, "snapshot_diff", {
      ...key,
      at: "2025-12-31T23:46:00Z",
      against: "2025-12-31T23:41:00Z",
    });
    assert.equal(diff.isError, undefined, textOf(diff));
    assert.match(textOf(diff), /^-HEALTH: Failed$/m);
    assert.match(textOf(diff), /^\+HEALTH: Current$/m);
    const timeline = await call(usTeam, "release_timeline", { ...key, since: "1h" });
    assert.equal(timeline.isError, undefined, textOf(timeline));
    assert.deepEqual(
      (timeline.structuredContent as { stripes: { health: string }[] }).stripes.map((stripe) => stripe.health),
      ["Failed", "Current"],
    );
    const neither = await call(usTeam, "snapshot_diff", key);
    assert.equal(neither.isError, true);
    assert.match(textOf(neither), /give either at/);
    const reliability = await call(usTeam, "release_reliability", { ...key, since: "1h" });
    assert.equal(reliability.isError, undefined, textOf(reliability));
    assert.match(textOf(reliability), /AVAILABILITY/);
    const fleet = await call(usTeam, "fleet_reliability", { since: "1h" });
    assert.equal(fleet.isError, undefined, textOf(fleet));
    await usTeam.close();
  });

  test("no verified token: the mount answers 401 and the client cannot connect", async () => {
    await assert.rejects(connect("https://api.example/dashboard/api/mcp", asViewer(undefined)), /401|sign in/);
  });
});
