import assert from "node:assert/strict";
import { test } from "node:test";
import { awsErrorKind } from "../../shared/aws/error-names.ts";

// Names as the SDK's service exceptions carry them (each service's own spelling of the same answer).
test("every service's spelling of an answer is one kind", () => {
  const named = (name: string) => Object.assign(new Error("x"), { name });
  assert.equal(awsErrorKind(named("ProvisionedThroughputExceededException")), "throttled"); // DynamoDB
  assert.equal(awsErrorKind(named("Throttling")), "throttled"); // STS
  assert.equal(awsErrorKind(named("LimitExceededException")), "throttled"); // CloudWatch Logs' query limit
  assert.equal(awsErrorKind(named("ServiceUnavailableException")), "unavailable");
  assert.equal(awsErrorKind(named("InternalServerError")), "unavailable");
  assert.equal(awsErrorKind(named("AccessDeniedException")), "denied");
  assert.equal(awsErrorKind(named("MissingAuthenticationToken")), "denied");
  assert.equal(awsErrorKind(named("ExpiredTokenException")), "expired");
});

test("anything else has no kind: other names, inherited property names, no error at all", () => {
  assert.equal(awsErrorKind(Object.assign(new Error("x"), { name: "ResourceNotFoundException" })), undefined);
  assert.equal(awsErrorKind({ name: "constructor" }), undefined);
  assert.equal(awsErrorKind({ name: "toString" }), undefined);
  assert.equal(awsErrorKind(undefined), undefined);
  assert.equal(awsErrorKind("ThrottlingException"), undefined);
});
