/**
 * Chatops for `npm start` and the end-to-end tests: the Slack and Teams
 * webhooks on the local API port, the chat job queue on fauxqs with the
 * chatops worker behind the in-process SQS poller (Lambda's event source
 * mapping), and a loopback response_url receiver. Demo values (a random
 * signing secret and Teams token, an access map letting any team and channel
 * read the demo clusters, the receiver as the one allowed response_url host)
 * are used unless SLACK_SIGNING_SECRET, TEAMS_WEBHOOK_SECRET, CHATOPS_ACCESS /
 * CHATOPS_ACCESS_FILE or SLACK_RESPONSE_URL_ALLOW_HOSTS are set.
 */
import { randomBytes } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { Telemetry } from "../functions/_shared/shell.ts";
import { chatWorkerDepsFromEnv, teamsDepsFromEnv } from "../functions/chatops/deps.ts";
import { sqsChatJobQueue } from "../functions/chatops/queue.ts";
import { createSlackIngress, SLACK_COMMANDS_PATH, SLACK_INTERACTIONS_PATH } from "../functions/chatops/slack.ts";
import { slackIngressDepsFromEnv } from "../functions/chatops/slack-deps.ts";
import { createTeamsHandler, TEAMS_PATH } from "../functions/chatops/teams.ts";
import { createChatWorker } from "../functions/chatops/worker.ts";
import type { ClusterConnector } from "../shared/clusters/connector.ts";
import type { Logger } from "../shared/ports.ts";
import type { HistoryStores } from "../shared/snapshots/history-stores.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import type { AttributionStore } from "../shared/who/attribution.ts";
import { type ReceivedMessage, type ResponseUrlReceiver, startResponseUrlReceiver } from "./chatops-receiver.ts";
import { createQueueWithDlq, startLocalSqs } from "./fauxqs.ts";
import { createLocalPoller } from "./queue/poller.ts";

export interface LocalChatopsOptions {
  env: NodeJS.ProcessEnv;
  store: ReleaseStore;
  clusters: ClusterConnector;
  /** The adapters' and use cases' log lines. */
  logger: Logger;
  /** Powertools' Logger and Metrics for the webhooks' shell (the local API's). */
  telemetry: Telemetry;
  /** The clusters the demo access map grants (default: every registry cluster). */
  demoClusters?: string[];
  apiBaseUrl?: string;
  onMessage?: (message: ReceivedMessage) => void;
  /** Worker invocations in flight at once (Lambda's maximumConcurrency; default 4). */
  concurrency?: number;
  /** The local audits' history: offers `fleet` and `timeline` (npm start runs audits). */
  history?: { stores: Pick<HistoryStores, "snapshots" | "rollups">; tableName: string };
  /** Who made each revision and write (the API's store of them, docs/who.md): chat names them too. */
  attributions?: AttributionStore;
}

export interface LocalChatops {
  /** Serves /chatops/* paths; undefined for every other path. */
  handle(event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> | undefined;
  signingSecret: string;
  teamsSecret: string;
  /** Which values are the demo's (not from the environment). */
  demo: { signingSecret: boolean; teamsSecret: boolean; access: boolean; allowHosts: boolean };
  receiver: ResponseUrlReceiver;
  queueUrl: string;
  sqsEndpoint: string;
  stop(): Promise<void>;
}

export async function startLocalChatops(options: LocalChatopsOptions): Promise<LocalChatops> {
  const { env } = options;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const receiver = await startResponseUrlReceiver({ onMessage: options.onMessage });
    stops.push(() => receiver.close());
    const sqs = await startLocalSqs({ port: 0 });
    stops.push(() => sqs.stop());
    const queue = await createQueueWithDlq(sqs.client, "helm-status-chatops", {
      visibilityTimeoutSeconds: 60,
      maxReceiveCount: 3,
    });

    const demo = {
      signingSecret: !env.SLACK_SIGNING_SECRET?.trim(),
      teamsSecret: !env.TEAMS_WEBHOOK_SECRET?.trim(),
      access: !env.CHATOPS_ACCESS?.trim() && !env.CHATOPS_ACCESS_FILE?.trim(),
      allowHosts: !env.SLACK_RESPONSE_URL_ALLOW_HOSTS?.trim(),
    };
    const clusters = options.demoClusters ?? options.clusters.list().map((c) => c.name);
    const chatEnv: NodeJS.ProcessEnv = {
      ...env,
      SLACK_SIGNING_SECRET: demo.signingSecret ? randomBytes(16).toString("hex") : env.SLACK_SIGNING_SECRET,
      TEAMS_WEBHOOK_SECRET: demo.teamsSecret ? randomBytes(32).toString("base64") : env.TEAMS_WEBHOOK_SECRET,
      SLACK_RESPONSE_URL_ALLOW_HOSTS: demo.allowHosts ? receiver.host : env.SLACK_RESPONSE_URL_ALLOW_HOSTS,
      ...(options.apiBaseUrl ? { CHATOPS_API_URL: options.apiBaseUrl } : {}),
      ...(options.history ? { SNAPSHOTS_TABLE: options.history.tableName } : {}),
      ...(demo.access
        ? {
            CHATOPS_ACCESS: JSON.stringify({
              slack: [{ team: "*", channels: "*", clusters }],
              teams: [{ tenant: "*", channels: "*", clusters }],
            }),
          }
        : {}),
    };
    delete chatEnv.SLACK_SIGNING_SECRET_PARAMETER;
    delete chatEnv.TEAMS_WEBHOOK_SECRET_PARAMETER;

    const readers = {
      store: options.store,
      clusters: options.clusters,
      logger: options.logger,
      ...(options.history ? { historyStores: options.history.stores } : {}),
      ...(options.attributions ? { attributions: options.attributions } : {}),
    };
    const slack = createSlackIngress(
      slackIngressDepsFromEnv(chatEnv, {
        queue: sqsChatJobQueue(sqs.client, queue.queueUrl),
        telemetry: options.telemetry,
        clusterNames: () => options.clusters.list().map((c) => c.name),
      }),
    );
    const teams = createTeamsHandler(teamsDepsFromEnv(chatEnv, readers));
    const worker = createChatWorker(chatWorkerDepsFromEnv(chatEnv, readers));
    const poller = createLocalPoller({
      client: sqs.client,
      queueUrl: queue.queueUrl,
      handler: worker,
      batchSize: 5,
      waitTimeSeconds: 1,
      concurrency: options.concurrency ?? 4,
      functionName: "helm-status-chatops-worker-local",
      onError: (error) => options.logger.error("chatops worker", { error: (error as Error).message }),
    });
    poller.start();
    stops.push(() => poller.stop());

    return {
      handle(event, context) {
        if (event.rawPath === SLACK_COMMANDS_PATH || event.rawPath === SLACK_INTERACTIONS_PATH) {
          return slack(event, context);
        }
        if (event.rawPath === TEAMS_PATH) return teams(event, context);
        return undefined;
      },
      signingSecret: chatEnv.SLACK_SIGNING_SECRET!,
      teamsSecret: chatEnv.TEAMS_WEBHOOK_SECRET!,
      demo,
      receiver,
      queueUrl: queue.queueUrl,
      sqsEndpoint: sqs.endpoint,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
