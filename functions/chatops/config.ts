/**
 * The chatops functions' settings, read once at cold start, every problem
 * reported at once and named by its variable.
 */
import { type AccessMap, loadAccessMap } from "../../shared/chatops/access.ts";
import { ChatopsConfigError } from "../../shared/chatops/errors.ts";
import { type AllowedHost, parseAllowHosts } from "../../shared/chatops/response-url.ts";
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

type Env = Record<string, string | undefined>;

export function chatopsSettingsFromEnv(env: Env): ChatopsSettings {
  const problems: string[] = [];
  const attempt = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      problems.push((error as Error).message);
      return fallback;
    }
  };
  const settings: ChatopsSettings = {
    access: attempt(() => loadAccessMap(env), { slack: [], teams: [] }),
    allowHosts: attempt(() => parseAllowHosts(env.SLACK_RESPONSE_URL_ALLOW_HOSTS), []),
    slackSecret: attempt(() => secretSourceFromEnv(env, "SLACK_SIGNING_SECRET", "SLACK_SIGNING_SECRET_PARAMETER"), {
      kind: "none",
    } as SecretSource),
    teamsSecret: attempt(() => secretSourceFromEnv(env, "TEAMS_WEBHOOK_SECRET", "TEAMS_WEBHOOK_SECRET_PARAMETER"), {
      kind: "none",
    } as SecretSource),
    prefix: env.CHATOPS_COMMAND?.trim() || "/helm",
    snapshots: Boolean(env.SNAPSHOTS_TABLE?.trim()),
    teamsBudgetMs: 4000,
  };
  const api = env.CHATOPS_API_URL?.trim();
  if (api) {
    if (/^https?:\/\/[^\s/]+(\/\S*)?$/.test(api)) settings.apiBaseUrl = api.replace(/\/$/, "");
    else problems.push(`CHATOPS_API_URL ${JSON.stringify(api.slice(0, 100))} is not an http(s) URL`);
  }
  const budget = env.CHATOPS_TEAMS_BUDGET_MS?.trim();
  if (budget) {
    if (/^\d+$/.test(budget) && Number(budget) >= 500 && Number(budget) <= 4800)
      settings.teamsBudgetMs = Number(budget);
    else problems.push(`CHATOPS_TEAMS_BUDGET_MS=${JSON.stringify(budget)} must be 500..4800 (Teams waits 5 s)`);
  }
  if (!/^[/@]?[\w-]{1,32}$/.test(settings.prefix))
    problems.push(`CHATOPS_COMMAND "${settings.prefix}" is not like /helm`);
  if (problems.length > 0) throw new ChatopsConfigError(`invalid chatops configuration: ${problems.join("; ")}`);
  return settings;
}
