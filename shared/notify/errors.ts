import { DomainError } from "../errors.ts";

/** An allow-list of hosts to POST to (SLACK_RESPONSE_URL_ALLOW_HOSTS, AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS) is malformed. */
export class AllowHostsConfigError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "InvalidAllowHosts";
}

/** A URL the product will not POST to (not Slack's, not in the allow-list). */
export class ResponseUrlRefusedError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "ResponseUrlRefused";
}

/** The receiver did not take the message (after the retries Slack's budget allows). */
export class ChatDeliveryError extends DomainError {
  readonly kind = "unavailable" as const;
  readonly code = "ChatDeliveryFailed";
}
