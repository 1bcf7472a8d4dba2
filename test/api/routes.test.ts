/**
 * Every route with real API Gateway v2 events against DynamoDB Local and the
 * simulated EKS (both started once for this file), through the local server
 * for a few so the HTTP adapter is covered too.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import { DEMO_CLUSTERS, demoReleases } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type DynamoDbLocal, freeLoopbackPort, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

const hasJava = spawnSync("java", ["-version"]).status === 0;
let dynamo: DynamoDbLocal;
let sim: SimulatedEks;
let server: LocalServer;
let handler: ReturnType<typeof createApiHandler>;
const logger = new RecordingLogger();

before(async () => {
  if (!hasJava) return;
  [dynamo, sim] = await Promise.all([
    startDynamoDbLocal(),
    startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })) }),
  ]);
  const closedPort = await freeLoopbackPort();
  sim.iam.addRole(`arn:aws:iam::${sim.iam.account}:role/helm-status-reader`, { externalId: "right-id" });
  const env = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    RELEASES_TABLE: "routes-test",
    // A third cluster whose EKS endpoint refuses connections: the 502 path, for real.
    CLUSTERS: JSON.stringify([
      ...sim.registryEntries(),
      {
        name: "gone",
        region: "eu-west-1",
        eksEndpoint: `http://127.0.0.1:${closedPort}`,
        stsEndpoint: sim.stsEndpoint,
      },
      // A cluster whose role the service may not assume: the product is misconfigured, the caller is not at fault.
      {
        ...sim.registryEntries()[0],
        name: "locked",
        roleArn: `arn:aws:iam::${sim.iam.account}:role/helm-status-reader`,
        externalId: "wrong-id",
      },
    ]),
  };
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
  });
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: dynamo.endpoint });
  await ensureReleasesTable(client, { tableName: "routes-test", region: "us-east-1", endpoint: dynamo.endpoint });
  client.destroy();
  const deps = apiDepsFromEnv(env, { telemetry: { logger, metrics: new RecordingMetrics() } });
  await seedDemo(deps.store, sim);
  handler = createApiHandler(deps);
  server = await startLocalServer({ handler, port: 0 });
});

after(async () => {
  await Promise.allSettled([server?.close(), sim?.stop(), dynamo?.stop()]);
});

const call = (method: string, target: string, init: Parameters<typeof httpApiEvent>[2] = {}) =>
  handler(httpApiEvent(method, target, init), lambdaContext());
const shop = "/clusters/demo-eu/namespaces/shop/releases";

describe("routes against DynamoDB Local and the simulated EKS", {
  skip: !hasJava && "no java for DynamoDB Local",
}, () => {
  test("GET /healthz and GET /clusters (names and regions only)", async () => {
    assert.equal((await call("GET", "/healthz")).statusCode, 200);
    const clusters = bodyJson(await call("GET", "/clusters")) as { clusters: Record<string, string>[] };
    assert.deepEqual(
      clusters.clusters.map((c) => c.name),
      ["demo-eu", "demo-us", "gone", "locked"],
    );
    assert.deepEqual(Object.keys(clusters.clusters[0]).sort(), ["name", "region"]);
  });

  test("list per cluster and per namespace, ?status=, cursor pagination", async () => {
    const all = bodyJson(await call("GET", "/clusters/demo-eu/releases")) as { releases: { name: string }[] };
    assert.deepEqual(
      all.releases.map((r) => r.name),
      ["api", "web"],
    );
    const ns = bodyJson(await call("GET", `${shop}?status=deployed`)) as { releases: { revision: number }[] };
    assert.equal(ns.releases.length, 2);
    const none = bodyJson(await call("GET", `${shop}?status=failed`)) as { releases: unknown[] };
    assert.deepEqual(none.releases, []);
    const page1 = bodyJson(await call("GET", "/clusters/demo-eu/releases?limit=1")) as {
      releases: { name: string }[];
      cursor: string;
    };
    assert.ok(page1.cursor);
    const page2 = bodyJson(await call("GET", `/clusters/demo-eu/releases?limit=1&cursor=${page1.cursor}`)) as {
      releases: { name: string }[];
      cursor?: string;
    };
    assert.deepEqual([page1.releases[0].name, page2.releases[0].name], ["api", "web"]);
    assert.equal(page2.cursor, undefined);
  });

  test("history with ?max= and a cursor, newest first, no values", async () => {
    const first = await call("GET", `${shop}/web/history?max=2`);
    // helm history's elements (oldest first within the page), the cursor leading to older revisions.
    const page = bodyJson(first) as { history: { revision: number }[]; cursor: string };
    assert.deepEqual(
      page.history.map((r) => r.revision),
      [2, 3],
    );
    const rest = bodyJson(await call("GET", `${shop}/web/history?max=2&cursor=${page.cursor}`)) as {
      history: { revision: number }[];
    };
    assert.deepEqual(
      rest.history.map((r) => r.revision),
      [1],
    );
    assert.doesNotMatch(bodyText(first), /replicaCount/);
  });

  test("manifest of a revision, Secret values redacted", async () => {
    const result = await call("GET", `${shop}/web/revisions/2/manifest`);
    assert.equal(result.statusCode, 200);
    assert.match(bodyText(result), /image: nginx:1\.28/);
    assert.doesNotMatch(bodyText(result), /ZGVtby1wYXNzd29yZA==/);
  });

  test("status: table, JSON and YAML by ?output= and by Accept", async () => {
    const table = await call("GET", `${shop}/api/status?output=table`);
    assert.equal(table.statusCode, 200);
    assert.match(bodyText(table), /CrashLoopBackOff/);
    assert.match(bodyText(table), /==> MISSING[\s\S]*api-config\s+not found/);
    const viaAccept = await call("GET", `${shop}/api/status`, { headers: { accept: "text/plain" } });
    assert.equal(bodyText(viaAccept).split("\n")[0], "NAME: api");
    const byDefault = await call("GET", `${shop}/web/status`, { headers: { accept: "*/*" } });
    assert.match(String(byDefault.headers?.["content-type"]), /^text\/plain/, "like helm status, text by default");
    assert.equal(bodyText(byDefault).split("\n")[0], "NAME: web");
    const json = bodyJson(
      await call("GET", `${shop}/web/status?revision=2`, { headers: { accept: "application/json" } }),
    ) as { version: number; cluster: string };
    assert.equal(json.version, 2);
    assert.equal(json.cluster, "demo-eu");
    const yaml = await call("GET", `${shop}/web/status`, { headers: { accept: "application/yaml" } });
    assert.match(String(yaml.headers?.["content-type"]), /^application\/yaml/);
    assert.match(bodyText(yaml), /^name: web$/m);
    for (const format of ["table", "json", "yaml"]) {
      const text = bodyText(await call("GET", `${shop}/web/status?output=${format}`));
      assert.doesNotMatch(text, /ZGVtby1wYXNzd29yZA==|demo-password/, format);
    }
  });

  test("status: drift unless ?drift=false; a bad value is a 400", async () => {
    const withDrift = bodyJson(await call("GET", `${shop}/web/status?output=json`)) as { drift?: { checked: number } };
    assert.ok(withDrift.drift && withDrift.drift.checked > 0);
    const without = bodyJson(await call("GET", `${shop}/web/status?output=json&drift=false`)) as { drift?: unknown };
    assert.equal(without.drift, undefined);
    const bad = await call("GET", `${shop}/web/status?drift=no`);
    assert.equal(bad.statusCode, 400);
    assert.match(bodyText(bad), /drift/);
  });

  test("status of a release with an uninstalled CRD kind reports it and the rest", async () => {
    const result = await call("GET", "/clusters/demo-us/namespaces/observability/releases/metrics/status?output=table");
    assert.equal(result.statusCode, 200);
    assert.match(bodyText(result), /ServiceMonitor\s+metrics\s+unknown kind/);
    assert.match(bodyText(result), /==> v1\/Deployment/);
  });

  test("unknown revision 404; unreachable cluster 502", async () => {
    const missing = await call("GET", `${shop}/web/status?revision=9`);
    assert.equal(missing.statusCode, 404);
    const gone = await call("POST", "/clusters/gone/releases/import", {
      body: JSON.stringify(encodeHelmSecret(demoReleases()[0].revisions[0])),
    });
    assert.equal(gone.statusCode, 200, "import needs no cluster call");
    const unreachable = await call("GET", "/clusters/gone/namespaces/shop/releases/web/status");
    assert.equal(unreachable.statusCode, 502, bodyText(unreachable));
    assert.match((bodyJson(unreachable) as { error: { message: string } }).error.message, /gone/);
  });

  test("the service's own role refused: 502 service misconfigured naming cluster and role, no AWS text", async () => {
    const imported = await call("POST", "/clusters/locked/releases/import", {
      body: JSON.stringify(encodeHelmSecret(demoReleases()[0].revisions[0])),
    });
    assert.equal(imported.statusCode, 200, bodyText(imported));
    const denied = await call("GET", "/clusters/locked/namespaces/shop/releases/web/status");
    assert.equal(denied.statusCode, 502, bodyText(denied));
    const { error } = bodyJson(denied) as { error: { code: string; message: string } };
    assert.equal(error.code, "ClusterAccessDenied");
    assert.match(error.message, /^service misconfigured: AssumeRole of role "helm-status-reader" for cluster "locked"/);
    assert.doesNotMatch(bodyText(denied), /arn:aws|AccessDenied:|not authorized|\d{12}/);
    // The log keeps AWS's full text for the operator.
    assert.ok(logger.lines.some((line) => /AccessDenied/.test(JSON.stringify(line))));
  });

  test("the deadline passed: a partial 200 report, not a 504", async () => {
    sim.cluster("demo-eu").faults.set({ latencyMs: 2_000 });
    try {
      const event = httpApiEvent("GET", `${shop}/web/status?output=table`);
      const result = await handler(event, lambdaContext(1_700)); // 1.7 s left, 1.5 s margin: a 200 ms budget
      assert.equal(result.statusCode, 200, bodyText(result));
      assert.match(bodyText(result), /not read in time/);
    } finally {
      sim.cluster("demo-eu").faults.clear();
    }
  });

  test("POST import: a List, a base64 body, idempotent re-import, 422 on failures", async () => {
    const [web] = demoReleases();
    const fourth = {
      ...web.revisions[2],
      version: 4,
      info: { ...web.revisions[2].info!, status: "deployed" as const },
    };
    const list = { apiVersion: "v1", kind: "List", items: [encodeHelmSecret(fourth)] };
    const created = await call("POST", "/clusters/demo-eu/releases/import", {
      body: Buffer.from(JSON.stringify(list)).toString("base64"),
      isBase64Encoded: true,
      headers: { "content-type": "application/json" },
    });
    assert.equal(created.statusCode, 200, bodyText(created));
    assert.equal((bodyJson(created) as { imported: number }).imported, 1);
    const again = bodyJson(await call("POST", "/clusters/demo-eu/releases/import", { body: JSON.stringify(list) })) as {
      unchanged: number;
    };
    assert.equal(again.unchanged, 1);
    const broken = { ...encodeHelmSecret(fourth), data: { release: "bm90IGEgcmVsZWFzZQ==" } };
    const failed = await call("POST", "/clusters/demo-eu/releases/import", { body: JSON.stringify(broken) });
    assert.equal(failed.statusCode, 422);
    assert.equal((bodyJson(failed) as { failed: number }).failed, 1);
    assert.doesNotMatch(logger.text(), /bm90IGEgcmVsZWFzZQ==/);
  });

  test("the local server speaks the same API over HTTP, gzip included", async () => {
    const response = await fetch(`${server.url}${shop}/web/status?output=table`, {
      headers: { "accept-encoding": "gzip" },
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /^NAME: web/); // fetch decodes gzip
    const raw = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      import("node:http").then(({ get }) =>
        get(`${server.url}${shop}/web/history`, { headers: { "accept-encoding": "gzip" } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
        }).on("error", reject),
      );
    });
    assert.equal(raw.encoding, "gzip");
    assert.match(gunzipSync(raw.body).toString(), /"history"/);
    const wrong = await fetch(`${server.url}/clusters`, { method: "DELETE" });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "GET");
  });
});
