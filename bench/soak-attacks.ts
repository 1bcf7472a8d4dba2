/**
 * The soak's issue-#25 cases, printed with the rest (bench/soak.ts):
 *   5. silent API server   a status through the API handler against a loopback server that goes silent at each
 *                          stage (bench/stall-server.ts), over HTTP/2, HTTP/1.1 and plain http://: the answer,
 *                          how long after the Lambda's budget started, whether it said "not read in time".
 *   6. future run times    a planner event dated 2031 and a queued message with a 2099 run id: what run was
 *                          planned, whether the worker refused the message, and whether a later real sighting
 *                          still moves a release whose lastRunId a forged run left in 2099.
 *   7. chat leaks          AWS refusals and unreachable endpoints (the product's own classifier over AWS's
 *                          exception shapes) answered in Slack (ephemeral and --public) and Teams: does any answer
 *                          carry an ARN, an account id or an AWS endpoint? (the log must, the answers must not)
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { telemetryDeps } from "../functions/_shared/telemetry.ts";
import { apiSettingsFromEnv } from "../functions/api/config.ts";
import { createApiHandler } from "../functions/api/handler.ts";
import { auditRuntimeFromEnv } from "../functions/audit/deps.ts";
import { createWorkerHandler } from "../functions/audit/worker.ts";
import { sqsRecordFrom } from "../local/queue/lambda-event.ts";
import { lambdaContext } from "../local/server.ts";
import { recordObservation } from "../shared/audit/record.ts";
import { parseAccessMap, resolveAccess } from "../shared/chatops/access.ts";
import { answerCommand } from "../shared/chatops/answer.ts";
import { parseChatCommand } from "../shared/chatops/command.ts";
import { renderSlackAnswer } from "../shared/chatops/slack-blocks.ts";
import { renderTeamsAnswer } from "../shared/chatops/teams-card.ts";
import { toClusterError } from "../shared/eks/aws-calls.ts";
import { createKubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import { memoryHistoryStores } from "../shared/snapshots/history-stores.ts";
import { MemorySnapshotStore } from "../shared/snapshots/memory-snapshot-store.ts";
import { runIdFor, runTimeNear } from "../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../shared/store/memory-store.ts";
import { ATTACK_RELEASE, AWS_ENTRY, AWS_INTERNALS, awsFailures } from "./attack-fixtures.ts";
import { apiEvent } from "./soak-lib.ts";
import { SILENT_STAGES, stallConnector, startStallServer } from "./stall-server.ts";

const BUDGET_MS = 3_000;
const MARGIN_MS = 500;

/** A plain `GET` of the silent cluster's status as text (no Accept-Encoding). */
function statusEvent(): APIGatewayProxyEventV2 {
  const event = apiEvent("/clusters/silent/namespaces/shop/releases/api/status");
  return {
    ...event,
    rawQueryString: "",
    queryStringParameters: undefined,
    headers: { accept: "text/plain", host: "soak" },
  };
}

export async function silentServers(out: (line?: string) => void): Promise<void> {
  out();
  out(
    `## 5. silent API server: a status with a ${BUDGET_MS} ms budget (${MARGIN_MS} ms margin) per stage and protocol`,
  );
  const store = new MemoryReleaseStore();
  await store.putRevision("silent", ATTACK_RELEASE);
  const paths = [
    { name: "HTTP/2", http2: true, secure: true },
    { name: "HTTP/1.1", http2: false, secure: true },
    { name: "http://", http2: false, secure: false },
  ];
  let inBudget = 0;
  let tried = 0;
  for (const path of paths) {
    const cells: string[] = [];
    for (const stage of SILENT_STAGES) {
      if (!path.secure && stage === "tls") continue;
      const stall = await startStallServer(stage, { secure: path.secure });
      const connector = stallConnector(stall);
      const kube = createKubeReader({ connector, http2: path.http2, lookup: stall.lookup });
      try {
        const handler = createApiHandler({
          store,
          clusters: connector,
          kube,
          clock: kube.clock,
          ...telemetryDeps(new Logger({ serviceName: "soak", logLevel: "SILENT" }), new Metrics({ namespace: "soak" })),
          settings: apiSettingsFromEnv({ STATUS_DEADLINE_MARGIN_MS: String(MARGIN_MS) }),
        });
        const started = performance.now();
        const answer = await handler(statusEvent(), lambdaContext(BUDGET_MS));
        const took = performance.now() - started;
        tried++;
        const text = answer.isBase64Encoded ? Buffer.from(answer.body ?? "", "base64").toString() : (answer.body ?? "");
        const said = /not read in time/.test(text) ? "not read in time" : text.slice(0, 60);
        if (took <= BUDGET_MS && answer.statusCode === 200) inBudget++;
        cells.push(`${stage} ${answer.statusCode} in ${took.toFixed(0)} ms (${said})`);
      } finally {
        await kube.close();
        await stall.close();
      }
    }
    out(`  ${path.name.padEnd(9)} ${cells.join("; ")}`);
  }
  out(`  answered 200 inside the budget: ${inBudget}/${tried}`);
}

export async function futureRunTimes(out: (line?: string) => void): Promise<void> {
  out();
  out("## 6. future run times: a planner event dated 2031, a queued message with a 2099 run id");
  const now = new Date();
  const planned = runTimeNear(new Date("2031-06-01T00:00:00Z"), now);
  out(`  planner time 2031-06-01 -> ${planned.clamped ? "clamped to now" : "kept"}: run ${runIdFor(planned.at)}`);
  const store = new MemoryReleaseStore();
  await store.putRevision("silent", ATTACK_RELEASE);
  const stores = memoryHistoryStores();
  const runtime = auditRuntimeFromEnv(
    { CLUSTERS: JSON.stringify([{ name: "silent", region: "eu-west-1" }]), AWS_REGION: "eu-west-1" },
    {},
    { store, historyStores: stores, logger: silentLogger },
  );
  try {
    const body = JSON.stringify({
      v: 1,
      runId: "20990101T000000Z",
      part: "silent-0",
      cluster: "silent",
      releases: [{ namespace: "shop", name: "api", revision: 1 }],
    });
    const answer = await createWorkerHandler(runtime)(
      {
        Records: [
          sqsRecordFrom({ MessageId: "forged", ReceiptHandle: "r", Body: body }, "arn:aws:sqs:::audit", "eu-west-1"),
        ],
      },
      lambdaContext(5_000),
    );
    const written = await stores.snapshots.latest({ cluster: "silent", namespace: "shop", name: "api" });
    out(
      `  worker, run 20990101T000000Z: ${answer.batchItemFailures.length === 1 ? "refused (DLQ after maxReceiveCount)" : "ACCEPTED"}, snapshot written: ${written ? "YES" : "no"}`,
    );
  } finally {
    await runtime.close();
  }
  // A history a forged run touched before the fix: its lastRunId is in 2099; a later real sighting still counts.
  const key = { cluster: "eu", namespace: "shop", name: "frozen" };
  const observation = (runId: string, observedAt: string, health: "Current" | "Failed") => ({
    release: key,
    runId,
    observedAt,
    revision: 1,
    releaseStatus: "deployed",
    health: { overall: health, message: health },
    resources: [],
    missing: [],
    counters: { resources: 0, missing: 0, requests: 0, retries: 0, durationMs: 0 },
    text: health,
  });
  const history = new MemorySnapshotStore();
  await recordObservation(history, observation("20261201T000000Z", "2026-12-01T00:00:01Z", "Current"), 90);
  await recordObservation(history, observation("20990101T000000Z", "2026-12-01T00:02:00Z", "Current"), 90);
  const later = await recordObservation(history, observation("20261201T000500Z", "2026-12-01T00:05:01Z", "Failed"), 90);
  out(
    `  a release last seen by a 2099 run, then Failed at 00:05: ${later.outcome} (health now ${(await history.latest(key))?.health.overall})`,
  );
}

export async function chatLeaks(out: (line?: string) => void): Promise<void> {
  out();
  out("## 7. chat leaks: AWS's error text in chat answers (Slack ephemeral and --public, Teams)");
  const entry = AWS_ENTRY;
  const failures = awsFailures();
  const store = new MemoryReleaseStore();
  await store.putRevision("prod-eu", { ...ATTACK_RELEASE });
  const access = resolveAccess(
    parseAccessMap(JSON.stringify({ slack: [{ team: "T1", channels: "*", clusters: "*" }] }), "soak"),
    { platform: "slack", team: "T1", channel: "C1", user: "U1" },
  );
  let clean = 0;
  for (const [what, failure] of failures) {
    const clusters = {
      list: () => [{ name: "prod-eu", region: "eu-west-1" }],
      access: async (): Promise<never> => {
        throw toClusterError(entry, "AssumeRole", "https://eks.eu-west-1.amazonaws.com", 3000, failure);
      },
      invalidate: () => {},
    };
    const logged: string[] = [];
    const logger = { ...silentLogger, error: (m: string, a?: unknown) => void logged.push(JSON.stringify([m, a])) };
    const kube = createKubeReader({ connector: clusters });
    try {
      for (const line of ["status api -n shop --cluster prod-eu", "status api -n shop --cluster prod-eu --public"]) {
        const parsed = parseChatCommand(line, { prefix: "/helm" });
        if (!parsed.ok) continue;
        const answer = await answerCommand(
          { store, clusters, clock: kube.clock, logger, kube },
          parsed.command,
          access,
        );
        const shown = JSON.stringify([renderSlackAnswer(answer), renderTeamsAnswer(answer)]);
        const leaked = AWS_INTERNALS.exec(shown)?.[0];
        if (!leaked) clean++;
        out(
          `  ${what.padEnd(18)} ${line.endsWith("--public") ? "--public " : "ephemeral"}: ${leaked ? `AWS_INTERNALS ${leaked}` : "no ARN, account or endpoint"}; logged ${AWS_INTERNALS.test(logged.join()) ? "with" : "without"} AWS's text`,
        );
      }
    } finally {
      await kube.close();
    }
  }
  out(`  answers without AWS internals: ${clean}/${failures.length * 2}`);
}
