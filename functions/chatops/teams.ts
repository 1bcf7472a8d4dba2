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
import { resolveAccess } from "../../shared/chatops/access.ts";
import { acknowledge } from "../../shared/chatops/acknowledge.ts";
import { answerJob } from "../../shared/chatops/answer.ts";
import { commandLine } from "../../shared/chatops/command.ts";
import { CHAT_PLATFORMS } from "../../shared/chatops/platforms.ts";
import { instanceReplayLedger } from "../../shared/chatops/replay-ledger.ts";
import { renderTeamsStillReading } from "../../shared/chatops/teams-card.ts";
import { ValidationError } from "../../shared/errors.ts";
import { jsonResult as json } from "../_shared/http/body.ts";
import { httpHandler } from "../_shared/http/handler.ts";
import { defineRoute } from "../_shared/http/route.ts";
import type { HttpContext, HttpEvent, HttpResult } from "../_shared/http/types.ts";
import { deadlineFrom } from "../_shared/runtime.ts";
import { lambdaEntry, type ShellHandler } from "../_shared/shell.ts";
import { teamsDepsFromEnv } from "./deps.ts";
import type { TeamsDeps } from "./types.ts";
import { admit } from "./webhook.ts";

const TEAMS = CHAT_PLATFORMS.teams;

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
  const now = () => deps.clock.now().getTime();
  const replays = deps.replays ?? instanceReplayLedger();
  const budgetMs = deps.budgetMs ?? 4000;
  const render = { apiBaseUrl: deps.apiBaseUrl };
  const syntax = { prefix: TEAMS.defaultPrefix, snapshots: Boolean(deps.historyStores) };

  return httpHandler(deps.telemetry, {
    routes: [defineRoute("POST", TEAMS_PATH, (event, context) => message(event, context))],
  });

  async function message(event: HttpEvent, context: HttpContext): Promise<HttpResult> {
    const started = now();
    const activity = await admit(event, {
      platform: TEAMS,
      secret: { read: deps.securityToken, what: "Teams webhook token" },
      replays,
      logger: deps.logger,
      now: started,
      read: readActivity,
      // Teams sends a timestamp with every activity: one without (or outside the window) is refused, so a captured
      // activity cannot be replayed once the replay guard has forgotten its id (#25 item 4).
      replayKey: (activity) => {
        const sent = Date.parse(typeof activity?.timestamp === "string" ? activity.timestamp : "");
        const fresh = !Number.isNaN(sent) && Math.abs(started - sent) <= ACTIVITY_MAX_AGE_MS;
        return fresh ? `teams:${activity.id ?? event.headers?.authorization}` : undefined;
      },
    });
    const tenant = activity.channelData?.tenant?.id ?? activity.conversation?.tenantId;
    const channel = activity.channelData?.channel?.id ?? activity.conversation?.id?.split(";")[0];
    const user = activity.from?.aadObjectId ?? activity.from?.id;
    const caller = TEAMS.caller(tenant, channel, user);
    if (!caller)
      throw new ValidationError("tenant, channel and sender (well-formed ids) are required", "InvalidActivity");
    const access = resolveAccess(deps.access, caller);
    const acknowledged = acknowledge(mentionFree(activity.text ?? ""), access, {
      ...syntax,
      knownClusters: deps.clusters.list().map((c) => c.name),
    });
    const command = acknowledged.command ? commandLine(acknowledged.command) : "?";
    const audit = (outcome: string) =>
      deps.logger.info("chat command", {
        platform: TEAMS.name,
        team: tenant,
        channel,
        user,
        command,
        outcome,
        durationMs: now() - started,
      });
    if ("answer" in acknowledged) {
      audit(acknowledged.answer.kind);
      return json(200, TEAMS.render(acknowledged.answer, render, { public: true }));
    }
    // Teams waits 5 s and has no deferred channel: read within the budget, else say what is still being read.
    const deadline = deadlineFrom(context, 0, { now: started, budgetMs });
    const answering = answerJob(deps, acknowledged.job, access, { ...syntax, deadline: deadline - 300 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), Math.max(0, deadline + 300 - now()));
    });
    const answer = await Promise.race([answering, late]).finally(() => clearTimeout(timer));
    if (answer === "late") {
      audit("still-reading");
      answering.catch(() => {});
      return json(200, renderTeamsStillReading(acknowledged.job, render));
    }
    audit(answer.kind === "error" ? `error:${answer.code}` : answer.kind);
    return json(200, TEAMS.render(answer, render, { public: true }));
  }
}

function readActivity(body: Buffer): Activity {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new ValidationError("the body is not a JSON activity", "InvalidActivity");
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
