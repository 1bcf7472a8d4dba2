/**
 * What an AWS SDK error's name says, whichever service answered: each service names the same answer its own way
 * (DynamoDB's ProvisionedThroughputExceededException, STS's Throttling, CloudWatch Logs' LimitExceededException),
 * so every caller classifies by one table and decides for itself what each kind means for its call (retry, refuse,
 * say so). Names only: a status code or a network code is the caller's to read.
 */

/**
 * - `throttled`: a rate or concurrency limit; try again after a backoff.
 * - `unavailable`: the service's own failure (5xx names); try again.
 * - `denied`: these credentials may not make this call, or the request was not signed as AWS accepts.
 * - `expired`: the credentials' session ended (a cached AssumeRole's); new credentials may succeed.
 */
export type AwsErrorKind = "throttled" | "unavailable" | "denied" | "expired";

const KIND_OF_NAME: Readonly<Record<string, AwsErrorKind>> = {
  ThrottlingException: "throttled",
  Throttling: "throttled",
  TooManyRequestsException: "throttled",
  RequestLimitExceeded: "throttled",
  LimitExceededException: "throttled",
  ProvisionedThroughputExceededException: "throttled",
  ServiceUnavailable: "unavailable",
  ServiceUnavailableException: "unavailable",
  InternalServerError: "unavailable",
  InternalFailure: "unavailable",
  AccessDeniedException: "denied",
  UnrecognizedClientException: "denied",
  InvalidSignatureException: "denied",
  IncompleteSignature: "denied",
  MissingAuthenticationToken: "denied",
  MissingAuthenticationTokenException: "denied",
  ExpiredTokenException: "expired",
};

/** The kind of AWS answer `error` is, by its name; undefined for any other error. */
export function awsErrorKind(error: unknown): AwsErrorKind | undefined {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && Object.hasOwn(KIND_OF_NAME, name) ? KIND_OF_NAME[name] : undefined;
}
