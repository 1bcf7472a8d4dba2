/** infra/monitoring.cjs (fast): alarms for every function and dead-letter queue, product alarms, the dashboard. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateTemplate } from "../../infra/validate-template.ts";
import { type Json, monitoring, settings, type Template } from "./infra.ts";

const alarms = settings.validateSettings(
  { alarms: { topicArn: "arn:aws:sns:eu-west-1:123456789012:oncall", auditLagMinutes: 20 } },
  "test",
  "prod",
).alarms;

const template: Template = {
  Resources: {
    ApiLambdaFunction: { Type: "AWS::Lambda::Function", Properties: { Timeout: 29, Role: "x", Code: {} } },
    AuditWorkerLambdaFunction: { Type: "AWS::Lambda::Function", Properties: { Timeout: 60, Role: "x", Code: {} } },
    AuditQueue: {
      Type: "AWS::SQS::Queue",
      Properties: {
        RedrivePolicy: { deadLetterTargetArn: { "Fn::GetAtt": ["AuditDeadLetters", "Arn"] }, maxReceiveCount: 5 },
      },
    },
    AuditDeadLetters: { Type: "AWS::SQS::Queue", Properties: {} },
    HttpApi: { Type: "AWS::ApiGatewayV2::Api", Properties: { Name: "x", ProtocolType: "HTTP" } },
    ReleasesTable: {
      Type: "AWS::DynamoDB::Table",
      Properties: { KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }] },
    },
  },
};
const functions = [
  { key: "api", logicalId: "ApiLambdaFunction" },
  { key: "auditWorker", logicalId: "AuditWorkerLambdaFunction" },
];
const definitions: Record<string, Json> = {
  statusLatencyP99: {
    function: "api",
    metric: "RequestLatency",
    dimensions: { service: "helm-status-api", route: "GET /x", outcome: "success" },
    statistic: "p99",
    comparison: ">",
    threshold: 10000,
  },
  auditLag: {
    function: "auditPlanner",
    metric: "AuditLag",
    dimensions: { service: "helm-status-audit" },
    statistic: "Maximum",
    comparison: ">",
    threshold: alarms.auditLagSeconds,
    treatMissingData: "breaching",
  },
};

function build(overrides: Partial<Parameters<typeof monitoring.buildMonitoring>[0]> = {}) {
  return monitoring.buildMonitoring({
    template,
    functions,
    definitions,
    settings: alarms,
    service: "svc",
    stage: "prod",
    ...overrides,
  });
}

test("every function gets errors, throttles and p99 duration alarms; every dead-letter queue a depth alarm", () => {
  const { Resources } = build();
  const ids = Object.keys(Resources).filter((id) => Resources[id].Type === "AWS::CloudWatch::Alarm");
  assert.deepEqual(ids.sort(), [
    "ApiDurationAlarm",
    "ApiErrorsAlarm",
    "ApiThrottlesAlarm",
    "AuditDeadLettersDepthAlarm",
    "AuditQueueAgeAlarm",
    "AuditWorkerDurationAlarm",
    "AuditWorkerErrorsAlarm",
    "AuditWorkerThrottlesAlarm",
    "HttpApi5xxAlarm",
    "ReleasesTableReadThrottleAlarm",
    "ReleasesTableWriteThrottleAlarm",
    "StatusLatencyP99Alarm",
  ]);
  const duration = Resources.AuditWorkerDurationAlarm.Properties;
  assert.equal(duration.ExtendedStatistic, "p99");
  assert.equal(duration.Statistic, undefined, "a percentile alarm sets ExtendedStatistic only");
  assert.equal(duration.Threshold, 48_000, "80% of the 60 s timeout");
  const depth = Resources.AuditDeadLettersDepthAlarm.Properties;
  assert.deepEqual(depth.Dimensions, [
    { Name: "QueueName", Value: { "Fn::GetAtt": ["AuditDeadLetters", "QueueName"] } },
  ]);
  assert.equal(depth.Threshold, 0);
  assert.equal(depth.ComparisonOperator, "GreaterThanThreshold");
  for (const id of ids) {
    assert.deepEqual(Resources[id].Properties.AlarmActions, ["arn:aws:sns:eu-west-1:123456789012:oncall"], id);
  }
});

test("a product alarm watches its EMF metric with the exact dimension set; one whose function is absent is skipped", () => {
  const skipped: string[] = [];
  const { Resources } = build({ log: (message) => skipped.push(message) });
  const status = Resources.StatusLatencyP99Alarm.Properties;
  assert.equal(status.Namespace, "HelmStatus");
  assert.deepEqual(status.Dimensions, [
    { Name: "service", Value: "helm-status-api" },
    { Name: "route", Value: "GET /x" },
    { Name: "outcome", Value: "success" },
  ]);
  assert.equal(Resources.AuditLagAlarm, undefined);
  assert.match(skipped.join("\n"), /auditLag skipped: no function "auditPlanner"/);
  const withPlanner = build({
    functions: [...functions, { key: "auditPlanner", logicalId: "AuditPlannerLambdaFunction" }],
  });
  assert.equal(withPlanner.Resources.AuditLagAlarm.Properties.Threshold, 1200);
  assert.equal(withPlanner.Resources.AuditLagAlarm.Properties.TreatMissingData, "breaching");
});

test("a product alarm on AWS/Lambda defaults to its function's FunctionName", () => {
  const { Resources } = build({
    definitions: {
      ackLatency: {
        function: "api",
        namespace: "AWS/Lambda",
        metric: "Duration",
        statistic: "p99",
        comparison: ">",
        threshold: 2500,
      },
    },
  });
  assert.deepEqual(Resources.AckLatencyAlarm.Properties.Dimensions, [
    { Name: "FunctionName", Value: { Ref: "ApiLambdaFunction" } },
  ]);
  const body = (Resources.OperationsDashboard.Properties.DashboardBody as { "Fn::Sub": string })["Fn::Sub"];
  assert.match(body, /"AWS\/Lambda","Duration","FunctionName","\$\{ApiLambdaFunction\}"/);
});

test("bad product alarm definitions fail the package with every problem named", () => {
  assert.throws(
    () =>
      build({
        definitions: {
          bad: {
            function: "api",
            metric: "X",
            dimensions: {},
            statistic: "Median",
            comparison: "~",
            threshold: "high",
            colour: 1,
          },
        },
      }),
    (error: Error) =>
      ["bad.colour: unknown field", "bad.comparison", "bad.statistic", "bad.threshold"].every((part) =>
        error.message.includes(part),
      ),
  );
});

test("the dashboard body is JSON once substituted, and the result is a valid template", () => {
  const { Resources } = build();
  const body = (Resources.OperationsDashboard.Properties.DashboardBody as { "Fn::Sub": string })["Fn::Sub"];
  const substituted = body.replace(/\$\{([^}]+)\}/g, "value-of-$1");
  const parsed = JSON.parse(substituted) as { widgets: { type: string; properties: { title: string } }[] };
  assert.deepEqual(
    parsed.widgets.map((w) => w.properties.title),
    ["Invocations", "Errors and throttles", "Duration p99 (ms)", "statusLatencyP99", "Queue depth", "Alarms"],
  );
  assert.deepEqual(validateTemplate({ Resources: { ...template.Resources, ...Resources } } as never), []);
});
