/**
 * POST /chatops/slack/commands and /chatops/slack/interactions: the Slack
 * ingress. Everything here is fast (Slack waits 3 s): verify the signature on
 * the raw bytes, parse, answer usage/help/denials at once, otherwise put a
 * ChatJob on the queue and acknowledge with an ephemeral "checking …". The
 * worker (worker.ts) reads the cluster and posts to the response_url.
 */
import { type AccessMap, type ChatCaller, resolveAccess } from "../../shared/chatops/access.ts";
import { type ChatCommand, commandLine, parseChatCommand, usageText } from "../../shared/chatops/command.ts";
import { ChatAccessDeniedError } from "../../shared/chatops/errors.ts";
import type { ChatJob } from "../../shared/chatops/job.ts";
import { MissingClusterProblem, type ResolvedCommand, resolveCommand } from "../../shared/chatops/resolve.ts";
import { type AllowedHost, checkResponseUrl } from "../../shared/chatops/response-url.ts";
import { ReplayGuard, verifySlackSignature } from "../../shared/chatops/signature.ts";
import {
  ACTION_HISTORY,
  ACTION_REFRESH,
  ACTION_STATUS,
  ackText,
  renderSlackAnswer,
} from "../../shared/chatops/slack-blocks.ts";
import { ValidationError } from "../../shared/errors.ts";
import { emptyResult as empty, jsonResult as json } from "../_shared/http/body.ts";
import { UnauthorizedError } from "../_shared/http/errors.ts";
import { httpHandler } from "../_shared/http/handler.ts";
import { defineRoute } from "../_shared/http/route.ts";
import type { HttpContext, HttpEvent, HttpResult } from "../_shared/http/types.ts";
import { lambdaEntry, type ShellHandler, type Telemetry } from "../_shared/shell.ts";
import { loggerPort } from "../_shared/telemetry.ts";
import { slackIngressDepsFromEnv } from "./slack-deps.ts";
import { webhookBody, webhookSecret } from "./webhook.ts";

/** Where jobs go (SQS in AWS and under `npm start`). */
export interface ChatJobQueue {
  send(job: ChatJob): Promise<void>;
}

export interface SlackIngressDeps {
  access: AccessMap;
  allowHosts: readonly AllowedHost[];
  signingSecret: () => Promise<string>;
  queue: ChatJobQueue;
  /** Registry cluster names (a channel allowed exactly one needs no --cluster). */
  clusterNames: () => string[];
  /** Powertools' Logger and Metrics, for the shell's middlewares and this webhook's own lines. */
  telemetry: Telemetry;
  /** Told how long each acknowledgement took (EMF AckLatency in AWS, alarmed at the stage's chatopsAckP99Ms). */
  onAck?: (latencyMs: number) => void;
  now?: () => number;
  prefix?: string;
  apiBaseUrl?: string;
  /** The status history exists: `fleet` and `timeline` are offered. */
  snapshots?: boolean;
}

export const SLACK_COMMANDS_PATH = "/chatops/slack/commands";
export const SLACK_INTERACTIONS_PATH = "/chatops/slack/interactions";

const ACTIONS = new Set([ACTION_REFRESH, ACTION_HISTORY, ACTION_STATUS]);

export type SlackIngress = ShellHandler<HttpEvent, HttpResult, HttpContext>;

export function createSlackIngress(deps: SlackIngressDeps): SlackIngress {
  const now = deps.now ?? Date.now;
  const logger = loggerPort(deps.telemetry.logger);
  // Owned by this handler: signatures accepted in the last 10 minutes (a replayed capture is refused).
  const replays = new ReplayGuard();
  const render = { prefix: deps.prefix, apiBaseUrl: deps.apiBaseUrl };
  const syntax = { prefix: deps.prefix, snapshots: deps.snapshots ?? false };

  return httpHandler(deps.telemetry, {
    routes: [
      defineRoute("POST", SLACK_COMMANDS_PATH, (event) => slashCommand(event)),
      defineRoute("POST", SLACK_INTERACTIONS_PATH, async (event) => {
        const { form, audit } = await verified(event);
        if (!form) return empty(200);
        return interaction(form, audit, event.requestContext?.requestId ?? "");
      }),
    ],
  });

  /** The signed form, or none for Slack's ssl_check; a request that does not verify is a 401 without detail. */
  async function verified(event: HttpEvent) {
    const started = now();
    const body = webhookBody(event);
    const signature = event.headers?.["x-slack-signature"];
    const signingSecret = await webhookSecret(deps.signingSecret, logger, "signing secret");
    const ok = verifySlackSignature({
      signingSecret,
      signature,
      timestamp: event.headers?.["x-slack-request-timestamp"],
      body,
      now: now(),
    });
    if (!ok || !replays.firstSeen(signature!, now())) {
      logger.warn("chat request refused", { platform: "slack", path: event.rawPath, outcome: "unauthorized" });
      throw new UnauthorizedError();
    }
    const form = new URLSearchParams(body.toString("utf8"));
    const audit = (fields: Record<string, unknown>) => {
      const durationMs = now() - started;
      logger.info("chat command", { platform: "slack", durationMs, ...fields });
      deps.onAck?.(durationMs);
    };
    return { form: form.get("ssl_check") === "1" ? undefined : form, audit };
  }

  async function slashCommand(event: HttpEvent): Promise<HttpResult> {
    const { form, audit } = await verified(event);
    if (!form) return empty(200);
    const caller = callerOf(form.get("team_id"), form.get("channel_id"), form.get("user_id"));
    if (!caller) throw new ValidationError("team_id, channel_id and user_id are required", "InvalidSlashCommand");
    const who = { team: caller.team, channel: caller.channel, user: caller.user };
    const parsed = parseChatCommand(form.get("text") ?? "", syntax);
    if (!parsed.ok) {
      audit({ ...who, command: firstWord(form.get("text")), outcome: "usage" });
      return json(200, {
        response_type: "ephemeral",
        ...renderSlackAnswer({ kind: "usage", error: parsed.error, usage: parsed.usage }, render),
      });
    }
    const decided = decide(parsed.command, caller);
    if ("answer" in decided) {
      audit({ ...who, command: commandLine(parsed.command), outcome: decided.outcome });
      return json(200, {
        response_type: decided.answer.public ? "in_channel" : "ephemeral",
        ...decided.answer.message,
      });
    }
    const requestId = event.requestContext?.requestId ?? "";
    const queued = await enqueue(caller, parsed.command, decided.target, form.get("response_url"), false, requestId);
    audit({ ...who, command: commandLine(parsed.command), outcome: queued.outcome });
    if (queued.refusal) throw queued.refusal;
    return queued.result!;
  }

  /** Help, usage and denial need no cluster: answered in the acknowledgement itself. */
  function decide(
    command: ChatCommand,
    caller: ChatCaller,
  ): { target: ResolvedCommand } | { answer: { public: boolean; message: object }; outcome: string } {
    const access = resolveAccess(deps.access, caller);
    const known = deps.clusterNames();
    try {
      const target = resolveCommand(command, access, known, syntax);
      if (target.verb !== "help") return { target };
      const message = renderSlackAnswer(
        {
          kind: "help",
          usage: usageText(syntax),
          clusters: access.clustersOf(known),
          defaults: access.defaults,
        },
        render,
      );
      return { answer: { public: command.public, message }, outcome: "help" };
    } catch (error) {
      if (error instanceof ChatAccessDeniedError) {
        return {
          answer: { public: false, message: renderSlackAnswer({ kind: "denied", message: error.message }, render) },
          outcome: "denied",
        };
      }
      if (error instanceof MissingClusterProblem) {
        const usage = usageText(syntax);
        return {
          answer: { public: false, message: renderSlackAnswer({ kind: "usage", error: error.message, usage }, render) },
          outcome: "usage",
        };
      }
      throw error;
    }
  }

  async function enqueue(
    caller: ChatCaller,
    command: ChatCommand,
    target: ResolvedCommand,
    responseUrl: string | null,
    replaceOriginal: boolean,
    requestId: string,
  ): Promise<{ outcome: string; result?: HttpResult; refusal?: Error }> {
    const ephemeral = (text: string) => json(200, { response_type: "ephemeral", text });
    try {
      checkResponseUrl(responseUrl, deps.allowHosts);
    } catch (error) {
      // Signed by Slack yet pointing elsewhere: a misconfiguration (or a leaked secret). Never POSTed to.
      logger.warn("response_url refused", { reason: (error as Error).message });
      return { outcome: "refused", refusal: new ValidationError((error as Error).message, "ResponseUrlRefused") };
    }
    const job: ChatJob = {
      version: 1,
      caller,
      command: commandLine({ ...command, public: false } as ChatCommand),
      responseUrl: responseUrl!,
      public: command.public,
      replaceOriginal,
      receivedAt: now(),
      requestId,
    };
    try {
      await deps.queue.send(job);
    } catch (error) {
      logger.error("chat job not queued", { error: (error as Error).message });
      return { outcome: "error", result: ephemeral(":x: the command could not be queued; try again in a minute") };
    }
    return {
      outcome: "queued",
      result: replaceOriginal ? empty(200) : ephemeral(ackText(target)),
    };
  }

  async function interaction(
    form: URLSearchParams,
    audit: (fields: Record<string, unknown>) => void,
    requestId: string,
  ): Promise<HttpResult> {
    let payload: InteractionPayload;
    try {
      payload = JSON.parse(form.get("payload") ?? "");
    } catch {
      throw new ValidationError("the payload field is not JSON", "InvalidInteraction");
    }
    const action = payload?.actions?.[0];
    if (payload?.type !== "block_actions" || !action || !ACTIONS.has(action.action_id ?? "")) return empty(200);
    const caller = callerOf(payload.team?.id, payload.channel?.id ?? payload.container?.channel_id, payload.user?.id);
    if (!caller) throw new ValidationError("team, channel and user are required", "InvalidInteraction");
    const who = { team: caller.team, channel: caller.channel, user: caller.user };
    const parsed = parseChatCommand(String(action.value ?? ""), syntax);
    if (!parsed.ok) {
      audit({ ...who, command: "button", outcome: "usage" });
      return empty(200);
    }
    const decided = decide(parsed.command, caller);
    if ("answer" in decided) {
      audit({ ...who, command: commandLine(parsed.command), outcome: decided.outcome });
      // The clicker may not read it: say so to them only, leave the message as it is.
      return json(200, { response_type: "ephemeral", replace_original: false, ...decided.answer.message });
    }
    const queued = await enqueue(caller, parsed.command, decided.target, payload.response_url ?? null, true, requestId);
    audit({ ...who, command: commandLine(parsed.command), outcome: queued.outcome, button: action.action_id });
    if (queued.refusal) throw queued.refusal;
    return queued.result!;
  }
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

const SLACK_ID = /^[A-Z0-9][A-Z0-9_-]{0,63}$/i;

function callerOf(team: unknown, channel: unknown, user: unknown): ChatCaller | undefined {
  if (![team, channel, user].every((id) => typeof id === "string" && SLACK_ID.test(id))) return undefined;
  return { platform: "slack", team: team as string, channel: channel as string, user: user as string };
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
