/**
 * The API as it ships: functions/api/handler.ts bundled with serverless.yml's own esbuild settings, imported in a
 * fresh process and invoked with v2 events. The MCP route loads its SDK with import() (functions/api/mcp/route.ts),
 * which makes esbuild wrap the modules it shares with the rest lazily; tests on the sources cannot see a module
 * left uninitialised there (without serverless.yml's zod/v4-mini alias the config reader failed at every cold start).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { build } from "esbuild";
import { parseDocument } from "yaml";

const ROOT = new URL("../..", import.meta.url).pathname;
/** Inside the repo, so the external @aws-sdk/* resolve from node_modules as the runtime's would. */
const OUT = join(ROOT, ".build", `mcp-bundle-test-${process.pid}`);

interface EsbuildSettings {
  minify?: boolean;
  keepNames?: boolean;
  target?: string;
  exclude?: string[];
  banner?: { js?: string };
  alias?: Record<string, string>;
}

// The child: import the bundle, then three requests through its handler; prints their status codes and bodies.
const CHILD = `
const { handler } = await import("./handler.mjs");
const context = { awsRequestId: "r", functionName: "api", getRemainingTimeInMillis: () => 29000 };
const event = (method, path, body) => ({
  version: "2.0", routeKey: "$default", rawPath: path, rawQueryString: "", isBase64Encoded: false,
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  requestContext: { requestId: "r1", domainName: "x.example", stage: "$default", timeEpoch: Date.now(),
    http: { method, path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "test" } },
  ...(body ? { body: JSON.stringify(body) } : {}),
});
const rpc = (id, method, params) => ({ jsonrpc: "2.0", id, method, params });
const answers = [];
for (const [method, path, body] of [
  ["GET", "/clusters"],
  ["POST", "/mcp", rpc(1, "tools/list", {})],
  ["POST", "/mcp", rpc(2, "tools/call", { name: "list_clusters", arguments: {} })],
]) {
  const result = await handler(event(method, path, body), context);
  answers.push({ status: result.statusCode, body: result.body });
}
process.stdout.write(JSON.stringify(answers));
process.exit(0);
`;

after(() => rmSync(OUT, { recursive: true, force: true }));

test("the bundled API answers its routes and POST /mcp (tools/list, tools/call) after a cold import", async () => {
  const doc = parseDocument(readFileSync(join(ROOT, "serverless.yml"), "utf8"), { logLevel: "silent" });
  const settings = (doc.getIn(["custom", "esbuild"]) as { toJSON(): EsbuildSettings }).toJSON();
  mkdirSync(OUT, { recursive: true });
  const built = await build({
    entryPoints: [join(ROOT, "functions/api/handler.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: settings.target ?? "node24",
    outfile: join(OUT, "handler.mjs"),
    external: settings.exclude ?? ["@aws-sdk/*"],
    minify: settings.minify ?? false,
    keepNames: settings.keepNames ?? false,
    banner: settings.banner?.js ? { js: settings.banner.js } : undefined,
    alias: settings.alias,
    absWorkingDir: ROOT,
    logLevel: "error",
    metafile: true,
  });
  // The SDK's imports the API never runs stay out (serverless.yml's aliases to functions/api/mcp/sdk-unused.ts).
  const unused = Object.keys(built.metafile.inputs).filter((input) =>
    /node_modules\/(ajv|ajv-formats|zod-to-json-schema)\/|node_modules\/zod\/v3\//.test(input),
  );
  assert.deepEqual(unused, [], "no Ajv, zod v3 or zod-to-json-schema in the API bundle");
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", CHILD], {
    cwd: OUT,
    timeout: 60_000,
    // What the handler reads at its first invocation; none of these requests calls AWS.
    env: {
      PATH: process.env.PATH ?? "",
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "example",
      RELEASES_TABLE: "bundle-test",
      CLUSTERS: JSON.stringify([{ name: "eu", region: "eu-west-1" }]),
      POWERTOOLS_LOG_LEVEL: "SILENT",
      POWERTOOLS_METRICS_DISABLED: "true",
    },
  });
  const [clusters, list, call] = JSON.parse(stdout) as { status: number; body: string }[];
  assert.equal(clusters.status, 200, clusters.body);
  assert.equal(list.status, 200, list.body);
  type Listing = { result: { tools: { inputSchema: { properties: object } }[] } };
  const { tools } = (JSON.parse(list.body) as Listing).result;
  assert.equal(tools.length, 11);
  assert.ok(
    tools.every((tool) => tool.inputSchema.properties),
    "every input schema converted by zod itself",
  );
  assert.equal(call.status, 200, call.body);
  const result = (JSON.parse(call.body) as { result: { structuredContent: unknown } }).result;
  assert.deepEqual(result.structuredContent, { clusters: [{ name: "eu", region: "eu-west-1" }] });
});
