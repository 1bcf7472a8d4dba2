#!/usr/bin/env node
/**
 * `npm start`: the whole product on this machine.
 *
 * With nothing configured: DynamoDB Local (data under .data/dynamodb, or
 * HELM_STATUS_DATA_DIR), the simulated EKS with two clusters, the demo releases,
 * and the API on http://127.0.0.1:PORT (default 3000). With a table or a
 * registry configured (AWS_ENDPOINT_URL_DYNAMODB / RELEASES_TABLE / CLUSTERS /
 * CLUSTERS_FILE) it serves those instead and starts nothing else.
 * Ctrl-C (SIGINT) or SIGTERM stops everything it started.
 */
// First: the heap policy applies to everything the server allocates (issue #25 item 6).
import "./heap-size.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { buildDashboard } from "../dashboard/build.ts";
import { containStrayRejections } from "../functions/_shared/shell.ts";
import { apiDepsFromEnv } from "../functions/api/deps.ts";
import { createApiHandler } from "../functions/api/handler.ts";
import { clusterRegistryConfigured } from "../shared/clusters/registry.ts";
import { isDomainError } from "../shared/errors.ts";
import { storeConfigFromEnv } from "../shared/store/config.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";
import { auditIntervalSeconds, type LocalAudit, startLocalAudit } from "./audit.ts";
import { type LocalChatops, startLocalChatops } from "./chatops.ts";
import { describeReceived } from "./chatops-receiver.ts";
import { DEMO_CLUSTERS } from "./demo/releases.ts";
import { seedDemo } from "./demo/seed.ts";
import { demoIdentities, whoTourLines } from "./demo/who-tour.ts";
import { startDynamoDbLocal } from "./dynamodb-local.ts";
import { type LocalJwtAuthorizer, localJwtAuthorizer } from "./jwt-authorizer.ts";
import { type LambdaHttpHandler, startLocalServer } from "./server.ts";
import { startSimulatedEks } from "./sim/index.ts";
import { startLocalSync } from "./sync.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = process.env;
const out = (line = "") => process.stdout.write(`${line}\n`);

/** What was started, stopped in reverse order. */
const started: { name: string; stop: () => Promise<void> }[] = [];
let stopping: Promise<void> | undefined;

function stopAll(exitCode: number): Promise<void> {
  stopping ??= (async () => {
    for (const { name, stop } of started.reverse()) {
      try {
        await stop();
      } catch (error) {
        process.stderr.write(`warning: stopping ${name}: ${(error as Error).message}\n`);
      }
    }
    process.exit(exitCode);
  })();
  return stopping;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    out(`\n${signal}: stopping ${started.map((s) => s.name).join(", ") || "nothing"}...`);
    void stopAll(0);
  });
}

/** The simulator's --event-ttl and audit-log delivery lag, in seconds (docs/simulator.md, "Settings for npm start"). */
function simulatorSettings(source: NodeJS.ProcessEnv): { eventTtlMs?: number; auditLogLagMs?: number } {
  const seconds = (name: string): number | undefined => {
    const value = source[name]?.trim();
    if (!value) return undefined;
    if (!/^\d+$/.test(value)) throw new Error(`${name}=${JSON.stringify(value)} is not a whole number of seconds`);
    return Number(value) * 1000;
  };
  return { eventTtlMs: seconds("SIM_EVENT_TTL"), auditLogLagMs: seconds("SIM_AUDIT_LAG") };
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new Error(`PORT=${JSON.stringify(value)} is not a port number (0-65535; 0 picks a free port)`);
  }
  return Number(value);
}

async function main(): Promise<void> {
  const port = portFrom(env.PORT);
  const configured =
    clusterRegistryConfigured(env) || Boolean(env.AWS_ENDPOINT_URL_DYNAMODB?.trim() || env.RELEASES_TABLE?.trim());
  // The local console is for people: no EMF blobs between the request logs.
  env.POWERTOOLS_METRICS_DISABLED ??= "true";

  let sim: Awaited<ReturnType<typeof startSimulatedEks>> | undefined;
  if (!configured) {
    const dataDir = env.HELM_STATUS_DATA_DIR?.trim() || join(root, ".data", "dynamodb");
    const dynamo = await startDynamoDbLocal({ dataDir });
    started.push({ name: "DynamoDB Local", stop: () => dynamo.stop() });
    out(`DynamoDB Local  ${dynamo.endpoint} (pid ${dynamo.pid}, data in ${dataDir})`);

    sim = await startSimulatedEks({
      clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })),
      ...simulatorSettings(env),
    });
    started.push({ name: "simulated EKS", stop: () => sim!.stop() });
    out(
      `simulated EKS   ${sim
        .clusters()
        .map((c) => `${c.name} ${c.server}`)
        .join(", ")}; EKS API ${sim.eksEndpoint}; CloudWatch Logs ${sim.logsEndpoint}`,
    );

    // This process only: the API reaches the local engines exactly as it would reach AWS.
    env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
    env.AWS_REGION = "us-east-1";
    env.RELEASES_TABLE = "helm-releases";
    env.CLUSTERS = JSON.stringify(sim.registryEntries());
    env.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS = sim.logsEndpoint;
    env.AWS_ACCESS_KEY_ID = sim.credentials.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = sim.credentials.secretAccessKey;
    delete env.AWS_SESSION_TOKEN;
    delete env.AWS_PROFILE;
    delete env.CLUSTERS_FILE;

    const storeConfig = storeConfigFromEnv(env);
    const client = new DynamoDBClient({ region: storeConfig.region, endpoint: storeConfig.endpoint });
    try {
      await ensureReleasesTable(client, storeConfig);
    } finally {
      client.destroy();
    }
  }

  // The dashboard on the same port: its client built now, sign-in off unless an OIDC issuer is configured.
  const dashboard = await buildDashboard();
  env.DASHBOARD_ASSETS_DIR = dashboard.dir;
  env.DASHBOARD_AUTH ??= env.DASHBOARD_OIDC_ISSUER?.trim() ? "jwt" : "off";

  // The reliability report's gap threshold (API, chat) follows npm start's audit period, in whole minutes.
  const auditMinutes = Math.max(1, Math.round(Number(env.AUDIT_INTERVAL ?? 60) / 60) || 1);
  env.AUDIT_SCHEDULE ??= `rate(${auditMinutes} minutes)`;
  const deps = apiDepsFromEnv(env);
  // As in the Lambda shell: a rejection nothing awaited is logged, and the API, sync, audits and chat stay up.
  containStrayRejections(process, deps.logger);
  started.push({ name: "kube reader", stop: () => deps.kube.close() });
  if (sim) {
    const seeded = await seedDemo(deps.store, sim);
    out(
      `demo releases   ${seeded.releases} releases, ${seeded.revisions} revisions (${seeded.imported} new, ${seeded.unchanged} already stored)`,
    );
  } else {
    out(
      `serving the configured table "${env.RELEASES_TABLE ?? "helm-releases"}" and ${deps.clusters.list().length} registry clusters`,
    );
  }

  // One port for the API and the chat webhooks (in AWS they are separate functions behind one HTTP API).
  const api = createApiHandler(deps);
  let chat: LocalChatops | undefined;
  const handler: LambdaHttpHandler = (event, context) => chat?.handle(event, context) ?? api(event, context);
  const jwt = deps.dashboard?.auth === "jwt" ? localJwtAuthorizer(env) : undefined;
  // Listening now (chat needs the URL), answering 503 until every route of the banner is mounted (issue #39 item 12).
  const server = await startLocalServer({ handler, port, jwt, closed: true }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(`port ${port} on 127.0.0.1 is in use: set PORT to another port (PORT=0 picks a free one)`);
    }
    throw error;
  });
  started.push({ name: "API server", stop: () => server.close() });
  // The sync first (on start, then every AUDIT_INTERVAL), so the audits read what the clusters really hold.
  const sync = await startLocalSync({
    env,
    store: deps.store,
    clusters: deps.clusters,
    intervalSeconds: auditIntervalSeconds(env),
    out,
  });
  started.push({ name: "sync", stop: () => sync.stop() });
  // Audits before chat: chat's `fleet` and `timeline` read the history they write.
  const audit = await startLocalAudit({ env, store: deps.store, clusters: deps.clusters, sim, out });
  started.push({ name: "audits", stop: () => audit.stop() });
  chat = await startLocalChatops({
    env,
    store: deps.store,
    clusters: deps.clusters,
    logger: deps.logger,
    telemetry: deps.telemetry,
    apiBaseUrl: server.url,
    onMessage: (message) => out(describeReceived(message)),
    history: { stores: audit.historyStores, tableName: audit.snapshotsTable },
    attributions: deps.attributions,
  });
  started.push({ name: "chatops", stop: () => chat!.stop() });
  server.open();
  printTour(server.url, Boolean(sim));
  printDashboard(server.url, deps.dashboard?.auth ?? "jwt", jwt);
  printMcp(server.url);
  printChatTour(server.url, chat);
  if (sim) printSyncTour(server.url, env, auditIntervalSeconds(env));
  if (sim) {
    const lag = Math.round((simulatorSettings(env).auditLogLagMs ?? 0) / 1000);
    const tour = whoTourLines(server.url, demoIdentities(sim), {
      intervalSeconds: auditIntervalSeconds(env),
      auditLagSeconds: lag,
    });
    out();
    for (const line of tour) out(line);
  }
  printAuditTour(server.url, audit);
}

function printDashboard(url: string, auth: "jwt" | "off", jwt: LocalJwtAuthorizer | undefined): void {
  out();
  out(`Dashboard ready on ${url}/dashboard/`);
  out(
    auth === "off"
      ? "  sign-in off (set DASHBOARD_OIDC_ISSUER and DASHBOARD_OIDC_CLIENT_ID to sign in; DASHBOARD_ACCESS maps groups to clusters)"
      : `  sign-in with ${jwt?.issuer}: tokens checked here as API Gateway's JWT authorizer would (audience ${jwt?.audience.join(", ")})`,
  );
}

/** How to add the MCP tools to an assistant (docs/mcp.md), and a check with curl. */
function printMcp(url: string): void {
  out();
  out(`MCP tools for AI assistants on POST ${url}/mcp (docs/mcp.md); in an assistant's "mcpServers":`);
  out(`  "helm-status": { "type": "http", "url": "${url}/mcp" }`);
  out(
    `  curl -s ${url}/mcp -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"release_status","arguments":{"cluster":"demo-eu","namespace":"shop","name":"api"}}}'`,
  );
}

function printAuditTour(url: string, audit: LocalAudit): void {
  out();
  out(
    `Status history: the audit planner every ${audit.intervalSeconds}s (AUDIT_INTERVAL), the worker on ${audit.queueUrl}`,
  );
  out("Try (the demo's shop/api recovers after a few minutes: a change appears):");
  out(`  curl -s ${url}/fleet/health`);
  out(`  curl -s ${url}/clusters/demo-eu/namespaces/shop/releases/api/snapshots`);
  out(`  curl -s ${url}/audits`);
  out(
    "  npm run --silent cli -- snapshots api -n shop --cluster demo-eu   # with the env of this process (CLUSTERS, endpoint)",
  );
}

function printSyncTour(url: string, env: NodeJS.ProcessEnv, intervalSeconds: number): void {
  out();
  out(`Release sync: the clusters' Helm storage into the store on start and every ${intervalSeconds}s (docs/sync.md)`);
  out("  helm against a simulated cluster (the CLI's kubeconfig gets its token from the CLI: nothing secret on disk):");
  out(
    `  export CLUSTERS='${env.CLUSTERS}' AWS_ACCESS_KEY_ID=${env.AWS_ACCESS_KEY_ID} AWS_SECRET_ACCESS_KEY=${env.AWS_SECRET_ACCESS_KEY} HELM_STATUS_STORE=embedded`,
  );
  out("  npm run --silent cli -- kubeconfig --cluster demo-eu > /tmp/demo-eu.kubeconfig");
  out("  helm create /tmp/web && KUBECONFIG=/tmp/demo-eu.kubeconfig helm upgrade web /tmp/web -n shop");
  out(
    `  curl -s '${url}/clusters/demo-eu/namespaces/shop/releases/web/status?output=table'   # the new revision, no import`,
  );
  out(
    `  curl -s -X POST ${url}/clusters/demo-eu/sync; curl -s ${url}/clusters/demo-eu/sync   # sync now; the last run`,
  );
}

function printChatTour(url: string, chat: LocalChatops): void {
  out();
  out(`Chatops on the same port: POST ${url}/chatops/slack/commands, /chatops/slack/interactions, /chatops/teams`);
  out(
    `  queue ${chat.queueUrl} (fauxqs), worker polling it; response_url receiver ${chat.receiver.url} (GET /messages)`,
  );
  out(
    `  Slack signing secret ${chat.demo.signingSecret ? `(demo, SLACK_SIGNING_SECRET overrides): ${chat.signingSecret}` : "from SLACK_SIGNING_SECRET"}`,
  );
  out(
    `  Teams security token ${chat.demo.teamsSecret ? `(demo, TEAMS_WEBHOOK_SECRET overrides): ${chat.teamsSecret}` : "from TEAMS_WEBHOOK_SECRET"}`,
  );
  out(
    `  access map: ${chat.demo.access ? "demo (any team and channel may read the demo clusters)" : "from CHATOPS_ACCESS"}`,
  );
  const secret = chat.demo.signingSecret ? `SLACK_SIGNING_SECRET=${chat.signingSecret} ` : "";
  const teams = chat.demo.teamsSecret ? `TEAMS_WEBHOOK_SECRET=${chat.teamsSecret} ` : "";
  out("Try (the answer appears below, as the receiver got it):");
  out(
    `  ${secret}npm run --silent cli -- chatops sign --url ${url}/chatops/slack/commands --response-url ${chat.receiver.url}/commands/demo 'status api -n shop --cluster demo-eu' | curl -s -K -`,
  );
  out(
    `  ${teams}npm run --silent cli -- chatops sign --teams --url ${url}/chatops/teams 'status web -n shop --cluster demo-eu' | curl -s -K -`,
  );
}

function printTour(url: string, demo: boolean): void {
  out();
  out(`API ready on ${url}  (OpenAPI: ${url}/openapi.json; Ctrl-C stops everything)`);
  if (!demo) return;
  const release = `${url}/clusters/demo-eu/namespaces/shop/releases`;
  out();
  out("Try:");
  out(`  curl -s ${url}/clusters`);
  out(`  curl -s ${url}/clusters/demo-eu/releases`);
  out(`  curl -s '${release}/web/status?output=table'          # healthy`);
  out(`  curl -s '${release}/api/status?output=table'          # CrashLoopBackOff pod, deleted ConfigMap`);
  out(
    `  curl -s '${url}/clusters/demo-us/namespaces/observability/releases/metrics/status?output=table'   # CRD not installed`,
  );
  out(`  curl -s -H 'Accept: application/yaml' '${release}/web/status?revision=2'`);
  out(
    `  curl -s --compressed -H 'Accept: application/json' '${release}/web/status'   # JSON, compressed (br/gzip) on the wire`,
  );
  out(`  curl -s '${release}/web/history?max=2'`);
  out(`  curl -s '${release}/web/revisions/3/manifest'          # Secret values redacted`);
  out(
    `  curl -s '${release}/web/status?revision=abc'           # a 400 that says why (0 or less is the latest, as in helm)`,
  );
}

main().catch(async (error) => {
  const message = isDomainError(error) || error instanceof Error ? error.message : String(error);
  process.stderr.write(`Error: ${message}\n`);
  if (env.HELM_STATUS_DEBUG) process.stderr.write(`${(error as Error)?.stack}\n`);
  await stopAll(1);
});
