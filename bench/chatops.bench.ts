/**
 * `node bench/chatops.bench.ts [COMMANDS]`: the chatops figures of docs/chatops.md on the local stack
 * (DynamoDB Local, the simulated EKS, fauxqs + the in-process worker, the local HTTP server, the
 * loopback response_url receiver): ack latency of COMMANDS (default 200) signed `/helm status api`
 * commands sent one after another, and the time from sending to the deferred Block Kit answer,
 * first with the simulated cluster answering at once, then with 2 s of latency per request.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { slackCommandBody, slackHeaders } from "../bin/lib/signed-chat-request.ts";
import { apiDepsFromEnv } from "../functions/api/deps.ts";
import { startLocalChatops } from "../local/chatops.ts";
import { DEMO_CLUSTERS } from "../local/demo/releases.ts";
import { seedDemo } from "../local/demo/seed.ts";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { startLocalServer } from "../local/server.ts";
import { startSimulatedEks } from "../local/sim/index.ts";
import { silentLogger } from "../shared/ports.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";

const count = Number(process.argv[2] ?? 200);
// Powertools reads this from the process: no EMF lines between the figures.
process.env.POWERTOOLS_METRICS_DISABLED = "true";
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

const [dynamo, sim] = await Promise.all([
  startDynamoDbLocal(),
  startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })) }),
]);
const env: NodeJS.ProcessEnv = {
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
  POWERTOOLS_METRICS_DISABLED: "true",
  RELEASES_TABLE: "chatops-bench",
  CLUSTERS: JSON.stringify(sim.registryEntries()),
  SLACK_SIGNING_SECRET: "bench-signing-secret",
};
Object.assign(process.env, {
  AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
});
const client = new DynamoDBClient({ region: "us-east-1", endpoint: dynamo.endpoint });
await ensureReleasesTable(client, { tableName: "chatops-bench", region: "us-east-1", endpoint: dynamo.endpoint });
client.destroy();
const deps = apiDepsFromEnv({ ...env, POWERTOOLS_LOG_LEVEL: "SILENT" });
await seedDemo(deps.store, sim);
const chat = await startLocalChatops({
  env,
  store: deps.store,
  clusters: deps.clusters,
  logger: silentLogger,
  telemetry: deps.telemetry,
});
const server = await startLocalServer({
  port: 0,
  handler: (event, context) => chat.handle(event, context) ?? Promise.resolve({ statusCode: 404, body: "" }),
});

async function round(label: string, n: number) {
  const acks: number[] = [];
  const answers: Promise<number>[] = [];
  for (let i = 0; i < n; i++) {
    const responseUrl = chat.receiver.responseUrl();
    const body = slackCommandBody({ text: "status api -n shop --cluster demo-eu", responseUrl });
    const sent = Date.now();
    const started = performance.now();
    const response = await fetch(`${server.url}/chatops/slack/commands`, {
      method: "POST",
      headers: slackHeaders("bench-signing-secret", body),
      body,
    });
    await response.text();
    acks.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`ack ${response.status}`);
    answers.push(chat.receiver.waitFor(new URL(responseUrl).pathname, 120_000).then((m) => m.at - sent));
  }
  const deferred = await Promise.all(answers);
  const f = (v: number) => `${v.toFixed(1)} ms`;
  process.stdout.write(
    `${label}: ${n} commands\n  ack      p50 ${f(percentile(acks, 50))}  p99 ${f(percentile(acks, 99))}  max ${f(Math.max(...acks))}\n` +
      `  answer   p50 ${f(percentile(deferred, 50))}  p99 ${f(percentile(deferred, 99))}  max ${f(Math.max(...deferred))}\n`,
  );
}

try {
  await round("warm-up", 5);
  await round("cluster answering at once", count);
  sim.cluster("demo-eu").faults.set({ latencyMs: 2000 });
  await round("cluster with 2 s latency per request", Math.min(count, 50));
} finally {
  await chat.stop();
  await server.close();
  await sim.stop();
  await dynamo.stop();
}
