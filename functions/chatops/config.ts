/**
 * The chatops functions' settings, read once at cold start, every problem
 * reported at once and named by its variable.
 */
import { type AccessMap, loadAccessMap } from "../../shared/chatops/access.ts";
import { CHAT_PLATFORMS } from "../../shared/chatops/platforms.ts";
import { type AllowedHost, parseAllowHosts } from "../../shared/notify/response-url.ts";
import { type Env, httpBaseUrl, matching, parseEnv, readConfig, wholeNumber } from "../_shared/config.ts";
import { type SecretSource, secretSourceFromEnv } from "./secrets.ts";

export interface ChatopsSettings {
  access: AccessMap;
  /** SLACK_RESPONSE_URL_ALLOW_HOSTS, beyond hooks.slack.com. */
  allowHosts: AllowedHost[];
  slackSecret: SecretSource;
  teamsSecret: SecretSource;
  /** CHATOPS_API_URL: the HTTP API's base URL, printed before API paths ("see GET …"). */
  apiBaseUrl?: string;
  /** CHATOPS_COMMAND: the slash command users type (default /helm), for usage texts. */
  prefix: string;
  /** SNAPSHOTS_TABLE is set: the status history exists, so `fleet` and `timeline` are offered. */
  snapshots: boolean;
  /** CHATOPS_TEAMS_BUDGET_MS: how long a Teams reply may read before answering "still reading" (default 4000). */
  teamsBudgetMs: number;
}

const TEAMS_ANSWER_MS = CHAT_PLATFORMS.teams.limits.answerWithinMs;

/** Every chatops setting, each problem named by its variable, all of them at once. */
export function chatopsSettingsFromEnv(env: Env): ChatopsSettings {
  const read = readConfig("chatops", {
    access: () => loadAccessMap(env),
    allowHosts: () => parseAllowHosts(env.SLACK_RESPONSE_URL_ALLOW_HOSTS),
    slackSecret: () => secretSourceFromEnv(env, "SLACK_SIGNING_SECRET", "SLACK_SIGNING_SECRET_PARAMETER"),
    teamsSecret: () => secretSourceFromEnv(env, "TEAMS_WEBHOOK_SECRET", "TEAMS_WEBHOOK_SECRET_PARAMETER"),
    settings: () =>
      parseEnv(env, {
        CHATOPS_API_URL: httpBaseUrl(),
        CHATOPS_COMMAND: matching(/^[/@]?[\w-]{1,32}$/, "is not like /helm", "/helm"),
        // Teams waits 5 s for the reply: the budget leaves it 200 ms to travel.
        CHATOPS_TEAMS_BUDGET_MS: wholeNumber(4000, 500, TEAMS_ANSWER_MS - 200, "Teams waits 5 s"),
      }),
  });
  return {
    access: read.access,
    allowHosts: read.allowHosts,
    slackSecret: read.slackSecret,
    teamsSecret: read.teamsSecret,
    prefix: read.settings.CHATOPS_COMMAND,
    snapshots: Boolean(env.SNAPSHOTS_TABLE?.trim()),
    teamsBudgetMs: read.settings.CHATOPS_TEAMS_BUDGET_MS,
    ...(read.settings.CHATOPS_API_URL ? { apiBaseUrl: read.settings.CHATOPS_API_URL } : {}),
  };
}
