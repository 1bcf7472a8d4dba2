/** infra/roles.cjs on its own (fast): what a function may be granted, and what packaging refuses. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Json, type RoleInput, roles, settings } from "./infra.ts";

const defaults = settings.validateSettings({}, "test", "dev");

function input(overrides: Partial<RoleInput> = {}): RoleInput {
  return {
    service: "helm-status-lambda",
    stage: "dev",
    region: "eu-west-1",
    functions: { api: { handler: "h.handler", role: "ApiRole" } },
    access: { api: { dynamodb: { ReleasesTable: ["GetItem", "Query"] }, clusters: "read" } },
    registry: [{ name: "prod", region: "eu-west-1" }],
    settings: defaults,
    ...overrides,
  };
}

type Statement = { Sid: string; Action: string[]; Resource: unknown[]; Condition?: Json };
const statementsOf = (template: ReturnType<typeof roles.buildRoles>, roleId: string) =>
  (template.Resources[roleId].Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[])[0].PolicyDocument
    .Statement;

test("a function's role holds its log group, its table items and the registry's clusters, nothing else", () => {
  const template = roles.buildRoles(input());
  assert.deepEqual(Object.keys(template.Resources), ["ApiRole"]);
  assert.equal(template.Resources.ApiRole.Properties.RoleName, "helm-status-lambda-dev-eu-west-1-api");
  assert.equal(template.Resources.ApiRole.Properties.ManagedPolicyArns, undefined, "no VPC, no VPC policy");
  const statements = statementsOf(template, "ApiRole");
  assert.deepEqual(
    statements.map((s) => s.Sid),
    ["OwnLogGroup", "ReleasesTableItems", "DescribeRegistryClusters", "ClusterFactsItems"],
  );
  assert.deepEqual(statements[1].Action, ["dynamodb:GetItem", "dynamodb:Query"]);
  // DescribeCluster's answers kept across cold starts (shared/eks/facts-store.ts): those items only.
  assert.deepEqual(statements[3].Action, ["dynamodb:GetItem", "dynamodb:PutItem"]);
  assert.deepEqual(statements[3].Condition, {
    "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["CLUSTER#*"] },
  });
  assert.deepEqual(template.Outputs?.ApiRoleArn.Value, { "Fn::GetAtt": ["ApiRole", "Arn"] });
});

test("sqs events grant consume on their queue; send, ssm secrets and a customer key are scoped", () => {
  const kmsKeyArn = "arn:aws:kms:eu-west-1:111122223333:key/0b6c7c57-5a1c-4d39-8d1e-1d3c9b0f5e2a";
  const template = roles.buildRoles(
    input({
      functions: {
        worker: { role: "WorkerRole", events: [{ sqs: { arn: { "Fn::GetAtt": ["WorkQueue", "Arn"] } } }] },
        webhook: { role: "WebhookRole" },
      },
      access: { worker: {}, webhook: { sqs: { send: ["WorkQueue"] }, ssm: ["slackSigningSecret", "/x/y"] } },
      settings: settings.validateSettings({ secrets: { kmsKeyArn } }, "test", "dev"),
    }),
  );
  const worker = statementsOf(template, "WorkerRole");
  assert.deepEqual(worker[1], {
    Sid: "ConsumeQueues",
    Effect: "Allow",
    Action: ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"],
    Resource: [{ "Fn::GetAtt": ["WorkQueue", "Arn"] }],
  });
  const webhook = statementsOf(template, "WebhookRole");
  assert.deepEqual(webhook[1].Action, ["sqs:SendMessage", "sqs:GetQueueAttributes"]);
  assert.deepEqual(webhook[2].Resource, [
    {
      "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/helm-status/dev/slack-signing-secret`,
    },
    { "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/x/y` },
  ]);
  assert.deepEqual(webhook[3].Resource, [kmsKeyArn]);
  assert.ok(webhook[3].Condition, "decrypt only through SSM");
});

test("a function in a VPC gets the VPC execution policy; one opted out does not", () => {
  const template = roles.buildRoles(
    input({
      functions: { api: { role: "ApiRole" }, hook: { role: "HookRole", vpc: null } },
      access: { api: {}, hook: {} },
      providerVpc: { subnetIds: ["subnet-0123abcd"], securityGroupIds: ["sg-0123abcd"] },
    }),
  );
  assert.equal((template.Resources.ApiRole.Properties.ManagedPolicyArns as unknown[]).length, 1);
  assert.equal(template.Resources.HookRole.Properties.ManagedPolicyArns, undefined);
});

test("packaging refuses a function without its own role or access entry, and unknown grants, all at once", () => {
  assert.throws(
    () =>
      roles.buildRoles(
        input({
          functions: {
            api: { role: "ApiRole" },
            planner: { role: "ApiRole", events: [{ schedule: { rate: ["rate(5 minutes)"], method: "scheduler" } }] },
            worker: {},
          },
          access: {
            api: { dynamodb: { ReleasesTable: ["Scan"] }, s3: ["bucket"], clusters: "write" },
            planner: { sqs: { receive: ["Q"] } },
            gone: {},
          },
        }),
      ),
    (error: Error) => {
      for (const fragment of [
        "custom.access.gone: no function",
        "functions.planner.role: must be PlannerRole",
        'functions.planner.events: schedule method "scheduler" needs a scheduler role',
        "functions.worker.role: must be WorkerRole",
        "custom.access.worker: missing",
        "custom.access.api.s3: unknown grant",
        "custom.access.api.dynamodb.ReleasesTable: expected item actions",
        "custom.access.api.clusters: the only grant",
        "custom.access.planner.sqs.receive: expected send or consume",
      ]) {
        assert.ok(error.message.includes(fragment), `${fragment}\n${error.message}`);
      }
      return true;
    },
  );
});

test("the example stage settings are valid and name secrets, not values", () => {
  const example = settings.loadSettings("example", { DEPLOY_SETTINGS_FILE: "" });
  assert.ok(example.vpc?.endpoints);
  assert.match(example.secrets.slackSigningSecret, /^\/helm-status\//);
  assert.throws(
    () =>
      settings.validateSettings(
        { vpc: { subnetIds: ["subnet-xyz"] }, alarms: { statusP99Ms: -1 }, extra: 1 },
        "f",
        "s",
      ),
    (error: Error) =>
      ["extra: unknown field", "vpc.subnetIds[0]", "vpc.securityGroupIds", "alarms.statusP99Ms"].every((part) =>
        error.message.includes(part),
      ),
  );
});

test("auditLogs: read starts queries on the registry's own-account clusters' EKS log groups only; results by query id", () => {
  const template = roles.buildRoles(
    input({
      access: { api: { clusters: "read", auditLogs: "read" } },
      registry: [
        { name: "prod", region: "eu-west-1" },
        { name: "partner", region: "eu-central-1", roleArn: "arn:aws:iam::111122223333:role/reader" },
      ],
    }),
  );
  const statements = statementsOf(template, "ApiRole");
  const query = statements.find((s) => s.Sid === "QueryClusterAuditLogs");
  assert.deepEqual(query?.Action, ["logs:StartQuery"]);
  assert.deepEqual(
    query?.Resource.map((r) => (r as { "Fn::Sub": string })["Fn::Sub"]),
    [
      "arn:${AWS::Partition}:logs:eu-west-1:${AWS::AccountId}:log-group:/aws/eks/prod/cluster",
      "arn:${AWS::Partition}:logs:eu-west-1:${AWS::AccountId}:log-group:/aws/eks/prod/cluster:*",
    ],
    "a cluster read through its role (partner) is queried as that role",
  );
  const results = statements.find((s) => s.Sid === "AuditLogQueryResults");
  assert.deepEqual([results?.Action, results?.Resource], [["logs:GetQueryResults", "logs:StopQuery"], ["*"]]);
  assert.ok(statements.some((s) => s.Sid === "AssumeClusterRoles"));
  assert.throws(
    () => roles.buildRoles(input({ access: { api: { auditLogs: "write" } } })),
    /custom\.access\.api\.auditLogs: the only grant is "read"/,
  );
});

test("attributions: enqueue reads and writes the releases table's WHO# items only", () => {
  const template = roles.buildRoles(
    input({ access: { api: { dynamodb: { ReleasesTable: ["BatchGetItem"] }, attributions: "enqueue" } } }),
  );
  const statements = statementsOf(template, "ApiRole");
  const puts = statements.filter((s) => s.Action.includes("dynamodb:PutItem"));
  assert.deepEqual(
    puts.map((s) => [s.Sid, s.Action, s.Resource, s.Condition]),
    [
      [
        "AttributionQueueItems",
        ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem"],
        [{ "Fn::GetAtt": ["ReleasesTable", "Arn"] }],
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["WHO#*"] } },
      ],
    ],
  );
  assert.throws(
    () => roles.buildRoles(input({ access: { api: { attributions: "write" } } })),
    /custom\.access\.api\.attributions: the only grant is "enqueue"/,
  );
});
