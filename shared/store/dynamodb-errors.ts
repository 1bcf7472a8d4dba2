/** Turns AWS SDK failures into the store's domain errors, naming the endpoint and table. */
import { awsErrorKind } from "../aws/error-names.ts";
import { isDomainError } from "../errors.ts";
import { StoreForbiddenError, StoreTimeoutError, StoreUnavailableError } from "./errors.ts";

export interface StoreLocation {
  tableName: string;
  region: string;
  endpoint?: string;
}

export function describeEndpoint(location: StoreLocation): string {
  return location.endpoint ?? `dynamodb.${location.region}.amazonaws.com`;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed",
};
export function translateAwsError(error: unknown, location: StoreLocation): unknown {
  if (isDomainError(error)) return error;
  const e = error as { name?: string; code?: string; message?: string; errors?: { code?: string }[] };
  const where = `DynamoDB at ${describeEndpoint(location)}`;
  const code = e?.code ?? e?.errors?.find((inner) => inner?.code)?.code;
  if (code && NETWORK_CODES[code]) {
    return new StoreUnavailableError(`cannot reach ${where}: ${NETWORK_CODES[code]} (${code})`, "StoreUnreachable", {
      cause: error,
    });
  }
  if (e?.name === "TimeoutError" || code === "ETIMEDOUT" || e?.name === "RequestTimeout") {
    return new StoreTimeoutError(`${where} did not answer in time`, { cause: error });
  }
  // The request's budget ran out (shared/request-budget.ts): the only abort a store call is given.
  if (e?.name === "AbortError") {
    return new StoreTimeoutError(`${where} did not answer before the request's deadline`, { cause: error });
  }
  if (e?.name === "ResourceNotFoundException") {
    return new StoreUnavailableError(
      `table "${location.tableName}" does not exist at ${describeEndpoint(location)} (region ${location.region}); ` +
        "create it with `npm run --silent cli -- init`",
      "TableNotFound",
      { cause: error },
    );
  }
  if (e?.name === "CredentialsProviderError") {
    return new StoreForbiddenError(`no AWS credentials to call ${where}: ${e.message}`, {
      table: location.tableName,
      cause: error,
    });
  }
  const kind = awsErrorKind(error);
  if (kind === "denied" || kind === "expired") {
    return new StoreForbiddenError(`${where} refused our credentials: ${e.name}`, {
      table: location.tableName,
      cause: error,
    });
  }
  if (kind === "throttled" || kind === "unavailable") {
    return new StoreUnavailableError(
      `${where} is throttling or failing requests: ${e.name}: ${e.message}`,
      "StoreThrottled",
      {
        cause: error,
      },
    );
  }
  return error;
}
