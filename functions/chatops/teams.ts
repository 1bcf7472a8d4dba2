/**
 * POST /chatops/teams: a Teams outgoing webhook. Teams signs the raw body
 * (`Authorization: HMAC <base64>`, keyed with the base64-decoded security
 * token) and waits 5 seconds for a synchronous reply; there is no deferred
 * channel. So the command runs inline against a budget (default 4 s): a status
 * past it answers what is known, the partial report, or "still reading, see
 * GET …" when even the release could not be read in time. Teams signatures
 * cover no timestamp header: the activity's own `timestamp` must be within 5
 * minutes either way (an activity without one is refused), and an id seen
 * before is refused as a replay.
 */
import { type AccessMap, resolveAccess } from "../../shared/chatops/access.ts";
import { answerCommand, type ChatDeps, type ResolvedCommand, resolveCommand } from "../../shared/chatops/answer.ts";
import { commandLine, parseChatCommand } from "../../shared/chatops/command.ts";
import { ReplayGuard, verifyTeamsSignature } from "../../shared/chatops/signature.ts";
import { renderTeamsAnswer, renderTeamsStillReading } from "../../shared/chatops/teams-card.ts";
import { ValidationError } from "../../shared/errors.ts";
import { jsonResult as json } from "../_shared/http/body.ts";
import { UnauthorizedError } from "../_shared/http/errors.ts";
import { httpHandler } from "../_shared/http/handler.ts";
import { defineRoute } from "../_shared/http/route.ts";
import type { HttpContext, HttpEvent, HttpResult } from "../_shared/http/types.ts";
import { lambdaEntry, type ShellHandler, type Telemetry } from "../_shared/shell.ts";
import { teamsDepsFromEnv } from "./deps.ts";
import { webhookBody, webhookSecret } from "./webhook.ts";

export interface TeamsDeps extends ChatDeps {
  /** Powertools' Logger and Metrics, for the shell's middlewares. */
  telemetry: Telemetry;
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

export function createTeamsHandler(deps: TeamsDeps): ShellHandler<HttpEvent, HttpResult, HttpContext> {
  const now = deps.now ?? Date.now;
  const replays = new ReplayGuard();
  const budgetMs = deps.budgetMs ?? 4000;
  const render = { apiBaseUrl: deps.apiBaseUrl };

  return httpHandler(deps.telemetry, { routes: [defineRoute("POST", TEAMS_PATH, (event) => message(event))] });

  async function message(event: HttpEvent): Promise<HttpResult> {
    const started = now();
    const body = webhookBody(event);
    const authorization = event.headers?.authorization;
    const securityToken = await webhookSecret(deps.securityToken, deps.logger, "Teams webhook token");
    if (!verifyTeamsSignature({ securityToken, authorization, body })) {
      deps.logger.warn("chat request refused", { platform: "teams", outcome: "unauthorized" });
      throw new UnauthorizedError();
    }
    let activity: Activity;
    try {
      activity = JSON.parse(body.toString("utf8"));
    } catch {
      throw new ValidationError("the body is not a JSON activity", "InvalidActivity");
    }
    // Teams sends a timestamp with every activity: one without (or outside the window) is refused, so a captured
    // activity cannot be replayed once the replay guard has forgotten its id (#25 item 4).
    const sent = Date.parse(typeof activity?.timestamp === "string" ? activity.timestamp : "");
    const fresh = !Number.isNaN(sent) && Math.abs(now() - sent) <= ACTIVITY_MAX_AGE_MS;
    if (!fresh || !replays.firstSeen(`teams:${activity.id ?? authorization}`, now())) {
      deps.logger.warn("chat request refused", { platform: "teams", outcome: "replay" });
      throw new UnauthorizedError();
    }
    const tenant = activity.channelData?.tenant?.id ?? activity.conversation?.tenantId;
    const channel = activity.channelData?.channel?.id ?? activity.conversation?.id?.split(";")[0];
    const user = activity.from?.aadObjectId ?? activity.from?.id;
    if (!tenant || !channel || !user)
      throw new ValidationError("tenant, channel and sender are required", "InvalidActivity");
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
  }
}

/** The Lambda entry point (serverless.yml: chatopsTeamsWebhook). */
export const handler = lambdaEntry(() => createTeamsHandler(teamsDepsFromEnv(process.env)));

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
