/**
 * POST /chatops/slack/commands and /chatops/slack/interactions: the Slack adapter. Everything here is fast
 * (Slack waits 3 s): verify the signature on the raw bytes (Slack's platform record), acknowledge the command
 * (the shared chat use case answers usage, help and denials at once), otherwise put a ChatJob on the queue and
 * acknowledge with an ephemeral "checking …". The worker (worker.ts) answers the job at the response_url.
 */
import { type ChatCaller, resolveAccess } from "../../shared/chatops/access.ts";
import { type Acknowledged, acknowledge } from "../../shared/chatops/acknowledge.ts";
import { type ChatCommand, commandLine } from "../../shared/chatops/command.ts";
import type { ChatJob } from "../../shared/chatops/job.ts";
import { CHAT_PLATFORMS, type Placement } from "../../shared/chatops/platforms.ts";
import { instanceReplayLedger } from "../../shared/chatops/replay-ledger.ts";
import { ACTION_HISTORY, ACTION_REFRESH, ACTION_STATUS, ackText } from "../../shared/chatops/slack-blocks.ts";
import { ValidationError } from "../../shared/errors.ts";
import { checkResponseUrl } from "../../shared/notify/response-url.ts";
import { systemClock } from "../../shared/ports.ts";
import { emptyResult as empty, jsonResult as json } from "../_shared/http/body.ts";
import { httpHandler } from "../_shared/http/handler.ts";
import { defineRoute } from "../_shared/http/route.ts";
import type { HttpContext, HttpEvent, HttpResult } from "../_shared/http/types.ts";
import { lambdaEntry, type ShellHandler } from "../_shared/shell.ts";
import { loggerPort } from "../_shared/telemetry.ts";
import { slackIngressDepsFromEnv } from "./slack-deps.ts";
import type { SlackIngressDeps } from "./types.ts";
import { admit } from "./webhook.ts";

const SLACK = CHAT_PLATFORMS.slack;

export const SLACK_COMMANDS_PATH = "/chatops/slack/commands";
export const SLACK_INTERACTIONS_PATH = "/chatops/slack/interactions";

const ACTIONS = new Set([ACTION_REFRESH, ACTION_HISTORY, ACTION_STATUS]);

export type SlackIngress = ShellHandler<HttpEvent, HttpResult, HttpContext>;

/** What one request asks: who, the command text, where the answer goes, and how to name it in the log. */
interface SlackAsk {
  caller: ChatCaller;
  text: string;
  responseUrl: string | null;
  /** A button click: answers replace the clicked message, refusals leave it as it is. */
  click?: { actionId: string };
}

export function createSlackIngress(deps: SlackIngressDeps): SlackIngress {
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now().getTime();
  const logger = deps.logger ?? loggerPort(deps.telemetry.logger);
  // Owned by this handler: signatures accepted in the last 10 minutes (a replayed capture is refused).
  const replays = deps.replays ?? instanceReplayLedger();
  const render = { prefix: deps.prefix ?? SLACK.defaultPrefix, apiBaseUrl: deps.apiBaseUrl };
  const syntax = { prefix: deps.prefix, snapshots: deps.snapshots ?? false };

  return httpHandler(deps.telemetry, {
    routes: [
      defineRoute("POST", SLACK_COMMANDS_PATH, (event) => answer(event, slashCommand)),
      defineRoute("POST", SLACK_INTERACTIONS_PATH, (event) => answer(event, interaction)),
    ],
  });

  async function answer(event: HttpEvent, read: (form: URLSearchParams) => SlackAsk | undefined) {
    const started = now();
    const form = await verified(event);
    // Slack's ssl_check, and clicks on what is not ours: nothing to answer.
    const ask = form.get("ssl_check") === "1" ? undefined : read(form);
    if (!ask) return empty(200);
    const requestId = event.requestContext?.requestId ?? "";
    const { result, ...fields } = await handle(ask, requestId);
    const durationMs = now() - started;
    const { team, channel, user } = ask.caller;
    const button = ask.click ? { button: ask.click.actionId } : {};
    logger.info("chat command", { platform: SLACK.name, durationMs, team, channel, user, ...fields, ...button });
    deps.onAck?.(durationMs);
    if (result instanceof Error) throw result;
    return result;
  }

  /** The signed form; a request that does not verify, or a replay of one, is a 401 without detail. */
  function verified(event: HttpEvent): Promise<URLSearchParams> {
    return admit(event, {
      platform: SLACK,
      secret: { read: deps.signingSecret, what: "signing secret" },
      replays,
      logger,
      now: now(),
      read: (body) => new URLSearchParams(body.toString("utf8")),
      // The signature covers the request's timestamp (checked by verify): a signature is one request.
      replayKey: () => `slack:${event.headers?.["x-slack-signature"]}`,
    });
  }

  /** Acknowledge, then answer now or queue the job; the log line's command and outcome. */
  async function handle(ask: SlackAsk, requestId: string) {
    const access = resolveAccess(deps.access, ask.caller);
    const acknowledged: Acknowledged = acknowledge(ask.text, access, { ...syntax, knownClusters: deps.clusterNames() });
    const command = acknowledged.command
      ? commandLine(acknowledged.command)
      : ask.click
        ? "button"
        : firstWord(ask.text);
    if ("answer" in acknowledged) {
      const { answer } = acknowledged;
      // A click whose value does not parse (not one of our buttons after all): nothing to say.
      if (ask.click && !acknowledged.command) return { command, outcome: "usage", result: empty(200) };
      // Help may go to the channel (--public); usage and denials only to the asker. A refused click leaves the
      // clicked message as it is.
      const placement: Placement = {
        public: answer.kind === "help" && Boolean(acknowledged.command?.public),
        ...(ask.click ? { replaceOriginal: false } : {}),
      };
      return { command, outcome: answer.kind, result: json(200, SLACK.render(answer, render, placement)) };
    }
    return { command, ...(await enqueue(ask, acknowledged.command, ackText(acknowledged.job), requestId)) };
  }

  async function enqueue(ask: SlackAsk, command: ChatCommand, ack: string, requestId: string) {
    try {
      checkResponseUrl(ask.responseUrl, deps.allowHosts);
    } catch (error) {
      // Signed by Slack yet pointing elsewhere: a misconfiguration (or a leaked secret). Never POSTed to.
      logger.warn("response_url refused", { reason: (error as Error).message });
      return { outcome: "refused", result: new ValidationError((error as Error).message, "ResponseUrlRefused") };
    }
    const job: ChatJob = {
      version: 1,
      caller: ask.caller,
      command: commandLine({ ...command, public: false } as ChatCommand),
      responseUrl: ask.responseUrl!,
      public: command.public,
      replaceOriginal: Boolean(ask.click),
      receivedAt: now(),
      requestId,
    };
    try {
      await deps.queue.send(job);
    } catch (error) {
      logger.error("chat job not queued", { error: (error as Error).message });
      const text = ":x: the command could not be queued; try again in a minute";
      return { outcome: "error", result: json(200, { response_type: "ephemeral", text }) };
    }
    return { outcome: "queued", result: ask.click ? empty(200) : json(200, { response_type: "ephemeral", text: ack }) };
  }
}

function slashCommand(form: URLSearchParams): SlackAsk {
  const caller = SLACK.caller(form.get("team_id"), form.get("channel_id"), form.get("user_id"));
  if (!caller) throw new ValidationError("team_id, channel_id and user_id are required", "InvalidSlashCommand");
  return { caller, text: form.get("text") ?? "", responseUrl: form.get("response_url") };
}

interface InteractionPayload {
  type?: string;
  team?: { id?: string };
  user?: { id?: string };
  channel?: { id?: string };
  container?: { channel_id?: string };
  response_url?: string;
  actions?: { action_id?: string; value?: string }[];
}

/** A click on one of our buttons (Refresh, History, Status), or undefined for anything else. */
function interaction(form: URLSearchParams): SlackAsk | undefined {
  let payload: InteractionPayload;
  try {
    payload = JSON.parse(form.get("payload") ?? "");
  } catch {
    throw new ValidationError("the payload field is not JSON", "InvalidInteraction");
  }
  const action = payload?.actions?.[0];
  if (payload?.type !== "block_actions" || !action || !ACTIONS.has(action.action_id ?? "")) return undefined;
  const channel = payload.channel?.id ?? payload.container?.channel_id;
  const caller = SLACK.caller(payload.team?.id, channel, payload.user?.id);
  if (!caller) throw new ValidationError("team, channel and user are required", "InvalidInteraction");
  const text = String(action.value ?? "");
  return { caller, text, responseUrl: payload.response_url ?? null, click: { actionId: action.action_id! } };
}

function firstWord(text: string | null): string {
  return (
    (text ?? "")
      .trim()
      .split(/\s+/)[0]
      ?.slice(0, 20)
      .replace(/[^\w-]/g, "?") ?? ""
  );
}

/** The Lambda entry point (serverless.yml: chatopsWebhook). */
export const handler = lambdaEntry(() => createSlackIngress(slackIngressDepsFromEnv(process.env)));
