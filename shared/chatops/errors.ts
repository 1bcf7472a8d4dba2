import { DomainError, type ErrorKind, errorKind } from "../errors.ts";

/** CHATOPS_ACCESS (or another chatops setting) cannot be used: stops the function at cold start. */
export class ChatopsConfigError extends errorKind("validation", "InvalidChatopsConfig") {}

/**
 * The caller (team, channel, user) may not read that cluster/namespace. The
 * message is the same whether or not the release exists, and never names what
 * would have been allowed.
 */
export class ChatAccessDeniedError extends DomainError {
  readonly kind: ErrorKind = "forbidden";
  readonly code = "ChatAccessDenied";
  constructor() {
    super("not allowed here: this channel may not read that cluster or namespace");
  }
}
