/**
 * Builds requests as Slack and Teams send them, signed (for `chatops sign`,
 * `npm start`'s curl and the tests): a slash-command form, an interaction
 * `payload`, a Teams outgoing-webhook activity.
 */
import { randomBytes } from "node:crypto";
import { slackSignature, teamsSignature } from "../../shared/chatops/signature.ts";
import { systemClock } from "../../shared/ports.ts";

export interface SlackCommandFields {
  text: string;
  responseUrl: string;
  team?: string;
  channel?: string;
  user?: string;
  command?: string;
}

/** The form body of a slash command, fields in Slack's order. */
export function slackCommandBody(fields: SlackCommandFields): string {
  const form = new URLSearchParams({
    token: "local-verification-token",
    team_id: fields.team ?? "T0LOCAL",
    team_domain: "local",
    channel_id: fields.channel ?? "C0LOCAL",
    channel_name: "local",
    user_id: fields.user ?? "U0LOCAL",
    user_name: "local",
    command: fields.command ?? "/helm",
    text: fields.text,
    api_app_id: "A0LOCAL",
    is_enterprise_install: "false",
    response_url: fields.responseUrl,
    trigger_id: `${systemClock.now().getTime()}.${randomBytes(6).toString("hex")}`,
  });
  return form.toString();
}

/** The form body of a button click (block_actions). */
export function slackInteractionBody(fields: {
  actionId: string;
  value: string;
  responseUrl: string;
  team?: string;
  channel?: string;
  user?: string;
}): string {
  const payload = {
    type: "block_actions",
    team: { id: fields.team ?? "T0LOCAL", domain: "local" },
    user: { id: fields.user ?? "U0LOCAL", username: "local" },
    channel: { id: fields.channel ?? "C0LOCAL", name: "local" },
    container: { type: "message", channel_id: fields.channel ?? "C0LOCAL", is_ephemeral: true },
    response_url: fields.responseUrl,
    actions: [{ type: "button", action_id: fields.actionId, block_id: "helm_actions", value: fields.value }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export function slackHeaders(
  secret: string,
  body: string | Buffer,
  nowMs = systemClock.now().getTime(),
): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    "content-type": "application/x-www-form-urlencoded",
    "x-slack-request-timestamp": timestamp,
    "x-slack-signature": slackSignature(secret, timestamp, body),
  };
}

/** An outgoing-webhook activity as Teams posts it (`<at>helm</at> status api`). */
export function teamsActivityBody(fields: {
  text: string;
  tenant?: string;
  channel?: string;
  user?: string;
  now?: number;
}): string {
  const channel = fields.channel ?? "19:local@thread.tacv2";
  const now = fields.now ?? systemClock.now().getTime();
  return JSON.stringify({
    type: "message",
    id: `${now}${randomBytes(4).toString("hex")}`,
    timestamp: new Date(now).toISOString(),
    serviceUrl: "https://smba.trafficmanager.net/emea/",
    channelId: "msteams",
    from: {
      id: "29:local-user",
      name: "Local User",
      aadObjectId: fields.user ?? "00000000-0000-0000-0000-00000000user",
    },
    conversation: {
      isGroup: true,
      id: `${channel};messageid=1`,
      conversationType: "channel",
      tenantId: fields.tenant ?? "tenant-local",
    },
    recipient: { id: "28:helm-bot", name: "helm" },
    textFormat: "plain",
    text: `<at>helm</at>&nbsp;${fields.text}`,
    channelData: { teamsChannelId: channel, channel: { id: channel }, tenant: { id: fields.tenant ?? "tenant-local" } },
  });
}

export function teamsHeaders(securityToken: string, body: string | Buffer): Record<string, string> {
  return { "content-type": "application/json", authorization: `HMAC ${teamsSignature(securityToken, body)}` };
}
