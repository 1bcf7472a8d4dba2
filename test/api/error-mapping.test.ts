/** One taxonomy, mapped once: the product's own failures are 502/503-class, a caller's own denial is a 403. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AccessDeniedException } from "@aws-sdk/client-eks";
import { reportError } from "../../bin/lib/run.ts";
import { toHttpError } from "../../functions/_shared/http/error-mapping.ts";
import { ClusterAccessDeniedError } from "../../shared/clusters/errors.ts";
import { CallerForbiddenError } from "../../shared/errors.ts";
import { translateAwsError } from "../../shared/store/dynamodb-errors.ts";

const PRINCIPAL = "arn:aws:sts::123456789012:assumed-role/helm-status-api-role/helm-status-api";
const awsDenied = new AccessDeniedException({
  message: `User: ${PRINCIPAL} is not authorized to perform: dynamodb:GetItem on resource: arn:aws:dynamodb:eu-west-1:123456789012:table/helm-releases`,
  $metadata: { httpStatusCode: 400 },
});

function body(result: ReturnType<typeof toHttpError>) {
  return JSON.parse(result.body as string) as { error: { code: string; message: string; requestId?: string } };
}

test("DynamoDB refusing the service's role: 502 service misconfigured, naming table and role, no principal ARN", () => {
  const error = translateAwsError(awsDenied, { tableName: "helm-releases", region: "eu-west-1" });
  const result = toHttpError(error, "req-1");
  assert.equal(result.statusCode, 502);
  assert.deepEqual(body(result).error, {
    code: "StoreForbidden",
    message:
      'service misconfigured: DynamoDB refused the service\'s role "helm-status-api-role" on table "helm-releases"; an operator must fix its IAM permissions',
    requestId: "req-1",
  });
  assert.doesNotMatch(result.body as string, /arn:aws|123456789012|not authorized/);
});

test("EKS refusing the service's role: 502 naming cluster and role; the CLI (the user's own credentials) says it all", () => {
  const eksDenied = new AccessDeniedException({
    message: `User: ${PRINCIPAL} is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:eu-west-1:123456789012:cluster/prod`,
    $metadata: { httpStatusCode: 403 },
  });
  const error = new ClusterAccessDeniedError(
    "prod",
    `DescribeCluster for cluster "prod" was denied: ${eksDenied.message}`,
    {
      cause: eksDenied,
      action: "DescribeCluster",
    },
  );
  const result = toHttpError(error, "req-2");
  assert.equal(result.statusCode, 502);
  assert.equal(
    body(result).error.message,
    'service misconfigured: DescribeCluster for cluster "prod" was denied to the service\'s role "helm-status-api-role"; an operator must fix its IAM permissions or the cluster\'s access entries',
  );
  assert.doesNotMatch(result.body as string, /arn:aws|123456789012/);

  let stderr = "";
  const io = {
    stdout: process.stdout,
    stdin: process.stdin,
    env: {},
    stderr: { write: (text: string) => (stderr += text) } as unknown as NodeJS.WritableStream,
  };
  assert.equal(reportError(error, io), 1);
  assert.match(stderr, /^Error: DescribeCluster for cluster "prod" was denied: User: arn:aws:sts::/);
});

test("a caller's own denial stays a 403 with its message", () => {
  const result = toHttpError(new CallerForbiddenError('user U123 may not read cluster "prod"'), "req-3");
  assert.equal(result.statusCode, 403);
  assert.deepEqual(body(result).error, {
    code: "Forbidden",
    message: 'user U123 may not read cluster "prod"',
    requestId: "req-3",
  });
});
