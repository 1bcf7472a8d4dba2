import { errorKind } from "../errors.ts";

/** An allow-list of hosts to POST to (SLACK_RESPONSE_URL_ALLOW_HOSTS, AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS) is malformed. */
export class AllowHostsConfigError extends errorKind("validation", "InvalidAllowHosts") {}

/** A URL the product will not POST to (not Slack's, not in the allow-list). */
export class ResponseUrlRefusedError extends errorKind("validation", "ResponseUrlRefused") {}

/** The receiver did not take the message (after the retries Slack's budget allows). */
export class ChatDeliveryError extends errorKind("unavailable", "ChatDeliveryFailed") {}
