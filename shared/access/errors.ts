import { DomainError, type ErrorKind } from "../errors.ts";

/** DASHBOARD_ACCESS (or another dashboard sign-in setting) cannot be used: stops the function at cold start. */
export class DashboardConfigError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "InvalidDashboardConfig";
}

/**
 * The caller (a signed-in person; a chat channel: ChatAccessDeniedError) may not read that cluster/namespace.
 * The message is the same whether or not the cluster or release exists, and never names what would have been
 * allowed.
 */
export class AccessDeniedError extends DomainError {
  readonly kind: ErrorKind = "forbidden";
  readonly code: string = "AccessDenied";
  constructor(message = "not allowed: your sign-in may not read that cluster or namespace") {
    super(message);
  }
}
