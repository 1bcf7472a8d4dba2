/**
 * POST /chatops/teams: a Teams outgoing webhook. Teams signs the raw body
 * (`Authorization: HMAC <base64>`, keyed with the base64-decoded security
 * token) and waits 5 seconds for a synchronous reply; there is no deferred
 * channel. So the command runs inline against a budget (default 4 s): a status
 * past it answers what is known, the partial report, or "still reading, see
 * GET …" when even the release could not be read in time. Teams signatures
 * carry no timestamp: an activity older than 5 minutes or an id seen before is
 * refused as a replay.
 */
import { type AccessMap, resolveAccess } from "../../shared/chatops/access.ts";
import { answerCommand, type ChatDeps, type ResolvedCommand, resolveCommand } from "../../shared/chatops/answer.ts";
import { commandLine, parseChatCommand } from "../../shared/chatops/command.ts";
import { ReplayGuard, verifyTeamsSignature } from "../../shared/chatops/signature.ts";
import { renderTeamsAnswer, renderTeamsStillReading } from "../../shared/chatops/teams-card.ts";
import {
  errorResult,
  type HttpEvent,
  type HttpResult,
  header,
  json,
  UNAUTHORIZED,
  webhookBody,
  webhookSecret,
} from "./http.ts";

export interface TeamsDeps extends ChatDeps {
  access: AccessMap;
  securityToken: () => Promise<string>;
  /** How long the command may run before answering what is known (default 4000 ms). */
  budgetMs?: number;
  apiBaseUrl?: string;
  now?: () => number;
}

export const TEAMS_PATH = "/chatops/teams";
const ACTIVITY_MAX_AGE_MS = 5 * 60_000;

interface Activity {
  type?: string;
  id?: string;
  timestamp?: string;
  text?: string;
  from?: { id?: string; aadObjectId?: string };
  conversation?: { id?: string; tenantId?: string };
  channelData?: { tenant?: { id?: string }; channel?: { id?: string }; team?: { id?: string } };
}

export function createTeamsHandler(deps: TeamsDeps): (event: HttpEvent) => Promise<HttpResult> {
  const now = deps.now ?? Date.now;
  const replays = new ReplayGuard();
  const budgetMs = deps.budgetMs ?? 4000;
  const render = { apiBaseUrl: deps.apiBaseUrl };

  return async (event) => {
    const started = now();
    const body = webhookBody(event, [TEAMS_PATH]);
    if (!Buffer.isBuffer(body)) return body;
    const authorization = header(event, "authorization");
    const securityToken = await webhookSecret(deps.securityToken, deps.logger, "Teams webhook token");
    if (typeof securityToken !== "string") return securityToken;
    if (!verifyTeamsSignature({ securityToken, authorization, body })) {
      deps.logger.warn("chat request refused", { platform: "teams", outcome: "unauthorized" });
      return UNAUTHORIZED;
    }
    let activity: Activity;
    try {
      activity = JSON.parse(body.toString("utf8"));
    } catch {
      return errorResult(400, "InvalidActivity", "the body is not a JSON activity");
    }
    const sent = Date.parse(activity?.timestamp ?? "");
    const fresh = Number.isNaN(sent) || Math.abs(now() - sent) <= ACTIVITY_MAX_AGE_MS;
    if (!fresh || !replays.firstSeen(`teams:${activity.id ?? authorization}`, now())) {
      deps.logger.warn("chat request refused", { platform: "teams", outcome: "replay" });
      return UNAUTHORIZED;
    }
    const tenant = activity.channelData?.tenant?.id ?? activity.conversation?.tenantId;
    const channel = activity.channelData?.channel?.id ?? activity.conversation?.id?.split(";")[0];
    const user = activity.from?.aadObjectId ?? activity.from?.id;
    if (!tenant || !channel || !user)
      return errorResult(400, "InvalidActivity", "tenant, channel and sender are required");
    const caller = { platform: "teams" as const, team: tenant, channel, user };
    const audit = (command: string, outcome: string) =>
      deps.logger.info("chat command", {
        platform: "teams",
        team: tenant,
        channel,
        user,
        command,
        outcome,
        durationMs: now() - started,
      });

    const syntax = { prefix: "@helm", snapshots: Boolean(deps.snapshots) };
    const parsed = parseChatCommand(mentionFree(activity.text ?? ""), syntax);
    if (!parsed.ok) {
      audit("?", "usage");
      return json(200, renderTeamsAnswer({ kind: "usage", error: parsed.error, usage: parsed.usage }));
    }
    const access = resolveAccess(deps.access, caller);
    const deadline = started + budgetMs;
    let target: ResolvedCommand | undefined;
    try {
      target = resolveCommand(
        parsed.command,
        access,
        deps.clusters.list().map((c) => c.name),
      );
    } catch {
      // answerCommand turns the same problem into the denial or usage answer.
    }
    const answering = answerCommand(deps, parsed.command, access, { prefix: "@helm", deadline: deadline - 300 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), Math.max(0, deadline + 300 - now()));
    });
    const answer = await Promise.race([answering, late]).finally(() => clearTimeout(timer));
    if (answer === "late") {
      audit(commandLine(parsed.command), "still-reading");
      answering.catch(() => {});
      return json(200, renderTeamsStillReading(target ?? { verb: "help" }, render));
    }
    audit(commandLine(parsed.command), answer.kind === "error" ? `error:${answer.code}` : answer.kind);
    return json(200, renderTeamsAnswer(answer, render));
  };
}

/** The activity text without the bot's @mention and Teams' HTML (`<at>helm</at>&nbsp;status api`). */
export function mentionFree(text: string): string {
  return text
    .replace(/<at>[^<]*<\/at>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replaceAll("&nbsp;", " ")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&")
    .trim();
}
