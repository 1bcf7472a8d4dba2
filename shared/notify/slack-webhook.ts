/**
 * Change notifications to a Slack incoming webhook (AUDIT_SLACK_WEBHOOK_URL).
 * The product never POSTs where it should not: only https://hooks.slack.com/...
 * unless AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS names another host (`host` or `host:port`;
 * http allowed for those, e.g. a loopback receiver in tests). The URL is a secret
 * (it grants posting): it is never logged or echoed in errors.
 */

import { type AllowedHost, parseAllowHosts, postToResponseUrl } from "../notify/response-url.ts";
import type { Logger } from "../ports.ts";
import { describeChange } from "../snapshots/changes.ts";
import { HistoryConfigError } from "../snapshots/errors.ts";
import type { Snapshot } from "../snapshots/model.ts";
import { CAUSES_SHOWN } from "../why/causes.ts";

export const SLACK_WEBHOOK_HOST = "hooks.slack.com";

export interface SlackWebhook {
  post(body: unknown): Promise<void>;
}

export function checkWebhookUrl(value: string, allowHostsVariable: string | undefined): URL {
  let allowed: AllowedHost[];
  try {
    allowed = parseAllowHosts(allowHostsVariable);
  } catch (error) {
    throw new HistoryConfigError(
      `AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS: ${(error as Error).message.replace(/^SLACK_RESPONSE_URL_ALLOW_HOSTS: /, "")}`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HistoryConfigError(
      "AUDIT_SLACK_WEBHOOK_URL is not a URL (expected https://hooks.slack.com/services/...)",
    );
  }
  if (url.username || url.password) throw new HistoryConfigError("AUDIT_SLACK_WEBHOOK_URL must not carry credentials");
  const defaultPort = url.protocol === "https:" ? 443 : 80;
  const port = url.port === "" ? defaultPort : Number(url.port);
  if (url.protocol === "https:" && url.hostname === SLACK_WEBHOOK_HOST && port === 443) return url;
  const host = url.hostname.toLowerCase();
  if (
    (url.protocol === "https:" || url.protocol === "http:") &&
    allowed.some((a) => a.host === host && (a.port ?? defaultPort) === port)
  ) {
    return url;
  }
  throw new HistoryConfigError(
    `AUDIT_SLACK_WEBHOOK_URL must be an https://${SLACK_WEBHOOK_HOST}/ URL (host ${url.host || "(none)"} is not in AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS)`,
  );
}

export function slackWebhook(
  url: URL,
  options: { fetch?: typeof fetch; logger?: Logger; timeoutMs?: number } = {},
): SlackWebhook {
  return {
    async post(body) {
      // Three attempts with backoff: a Lambda worker must not sit out Slack's whole retry budget.
      await postToResponseUrl(url, body, {
        budget: 3,
        maxDelayMs: 2_000,
        timeoutMs: options.timeoutMs ?? 5_000,
        ...options,
      });
    },
  };
}

const MAX_LISTED_CHANGES = 10;

/** Block Kit: release, cluster, health from -> to, what changed, a link to the snapshot in the API. */
export function changeMessage(
  snapshot: Snapshot,
  previous: Snapshot | undefined,
  apiBaseUrl?: string,
  /** What preceded the change and who made it (`revision 5 by ci-deployer 2 min before`; audit/change-events.ts). */
  precededBy: readonly string[] = [],
): Record<string, unknown> {
  const { release } = snapshot;
  const from = previous?.health.overall;
  const to = snapshot.health.overall;
  const headline = `${release.namespace}/${release.name} on ${release.cluster}: ${from ? `${from} → ${to}` : to}`;
  // A new cause is said under *Why* (with the causes that did not change): not twice.
  const changes = snapshot.changes.filter((c) => c.kind !== "cause");
  const lines = changes.slice(0, MAX_LISTED_CHANGES).map((c) => `• ${mrkdwnEscape(describeChange(c))}`);
  if (changes.length > MAX_LISTED_CHANGES) lines.push(`• … and ${changes.length - MAX_LISTED_CHANGES} more`);
  const path = `/clusters/${release.cluster}/namespaces/${release.namespace}/releases/${release.name}/snapshots/${encodeURIComponent(snapshot.id)}`;
  const link = apiBaseUrl
    ? `<${apiBaseUrl.replace(/\/$/, "")}${path}|snapshot ${mrkdwnEscape(snapshot.id)}>`
    : `\`${path}\``;
  return {
    text: headline,
    blocks: [
      { type: "header", text: { type: "plain_text", text: headline.slice(0, 150), emoji: false } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: `*Release*\n${mrkdwnEscape(`${release.namespace}/${release.name}`)}` },
          { type: "mrkdwn", text: `*Cluster*\n${mrkdwnEscape(release.cluster)}` },
          { type: "mrkdwn", text: `*Health*\n${from ? `${from} → ${to}` : to}` },
          { type: "mrkdwn", text: `*Revision*\n${snapshot.revision} (${mrkdwnEscape(snapshot.releaseStatus)})` },
        ],
      },
      { type: "section", text: { type: "mrkdwn", text: `*What changed*\n${lines.join("\n") || "•"}`.slice(0, 3000) } },
      // Identities are data: escaped like every other text of the message.
      ...(precededBy.length
        ? [
            {
              type: "section",
              text: {
                type: "mrkdwn",
                text: `*Before it*\n${precededBy.map((line) => `• ${mrkdwnEscape(line)}`).join("\n")}`.slice(0, 3000),
              },
            },
          ]
        : []),
      ...(snapshot.causes?.length
        ? [{ type: "section", text: { type: "mrkdwn", text: `*Why*\n${whyLines(snapshot.causes)}`.slice(0, 3000) } }]
        : []),
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: `${mrkdwnEscape(snapshot.health.message).slice(0, 500)} · ${link}` }],
      },
    ],
  };
}

function whyLines(causes: NonNullable<Snapshot["causes"]>): string {
  return causes
    .slice(0, CAUSES_SHOWN)
    .map((c) => `• ${mrkdwnEscape(c.text)}`)
    .join("\n");
}

function mrkdwnEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
