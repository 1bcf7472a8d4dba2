/** infra/checks.cjs (fast): the queue and role rules a template must follow beyond the CloudFormation spec. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { checks, type Json, type Template } from "./infra.ts";

function stack(queue: Json, mapping: Json = {}, dlq: Json = { MessageRetentionPeriod: 1_209_600 }): Template {
  return {
    Resources: {
      WorkerLambdaFunction: {
        Type: "AWS::Lambda::Function",
        Properties: { Timeout: 60, Role: { "Fn::GetAtt": ["WorkerRole", "Arn"] } },
      },
      WorkQueue: { Type: "AWS::SQS::Queue", Properties: queue },
      WorkDeadLetters: { Type: "AWS::SQS::Queue", Properties: dlq },
      WorkerEventSourceMappingSQSWorkQueue: {
        Type: "AWS::Lambda::EventSourceMapping",
        Properties: {
          EventSourceArn: { "Fn::GetAtt": ["WorkQueue", "Arn"] },
          FunctionName: { "Fn::GetAtt": ["WorkerLambdaFunction", "Arn"] },
          FunctionResponseTypes: ["ReportBatchItemFailures"],
          ...mapping,
        },
      },
    },
  };
}
const redrive = { deadLetterTargetArn: { "Fn::GetAtt": ["WorkDeadLetters", "Arn"] }, maxReceiveCount: 5 };

test("a consumed queue with 6 x visibility, a longer-lived DLQ and partial batch responses passes", () => {
  assert.deepEqual(checks.checkOperations(stack({ VisibilityTimeout: 360, RedrivePolicy: redrive })), []);
});

test("short visibility, no partial batch response, no or a hasty DLQ, a short-lived DLQ are each reported", () => {
  assert.deepEqual(
    checks.checkOperations(
      stack(
        { VisibilityTimeout: 120, RedrivePolicy: { ...redrive, maxReceiveCount: 1 } },
        { FunctionResponseTypes: [] },
        {},
      ),
    ),
    [
      "WorkQueue: VisibilityTimeout 120 s is under 6 x WorkerLambdaFunction's 60 s timeout (360 s)",
      "WorkerEventSourceMappingSQSWorkQueue: functionResponseType ReportBatchItemFailures is not set (one bad message fails the batch)",
      "WorkQueue: maxReceiveCount 1 dead-letters messages on a transient error",
      "WorkDeadLetters: keeps messages no longer than WorkQueue (expiry counts from the first enqueue)",
    ],
  );
  assert.deepEqual(checks.checkOperations(stack({ VisibilityTimeout: 360 })), [
    "WorkQueue: no RedrivePolicy to a dead-letter queue of this stack (poison messages loop forever)",
  ]);
});

test("two functions on one role are reported", () => {
  const template = stack({ VisibilityTimeout: 360, RedrivePolicy: redrive });
  template.Resources.OtherLambdaFunction = {
    Type: "AWS::Lambda::Function",
    Properties: { Role: { "Fn::GetAtt": ["WorkerRole", "Arn"] } },
  };
  assert.deepEqual(checks.checkOperations(template), [
    "OtherLambdaFunction: shares role WorkerRole with WorkerLambdaFunction (one role per function)",
  ]);
});
