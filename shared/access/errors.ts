import { DomainError, type ErrorKind } from "../errors.ts";

/** DASHBOARD_ACCESS (or another dashboard sign-in setting) cannot be used: stops the function at cold start. */
export class DashboardConfigError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "InvalidDashboardConfig";
}

/**
 * The signed-in person may not read that cluster/namespace. The message is the same whether or not the
 * cluster or release exists, and never names what would have been allowed.
 */
export class AccessDeniedError extends DomainError {
  readonly kind: ErrorKind = "forbidden";
  readonly code = "AccessDenied";
  constructor() {
    super("not allowed: your sign-in may not read that cluster or namespace");
  }
}

/**
 * A dashboard API request without the claims of a verified token (a misrouted request, or auth not set up).
 * Its kind is `forbidden`; the API maps its code to 401 so the page knows to sign in again.
 */
export class SignInRequiredError extends DomainError {
  readonly kind: ErrorKind = "forbidden";
  readonly code = "SignInRequired";
  constructor() {
    super("sign in first: this route needs a bearer token from the dashboard's identity provider");
  }
}
