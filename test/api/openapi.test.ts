/** The OpenAPI document kept in the repo describes exactly the router's routes (and serverless.yml's). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { createRoutes } from "../../functions/api/handler.ts";
import openapi from "../../functions/api/openapi.json" with { type: "json" };
import { statusDocument } from "../../shared/render/status/json.ts";
import { capture, demoLiveObjects, demoRelease, reportFromCapture } from "../status/captures.ts";
import { testApiDeps, unreachedClusters } from "./support.ts";

const routes = createRoutes(testApiDeps({ clusters: unreachedClusters([]) }));
const routerKeys = routes.map((route) => `${route.method} ${route.path}`).sort();

const documented = Object.entries(openapi.paths as Record<string, Record<string, unknown>>)
  .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
  .sort();

test("the OpenAPI document is 3.1 and lists exactly the router's routes", () => {
  assert.match(openapi.openapi, /^3\.1\./);
  assert.deepEqual(documented, routerKeys);
});

test("every path parameter in a template is declared, and only those", () => {
  const parameters = (openapi.components as { parameters: Record<string, { name: string; in: string }> }).parameters;
  for (const [path, operations] of Object.entries(
    openapi.paths as Record<string, Record<string, { parameters?: { $ref?: string; name?: string; in?: string }[] }>>,
  )) {
    const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    for (const [method, operation] of Object.entries(operations)) {
      const declared = (operation.parameters ?? [])
        .map((p) => (p.$ref ? parameters[p.$ref.split("/").at(-1)!] : p))
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      assert.deepEqual(declared, inTemplate, `${method} ${path}`);
    }
  }
});

const DASHBOARD_PUBLIC = ["GET /dashboard", "GET /dashboard/config.json", "GET /dashboard/{proxy+}"];
const DASHBOARD_API = "/dashboard/api";

function deployedEvents() {
  const config = parse(readFileSync(new URL("../../serverless.yml", import.meta.url), "utf8"), {
    customTags: [{ tag: "!Ref", resolve: (value: string) => ({ Ref: value }) }],
  }) as {
    functions: {
      api: { events: { httpApi: { method: string; path: string; authorizer?: { type?: string; name?: string } } }[] };
    };
  };
  return config.functions.api.events.map((e) => e.httpApi);
}

test("serverless.yml deploys exactly the router's routes (and the dashboard's mount of its GET routes)", () => {
  const events = deployedEvents();
  const direct = events.filter((e) => !e.path.startsWith(`${DASHBOARD_API}/`)).map((e) => `${e.method} ${e.path}`);
  // API Gateway's /dashboard/{proxy+} also serves /dashboard/config.json.
  assert.deepEqual(
    direct.sort(),
    routerKeys.filter((key) => key !== "GET /dashboard/config.json"),
  );
  const mounted = events.filter((e) => e.path.startsWith(`${DASHBOARD_API}/`));
  assert.ok(mounted.length >= 10, "the dashboard's API routes are deployed");
  for (const e of mounted) {
    // Its one POST is MCP's tool calls, every tool a read (functions/api/mcp/).
    const method = e.path === `${DASHBOARD_API}/mcp` ? "POST" : "GET";
    assert.equal(e.method, method, `${e.path}: the dashboard only reads`);
    assert.ok(
      routerKeys.includes(`${method} ${e.path.slice(DASHBOARD_API.length)}`),
      `${e.path} mounts a router route`,
    );
  }
});

test("the dashboard's mount serves exactly serverless.yml's /dashboard/api routes (npm start included)", async () => {
  const { DASHBOARD_API_ROUTES } = await import("../../functions/api/viewer.ts");
  const deployed = deployedEvents()
    .filter((e) => e.path.startsWith(`${DASHBOARD_API}/`))
    .map((e) => e.path.slice(DASHBOARD_API.length))
    .sort();
  assert.deepEqual([...DASHBOARD_API_ROUTES].sort(), deployed);
});

test("the document's security matches the deployment: IAM (SigV4) on every API route, the JWT authorizer on the dashboard's mount, only the dashboard's static files public", () => {
  for (const httpApi of deployedEvents()) {
    const key = `${httpApi.method} ${httpApi.path}`;
    if (httpApi.path.startsWith(`${DASHBOARD_API}/`)) assert.equal(httpApi.authorizer?.name, "dashboardJwt", key);
    else if (DASHBOARD_PUBLIC.includes(key)) assert.equal(httpApi.authorizer, undefined, key);
    else assert.equal(httpApi.authorizer?.type, "aws_iam", `serverless.yml ${key}`);
  }
  assert.deepEqual(openapi.security, [{ sigv4: [] }]);
  for (const [path, operations] of Object.entries(openapi.paths as Record<string, Record<string, object>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const key = `${method.toUpperCase()} ${path}`;
      if (DASHBOARD_PUBLIC.includes(key)) assert.deepEqual((operation as { security?: unknown }).security, [], key);
      else assert.ok(!("security" in operation), `${key} overrides the document's IAM requirement`);
    }
  }
});

test("GET /openapi.json serves the document", async () => {
  const route = routes.find((r) => r.path === "/openapi.json")!;
  const { httpApiEvent, lambdaContext } = await import("./support.ts");
  const result = await route.handler(httpApiEvent("GET", "/openapi.json"), lambdaContext());
  assert.deepEqual(JSON.parse(result.body!), openapi);
});

test("the list routes document every query parameter they accept (helm list's flags), and only those", async () => {
  const { LIST_QUERY_PARAMS } = await import("../../functions/api/list-query.ts");
  const parameters = (openapi.components as { parameters: Record<string, { name: string; in: string }> }).parameters;
  for (const path of ["/clusters/{cluster}/releases", "/clusters/{cluster}/namespaces/{namespace}/releases"]) {
    const operation = (openapi.paths as unknown as Record<string, { get: { parameters: { $ref?: string }[] } }>)[path]
      .get;
    const query = operation.parameters
      .map((p) => (p.$ref ? parameters[p.$ref.split("/").at(-1)!] : (p as { name: string; in: string })))
      .filter((p) => p.in === "query")
      .map((p) => p.name)
      .sort();
    assert.deepEqual(query, [...LIST_QUERY_PARAMS].sort(), path);
  }
});

test("the StatusDocument schema names every field the status's JSON carries, groups, causes, events, outsideAccess and auditLogging included, and requires those always there", () => {
  const text = capture("helm-status-output-demo.txt");
  const report = reportFromCapture(text, { release: demoRelease(), live: demoLiveObjects(), relatedRows: [[]] });
  report.drift = { checked: 1, fields: [], conflicts: 0, benign: 0 };
  report.freshness = { state: "matches", storedRevision: 2, clusterRevision: 2, revision: 2, message: "m" };
  report.causes = [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "api",
      health: "Failed",
      pods: [],
      podsWithProblems: 0,
      text: "t",
    },
  ];
  report.events = { items: [] };
  report.outsideAccess = { resources: 1 };
  report.auditLogging = "audit logs are off for demo-us";
  const document = statusDocument(report);
  const schema = (
    openapi.components.schemas as unknown as Record<
      string,
      { required: string[]; properties: Record<string, { properties?: Record<string, unknown> }> }
    >
  ).StatusDocument;
  assert.deepEqual(Object.keys(document).sort(), Object.keys(schema.properties).sort());
  for (const field of schema.required) assert.ok(field in document, field);
  assert.deepEqual(
    Object.keys(document.info).filter((key) => !(key in schema.properties.info.properties!)),
    [],
  );
  assert.ok(document.groups.length > 0);
});
