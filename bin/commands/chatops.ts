/**
 * `chatops sign`: a signed Slack slash command (or, with --teams, a signed Teams
 * outgoing-webhook activity) as curl config for `curl -K -`, so a chat request
 * can be sent to `npm start` or a deployed endpoint without Slack. The secret
 * comes from SLACK_SIGNING_SECRET / TEAMS_WEBHOOK_SECRET (never a flag: it
 * would show in the process list). The timestamp is taken when it runs: pipe
 * it straight into curl (Slack's window is 5 minutes).
 */
import { parseArgs } from "node:util";
import { ValidationError } from "../../shared/errors.ts";
import type { CliIO } from "../lib/run.ts";
import {
  slackCommandBody,
  slackHeaders,
  slackInteractionBody,
  teamsActivityBody,
  teamsHeaders,
} from "../lib/signed-chat-request.ts";

const usage = `usage: npm run --silent cli -- chatops sign [--url URL] [--response-url URL] [--team T] [--channel C] [--user U] TEXT...
       (the flags come first; from the first other word on, everything is the command TEXT, e.g. status api -n shop)
       npm run --silent cli -- chatops sign --button helm_refresh|helm_history|helm_status ... TEXT...
       npm run --silent cli -- chatops sign --teams [--url URL] [--team TENANT] [--channel C] [--user U] TEXT...

Prints curl config (pipe it into 'curl -s -K -') for a signed request:
  a Slack slash command '/helm TEXT' (SLACK_SIGNING_SECRET signs it), or a button click with --button,
  or with --teams a Teams outgoing-webhook message '@helm TEXT' (TEAMS_WEBHOOK_SECRET, base64, signs it).
  --url           default http://127.0.0.1:3000/chatops/slack/commands (…/interactions with --button, …/teams with --teams)
  --response-url  where the deferred Slack answer goes (must be allowed by the server: hooks.slack.com or
                  SLACK_RESPONSE_URL_ALLOW_HOSTS; npm start prints its receiver's)
  --format        curl-config (default) or json ({url, headers, body})
`;

export async function run(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === undefined) {
    io.stdout.write(usage);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== "sign") throw new ValidationError(`unknown chatops subcommand "${sub}" (only: sign)`);
  // Flags come first; everything from the first other word on is the chat TEXT (which has flags of its own).
  const split = splitFlags(rest);
  const { values } = parseArgs({
    args: split.flags,
    allowPositionals: false,
    options: {
      url: { type: "string" },
      "response-url": { type: "string" },
      team: { type: "string" },
      channel: { type: "string" },
      user: { type: "string" },
      button: { type: "string" },
      teams: { type: "boolean", default: false },
      format: { type: "string", default: "curl-config" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(usage);
    return 0;
  }
  if (values.format !== "curl-config" && values.format !== "json") {
    throw new ValidationError(`--format must be curl-config or json, not "${values.format}"`);
  }
  const text = split.text.join(" ");
  const ids = { team: values.team, channel: values.channel, user: values.user };
  let url: string;
  let body: string;
  let headers: Record<string, string>;
  if (values.teams) {
    const token = io.env.TEAMS_WEBHOOK_SECRET?.trim();
    if (!token) throw new ValidationError("TEAMS_WEBHOOK_SECRET is not set (the webhook's base64 security token)");
    url = values.url ?? "http://127.0.0.1:3000/chatops/teams";
    body = teamsActivityBody({ text, tenant: ids.team, channel: ids.channel, user: ids.user });
    headers = teamsHeaders(token, body);
  } else {
    const secret = io.env.SLACK_SIGNING_SECRET?.trim();
    if (!secret) throw new ValidationError("SLACK_SIGNING_SECRET is not set (the Slack app's signing secret)");
    const responseUrl = values["response-url"];
    if (!responseUrl) throw new ValidationError("--response-url is required for Slack (where the answer is posted)");
    if (values.button) {
      url = values.url ?? "http://127.0.0.1:3000/chatops/slack/interactions";
      body = slackInteractionBody({ actionId: values.button, value: text, responseUrl, ...ids });
    } else {
      url = values.url ?? "http://127.0.0.1:3000/chatops/slack/commands";
      body = slackCommandBody({ text, responseUrl, ...ids });
    }
    headers = slackHeaders(secret, body);
  }
  if (values.format === "json") {
    io.stdout.write(`${JSON.stringify({ url, headers, body })}\n`);
    return 0;
  }
  const quote = (value: string) => `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  const lines = [
    `url = ${quote(url)}`,
    `request = "POST"`,
    ...Object.entries(headers).map(([name, value]) => `header = ${quote(`${name}: ${value}`)}`),
    `data-binary = ${quote(body)}`,
  ];
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

const VALUE_FLAGS = new Set(["--url", "--response-url", "--team", "--channel", "--user", "--button", "--format"]);
const SWITCHES = new Set(["--teams", "--help", "-h"]);

function splitFlags(args: string[]): { flags: string[]; text: string[] } {
  let i = 0;
  while (i < args.length) {
    const name = args[i].split("=")[0];
    if (args[i] === "--") return { flags: args.slice(0, i), text: args.slice(i + 1) };
    if (SWITCHES.has(name)) i += 1;
    else if (VALUE_FLAGS.has(name)) i += args[i].includes("=") ? 1 : 2;
    else break;
  }
  return { flags: args.slice(0, i), text: args.slice(i) };
}
