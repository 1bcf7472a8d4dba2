/**
 * `osls package` offline, once: no AWS credentials, a registry given by
 * CLUSTERS_FILE, artifacts in a temp dir. Then the CloudFormation and the zip
 * are inspected: least-privilege IAM (no `*` action anywhere, resources scoped
 * to the table, its indexes, the registry's clusters and roles), IAM auth on
 * every route, and a bundle that holds no simulator code.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { validateTemplate } from "../../infra/validate-template.ts";
import { checks } from "./infra.ts";

const root = new URL("../..", import.meta.url).pathname;
const hasUnzip = spawnSync("unzip", ["-v"]).status === 0;

let work: string;
let template: {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
};
let zipPath: string;
let packaged: ReturnType<typeof spawnSync>;

before(() => {
  work = mkdtempSync(join(tmpdir(), "helm-status-package-"));
  const registry = join(work, "clusters.yml");
  writeFileSync(
    registry,
    [
      "- name: prod-eu",
      "  region: eu-west-1",
      "  access:",
      "    policies:",
      "      - policy: AmazonEKSViewPolicy",
      "      - policy: AmazonEKSAdminViewPolicy",
      "        namespaces: [payments, shop]",
      "    groups: [helm-status-readers]",
      "- name: prod-us",
      "  region: us-east-1",
      "  access: { policies: [{ policy: AmazonEKSViewPolicy }] }",
      "- name: legacy",
      "  region: eu-west-1",
      "  access: aws-auth",
      "- name: partner",
      "  region: eu-central-1",
      "  roleArn: arn:aws:iam::111122223333:role/helm-status-reader",
      "  externalId: partner-ext-1",
      "",
    ].join("\n"),
  );
  // The stage settings of a private-cluster deploy: VPC with endpoints, an alarm topic, a customer managed key.
  const settings = join(work, "settings.yml");
  writeFileSync(
    settings,
    [
      "vpc:",
      "  subnetIds: [subnet-0a1b2c3d4e5f60718, subnet-0b1c2d3e]",
      "  securityGroupIds: [sg-0123abcd]",
      "  endpoints: { vpcId: vpc-0123abcd, routeTableIds: [rtb-0123abcd] }",
      "alarms: { topicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall', statusP99Ms: 8000 }",
      "secrets: { kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/0b6c7c57-5a1c-4d39-8d1e-1d3c9b0f5e2a' }",
      "",
    ].join("\n"),
  );
  const out = join(work, "artifacts");
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}`,
    HOME: work,
    CLUSTERS_FILE: registry,
    DEPLOY_SETTINGS_FILE: settings,
    // Offline, no credentials: packaging must not need AWS at all.
    AWS_CONFIG_FILE: join(work, "no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(work, "no-aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    SLS_TELEMETRY_DISABLED: "1",
    SLS_NOTIFICATIONS_MODE: "off",
    CI: "1",
  };
  packaged = spawnSync("osls", ["package", "--stage", "test", "--region", "eu-west-1", "--package", out], {
    cwd: root,
    env,
    encoding: "utf8",
    // Six functions bundled by esbuild (api, audit x2, chatops x3): minutes on a loaded 2-core machine.
    timeout: 420_000,
  });
  if (packaged.status === 0) {
    template = JSON.parse(readFileSync(join(out, "cloudformation-template-update-stack.json"), "utf8"));
    zipPath = join(out, readdirSync(out).find((file) => file.endsWith(".zip"))!);
  }
});

after(() => rmSync(work, { recursive: true, force: true }));

function resourcesOfType(type: string) {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

function allStatements(): Statement[] {
  const statements: Statement[] = [];
  for (const [, role] of resourcesOfType("AWS::IAM::Role")) {
    for (const policy of (role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]) ?? []) {
      statements.push(...policy.PolicyDocument.Statement);
    }
  }
  for (const [, policy] of resourcesOfType("AWS::IAM::Policy")) {
    statements.push(...(policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  }
  return statements;
}

test("osls package succeeds offline without AWS credentials", () => {
  assert.equal(packaged.status, 0, `osls package failed:\n${packaged.stdout}\n${packaged.stderr}`);
});

test("the packaged template is valid against the CloudFormation resource specification and the queue/role rules", () => {
  assert.deepEqual(validateTemplate(template as never), []);
  assert.deepEqual(checks.checkOperations(template), []);
});

test("no IAM statement grants a '*' action (bare or service-wide); only a query's results by its id are on '*'", () => {
  const statements = allStatements();
  assert.ok(statements.length > 0);
  for (const statement of statements) {
    const actions = [statement.Action].flat();
    for (const action of actions) assert.doesNotMatch(action, /\*/, `wildcard action ${action}`);
    // GetQueryResults and StopQuery name a query id StartQuery returned, not a log group (docs/deploy.md).
    if (actions.join() === "logs:GetQueryResults,logs:StopQuery") continue;
    assert.notEqual(statement.Resource, "*");
    assert.ok(![statement.Resource].flat().includes("*"), `statement ${actions} on '*'`);
  }
});

test("each function has its own role, named after it, and no shared default role exists", () => {
  const functions = resourcesOfType("AWS::Lambda::Function");
  assert.ok(functions.length > 0);
  assert.equal(template.Resources.IamRoleLambdaExecution, undefined, "osls' shared default role is not generated");
  const roles = functions.map(([id, fn]) => {
    const role = fn.Properties.Role as { "Fn::GetAtt": [string, string] };
    assert.ok(role["Fn::GetAtt"], `${id}: role is a role of this stack`);
    const [roleId] = role["Fn::GetAtt"];
    assert.equal(template.Resources[roleId]?.Type, "AWS::IAM::Role", `${id} -> ${roleId}`);
    assert.equal(`${roleId.replace(/Role$/, "")}LambdaFunction`, id, "the role is named after its function");
    return roleId;
  });
  assert.equal(new Set(roles).size, roles.length, "no two functions share a role");
  for (const roleId of roles) {
    const [statement] = (
      template.Resources[roleId].Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]
    )[0].PolicyDocument.Statement;
    assert.deepEqual(statement.Action, ["logs:CreateLogStream", "logs:PutLogEvents"]);
    assert.match(JSON.stringify(statement.Resource), /log-group:\/aws\/lambda\/helm-status-lambda-test-[A-Za-z]+:\*/);
  }
});

test("DynamoDB actions are item actions on this stack's tables and their index ARNs only", () => {
  const dynamo = allStatements().filter((s) => [s.Action].flat().some((a) => a.startsWith("dynamodb:")));
  assert.ok(dynamo.length >= 1);
  const tables = new Set(resourcesOfType("AWS::DynamoDB::Table").map(([id]) => id));
  for (const statement of dynamo) {
    for (const action of [statement.Action].flat()) {
      assert.match(
        action,
        /^dynamodb:(GetItem|BatchGetItem|Query|PutItem|UpdateItem|DeleteItem|BatchWriteItem|ConditionCheckItem)$/,
      );
    }
    for (const resource of [statement.Resource].flat()) {
      // A table's ARN (Fn::GetAtt) or one of its indexes (Fn::Join of that ARN and /index/<name>).
      const join = (resource as { "Fn::Join"?: [string, unknown[]] })["Fn::Join"];
      const arn = (join ? join[1][0] : resource) as { "Fn::GetAtt"?: [string, string] };
      const [table, attribute] = arn["Fn::GetAtt"] ?? [];
      assert.ok(
        table !== undefined && tables.has(table) && attribute === "Arn",
        `resource ${JSON.stringify(resource)}`,
      );
      if (join) assert.match(String(join[1][1]), /^\/index\/[\w*-]+$/);
    }
  }
  // The API's own statement: the releases table and its two indexes, named.
  const api = JSON.stringify(dynamo.map((s) => s.Resource));
  assert.match(api, /"Fn::GetAtt":\["ReleasesTable","Arn"\]/);
  assert.match(api, /\/index\/GSI1/);
  assert.match(api, /\/index\/GSI2/);
});

test("eks:DescribeCluster on the registry's own-account clusters, sts:AssumeRole on its roles, nothing else", () => {
  const statements = allStatements();
  const eks = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith("eks:")));
  assert.ok(eks.length >= 1);
  for (const statement of eks) {
    assert.deepEqual(statement.Action, ["eks:DescribeCluster"]);
    assert.deepEqual(
      [statement.Resource].flat().map((r) => (r as { "Fn::Sub": string })["Fn::Sub"].replace(/^.*:eks:/, "")),
      [
        "eu-west-1:${AWS::AccountId}:cluster/prod-eu",
        "us-east-1:${AWS::AccountId}:cluster/prod-us",
        "eu-west-1:${AWS::AccountId}:cluster/legacy",
      ],
      "a cluster reached through its role (partner) is described as that role",
    );
  }
  for (const statement of statements.filter((s) => [s.Action].flat().some((a) => a.startsWith("sts:")))) {
    assert.deepEqual(statement.Action, ["sts:AssumeRole"]);
    assert.deepEqual([statement.Resource].flat(), ["arn:aws:iam::111122223333:role/helm-status-reader"]);
  }
});

test("every function runs on nodejs24.x; the API has the registry and the table in its environment", () => {
  for (const [id, fn] of resourcesOfType("AWS::Lambda::Function")) {
    assert.equal(fn.Properties.Runtime, "nodejs24.x", id);
    assert.equal(fn.Properties.Architectures?.toString(), "arm64", id);
  }
  const api = template.Resources.ApiLambdaFunction;
  assert.equal(api.Properties.Handler, "functions/api/handler.handler");
  const variables = (api.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  assert.deepEqual(variables.RELEASES_TABLE, { Ref: "ReleasesTable" });
  const clusters = JSON.parse(variables.CLUSTERS as string);
  assert.deepEqual(
    clusters.map((c: { name: string }) => c.name),
    ["prod-eu", "prod-us", "legacy", "partner"],
  );
  assert.ok(
    clusters.every((c: object) => !("access" in c)),
    "access is deploy-time only",
  );
});

test("no secret in the template: secret settings are SSM parameter names, read at run time with a scoped grant", () => {
  for (const [id, fn] of resourcesOfType("AWS::Lambda::Function")) {
    const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
    for (const [name, value] of Object.entries(variables ?? {})) {
      if (!/SECRET|TOKEN|PASSWORD|SIGNING|API_KEY/i.test(name)) continue;
      assert.match(name, /_PARAMETER$/, `${id}: ${name} must name an SSM parameter, not hold a value`);
      assert.match(String(value), /^\/[\w./-]+$/, `${id}: ${name}`);
    }
  }
  for (const statement of allStatements()) {
    const actions = [statement.Action].flat();
    if (!actions.some((action) => action.startsWith("ssm:"))) continue;
    assert.deepEqual(actions, ["ssm:GetParameter", "ssm:GetParameters"]);
    for (const resource of [statement.Resource].flat())
      assert.match(JSON.stringify(resource), /:parameter\/[\w.-]+(\/[\w.-]+)*"/);
  }
});

test("access entries: one per in-region, own-account cluster with an access block and cluster-reading role", () => {
  const entries = resourcesOfType("AWS::EKS::AccessEntry");
  // The roles that read clusters are those with eks:DescribeCluster (the API's, the chat readers', the audit worker's).
  const readers = resourcesOfType("AWS::IAM::Role")
    .filter(([, role]) => JSON.stringify(role.Properties.Policies).includes("eks:DescribeCluster"))
    .map(([id]) => id);
  assert.ok(readers.includes("ApiRole"));
  assert.deepEqual(
    entries.map(([id]) => id),
    readers.map((role) => `EksAccessProdEu${role.replace(/Role$/, "")}`),
    "prod-us is in another region, legacy is on aws-auth, partner is reached through its own role",
  );
  const entry = template.Resources.EksAccessProdEuApi;
  assert.equal(entry.Properties.ClusterName, "prod-eu");
  assert.deepEqual(entry.Properties.PrincipalArn, { "Fn::GetAtt": ["ApiRole", "Arn"] });
  assert.deepEqual(entry.Properties.KubernetesGroups, ["helm-status-readers"]);
  assert.deepEqual(entry.Properties.AccessPolicies, [
    {
      PolicyArn: { "Fn::Sub": "arn:${AWS::Partition}:eks::aws:cluster-access-policy/AmazonEKSViewPolicy" },
      AccessScope: { Type: "cluster" },
    },
    {
      PolicyArn: { "Fn::Sub": "arn:${AWS::Partition}:eks::aws:cluster-access-policy/AmazonEKSAdminViewPolicy" },
      AccessScope: { Type: "namespace", Namespaces: ["payments", "shop"] },
    },
  ]);
  assert.match(`${packaged.stdout}${packaged.stderr}`, /EKS access for cluster prod-us is a manual step/);
});

test("in a VPC: the cluster-reading function's subnets, its VPC policy, and the endpoints it needs", () => {
  const [[, fn]] = resourcesOfType("AWS::Lambda::Function");
  assert.deepEqual(fn.Properties.VpcConfig, {
    SubnetIds: ["subnet-0a1b2c3d4e5f60718", "subnet-0b1c2d3e"],
    SecurityGroupIds: ["sg-0123abcd"],
  });
  // The Slack webhook reads no cluster and stays outside the VPC (vpc: ~); every other function is inside.
  const outside = resourcesOfType("AWS::Lambda::Function")
    .filter(([, f]) => !f.Properties.VpcConfig)
    .map(([id]) => id.replace(/LambdaFunction$/, "Role"));
  assert.deepEqual(outside, ["ChatopsWebhookRole"]);
  for (const [id, role] of resourcesOfType("AWS::IAM::Role")) {
    if (outside.includes(id)) {
      assert.equal(role.Properties.ManagedPolicyArns, undefined, id);
      continue;
    }
    assert.deepEqual(
      role.Properties.ManagedPolicyArns ?? [],
      [{ "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole" }],
      `${id}: the VPC execution policy is the only managed policy`,
    );
  }
  const endpoints = resourcesOfType("AWS::EC2::VPCEndpoint").map(([, e]) => [
    (e.Properties.ServiceName as { "Fn::Sub": string })["Fn::Sub"],
    e.Properties.VpcEndpointType,
  ]);
  assert.deepEqual(endpoints, [
    ["com.amazonaws.${AWS::Region}.sts", "Interface"],
    ["com.amazonaws.${AWS::Region}.eks", "Interface"],
    ["com.amazonaws.${AWS::Region}.sqs", "Interface"],
    ["com.amazonaws.${AWS::Region}.ssm", "Interface"],
    ["com.amazonaws.${AWS::Region}.logs", "Interface"],
    ["com.amazonaws.${AWS::Region}.dynamodb", "Gateway"],
  ]);
  const [[, group]] = resourcesOfType("AWS::EC2::SecurityGroup");
  assert.deepEqual(
    (group.Properties.SecurityGroupIngress as { SourceSecurityGroupId: string; FromPort: number }[]).map((rule) => [
      rule.SourceSecurityGroupId,
      rule.FromPort,
    ]),
    [["sg-0123abcd", 443]],
  );
});

test("alarms: errors, throttles, p99 duration per function, the HTTP API's 5xx, status p99; all notify the topic", () => {
  const alarms = Object.fromEntries(resourcesOfType("AWS::CloudWatch::Alarm"));
  for (const id of [
    "ApiErrorsAlarm",
    "ApiThrottlesAlarm",
    "ApiDurationAlarm",
    "HttpApi5xxAlarm",
    "StatusLatencyP99Alarm",
  ]) {
    assert.ok(alarms[id], `${id} missing`);
  }
  const functions = resourcesOfType("AWS::Lambda::Function").map(([id]) => id);
  for (const id of functions) {
    const watching = Object.values(alarms).filter((alarm) =>
      JSON.stringify(alarm.Properties.Dimensions).includes(`{"Ref":"${id}"}`),
    );
    const metrics = new Set(watching.map((alarm) => alarm.Properties.MetricName));
    for (const metric of ["Duration", "Errors", "Throttles"])
      assert.ok(metrics.has(metric), `${id}: no ${metric} alarm`);
  }
  assert.equal(alarms.StatusLatencyP99Alarm.Properties.Threshold, 8000, "the stage's statusP99Ms");
  // The EMF alarms match the exact dimension sets the functions publish.
  assert.deepEqual(alarms.AuditLagAlarm.Properties.Dimensions, [{ Name: "service", Value: "helm-status-audit" }]);
  assert.deepEqual(alarms.ChatopsAckLatencyP99Alarm.Properties.Dimensions, [
    { Name: "service", Value: "helm-status-chatops" },
  ]);
  // ... and the service dimension is what the watched function's Powertools writes (POWERTOOLS_SERVICE_NAME).
  for (const [alarm, fn] of [
    ["StatusLatencyP99Alarm", "ApiLambdaFunction"],
    ["AuditLagAlarm", "AuditPlannerLambdaFunction"],
    ["ChatopsAckLatencyP99Alarm", "ChatopsWebhookLambdaFunction"],
  ]) {
    const service = (alarms[alarm].Properties.Dimensions as { Name: string; Value: string }[]).find(
      (d) => d.Name === "service",
    )?.Value;
    const variables = (template.Resources[fn].Properties.Environment as { Variables: Record<string, string> })
      .Variables;
    assert.equal(variables.POWERTOOLS_SERVICE_NAME, service, `${fn} publishes what ${alarm} watches`);
  }
  for (const [id, alarm] of Object.entries(alarms)) {
    assert.deepEqual(alarm.Properties.AlarmActions, ["arn:aws:sns:eu-west-1:123456789012:oncall"], id);
  }
  const [[, dashboard]] = resourcesOfType("AWS::CloudWatch::Dashboard");
  assert.match(JSON.stringify(dashboard.Properties.DashboardBody), /RequestLatency/);
});

test("every HTTP API route requires IAM authorization, except the chat webhooks (POST /chatops/..., signature-checked) and the dashboard (its static files public, its API mount behind the JWT authorizer)", () => {
  const routes = resourcesOfType("AWS::ApiGatewayV2::Route");
  assert.ok(routes.length >= 9);
  const integrations = Object.fromEntries(resourcesOfType("AWS::ApiGatewayV2::Integration"));
  const [[jwtId, jwt]] = resourcesOfType("AWS::ApiGatewayV2::Authorizer");
  assert.equal(jwt.Properties.AuthorizerType, "JWT");
  assert.deepEqual(jwt.Properties.IdentitySource, ["$request.header.Authorization"]);
  for (const [, route] of routes) {
    const key = String(route.Properties.RouteKey);
    if (route.Properties.AuthorizationType === "AWS_IAM") continue;
    // The dashboard's mount: its read routes, and its one POST, MCP's read-only tools (functions/api/mcp/).
    if (key.startsWith("GET /dashboard/api/") || key === "POST /dashboard/api/mcp") {
      assert.equal(route.Properties.AuthorizationType, "JWT", key);
      assert.match(JSON.stringify(route.Properties.AuthorizerId), new RegExp(jwtId), key);
      continue;
    }
    if (key === "GET /dashboard" || key === "GET /dashboard/{proxy+}") {
      assert.match(
        JSON.stringify(route.Properties.Target),
        /HttpApiIntegrationApi\b/,
        `${key} is served by the API function`,
      );
      continue;
    }
    // The route's integration -> its function: only a chat webhook function may be public.
    const integrationId = JSON.stringify(route.Properties.Target).match(/HttpApiIntegration\w+/)?.[0] ?? "";
    const target = JSON.stringify(integrations[integrationId]?.Properties.IntegrationUri);
    assert.match(key, /^POST \/chatops\//, `${key} has no IAM authorization`);
    assert.match(target, /"Chatops\w+LambdaFunction"/, `${key} is public but not a chat webhook`);
  }
});

test("the table comes from infra/ with on-demand billing", () => {
  const [[, table]] = resourcesOfType("AWS::DynamoDB::Table");
  assert.equal(table.Properties.BillingMode, "PAY_PER_REQUEST");
});

test("the bundle holds the handler and no simulator or AWS SDK code", {
  skip: !hasUnzip && "unzip not installed",
}, () => {
  const list = spawnSync("unzip", ["-Z1", zipPath], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
  assert.ok(list.includes("functions/api/handler.mjs"), list.join(", "));
  // Minified, no source map, no esbuild metafile in the zip (serverless.yml custom.esbuild; docs/bench.md).
  assert.deepEqual(
    list.filter((file) => /\.map$|meta\.json$|metafile/.test(file)),
    [],
  );
  assert.ok(statSync(zipPath).size <= 1.5 * 1024 * 1024, `zip is ${statSync(zipPath).size} bytes, over 1.5 MB`);
  const code = spawnSync("unzip", ["-p", zipPath, "functions/api/handler.mjs"], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  // keepNames keeps function names, so simulator code would still be recognisable here.
  assert.doesNotMatch(code.stdout, /startSimulatedEks|SimulatedEks|local\/sim/);
  // The SDK stays external (the runtime ships it): imported by name, its clients' code not bundled.
  assert.match(code.stdout, /from\s*"@aws-sdk\/client-dynamodb"/);
  assert.doesNotMatch(code.stdout, /this,"DynamoDBClient"|class DynamoDBClient\b/);
  // So do the SDK's own dependencies the token signer uses: no second copy of @smithy/core in the bundle.
  assert.match(code.stdout, /import\(\s*"@smithy\/signature-v4"\s*\)/);
  assert.doesNotMatch(code.stdout, /(this|[\w$]+),"SignatureV4"\)|class SignatureV4\b/);
  // No @kubernetes/client-node at all: the EKS connector generates the access a kubeconfig would hold, and the
  // kubeconfig-file connector (which interprets kubeconfigs with the library) is the CLI's only.
  assert.doesNotMatch(code.stdout, /CoreV1Api/);
  assert.doesNotMatch(code.stdout, /(this|[\w$]+),"KubeConfig"\)|class KubeConfig\b/);
  assert.match(code.stdout, /(this|[\w$]+),"ConnectionPools"\)|class ConnectionPools\b/, "keepNames names are visible");
});

test("the chatops queue has a dead-letter queue; only the Slack webhook sends to it and only the worker consumes it", () => {
  const queue = template.Resources.ChatopsQueue.Properties;
  assert.deepEqual((queue.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn, {
    "Fn::GetAtt": ["ChatopsDeadLetterQueue", "Arn"],
  });
  const chatopsQueue = JSON.stringify({ "Fn::GetAtt": ["ChatopsQueue", "Arn"] });
  const grants = resourcesOfType("AWS::IAM::Role").flatMap(([id, role]) =>
    (role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[])[0].PolicyDocument.Statement.filter(
      (s) => [s.Action].flat().some((a) => a.startsWith("sqs:")) && JSON.stringify(s.Resource).includes(chatopsQueue),
    ).map((s) => `${id}:${[s.Action].flat().join(",")}`),
  );
  assert.deepEqual(grants.sort(), [
    "ChatopsWebhookRole:sqs:SendMessage,sqs:GetQueueAttributes",
    "ChatopsWorkerRole:sqs:ReceiveMessage,sqs:DeleteMessage,sqs:GetQueueAttributes",
  ]);
});

test("the Slack webhook bundle holds no Kubernetes client (it must ack within 3 s)", {
  skip: !hasUnzip && "unzip not installed",
}, () => {
  const zip = join(dirname(zipPath), "chatopsWebhook.zip");
  // No source maps ship (serverless.yml custom.esbuild), but keepNames keeps every class and function name,
  // so the code itself shows what was bundled.
  const code = spawnSync("unzip", ["-p", zip, "functions/chatops/slack.mjs"], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  }).stdout;
  assert.ok(code.length > 0, "slack.mjs is in the zip");
  // No simulator, no Kubernetes client, no cluster session code, no bundled SDK: a small bundle that starts fast.
  const offenders = [
    "startSimulatedEks",
    "KubeConfig",
    "KubeSession",
    "ConnectionPools",
    "createKubeReader",
    "createEksConnector",
    "DynamoDBClient",
  ].filter((name) => new RegExp(`(this|[\\w$]+),"${name}"\\)|class ${name}\\b|function ${name}\\(`).test(code));
  assert.deepEqual(offenders, []);
  const size = spawnSync("unzip", ["-Z", "-l", zip, "functions/chatops/slack.mjs"], {
    encoding: "utf8",
  }).stdout;
  const bytes = Number(size.trim().split(/\s+/)[3]);
  assert.ok(bytes > 0 && bytes < 1_500_000, `slack.mjs is ${bytes} bytes`);
});

test("the audit pipeline: a schedule for the planner, the worker on AuditQueue with partial batch failures, a DLQ", () => {
  const queue = template.Resources.AuditQueue.Properties as {
    VisibilityTimeout: number;
    RedrivePolicy: { deadLetterTargetArn: unknown; maxReceiveCount: number };
  };
  const worker = template.Resources.AuditWorkerLambdaFunction.Properties as { Timeout: number };
  assert.ok(queue.VisibilityTimeout >= 6 * worker.Timeout, "visibility timeout >= 6x the worker timeout");
  assert.equal(queue.RedrivePolicy.maxReceiveCount, 5);
  assert.deepEqual(queue.RedrivePolicy.deadLetterTargetArn, { "Fn::GetAtt": ["AuditDeadLetterQueue", "Arn"] });
  // The worker's own mapping (the chat worker has one too).
  const [, mapping] = resourcesOfType("AWS::Lambda::EventSourceMapping").find(([, m]) =>
    JSON.stringify(m.Properties.FunctionName).includes("AuditWorkerLambdaFunction"),
  )!;
  assert.deepEqual(mapping.Properties.FunctionResponseTypes, ["ReportBatchItemFailures"]);
  assert.ok((mapping.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency >= 2);
  const rules = resourcesOfType("AWS::Events::Rule");
  assert.equal(rules.length, 2, "the audit planner's and the sync scheduler's");
  assert.ok(rules.every(([, rule]) => rule.Properties.ScheduleExpression === "rate(5 minutes)"));
  const plannerPolicy = JSON.stringify(template.Resources.AuditPlannerRole.Properties.Policies);
  assert.match(plannerPolicy, /sqs:SendMessage/);
  assert.doesNotMatch(
    plannerPolicy,
    /eks:DescribeCluster|sqs:ReceiveMessage/,
    "the planner reads no cluster, consumes nothing",
  );
  const workerPolicy = JSON.stringify(template.Resources.AuditWorkerRole.Properties.Policies);
  assert.match(workerPolicy, /sqs:ReceiveMessage/);
  assert.doesNotMatch(workerPolicy, /sqs:SendMessage|dynamodb:DeleteItem/);
  // It writes no release: its only PutItems on the releases table are DescribeCluster's answers (CLUSTER# items,
  // clusters: read) and the attributions' queue (WHO# items, attributions: enqueue).
  const workerStatements = (
    template.Resources.AuditWorkerRole.Properties.Policies as {
      PolicyDocument: { Statement: (Statement & { Condition?: unknown })[] };
    }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
  const releasePuts = workerStatements.filter(
    (s) => [s.Action].flat().includes("dynamodb:PutItem") && JSON.stringify(s.Resource).includes('"ReleasesTable"'),
  );
  // Its change notifications read who preceded a change (shared/audit/change-events.ts): a Query and a GetItem.
  const attributions = workerStatements.find((s) => JSON.stringify(s.Condition ?? {}).includes("WHO#*"));
  assert.deepEqual(
    [attributions?.Action].flat().filter((a) => a === "dynamodb:Query" || a === "dynamodb:GetItem"),
    ["dynamodb:GetItem", "dynamodb:Query"],
  );
  assert.deepEqual(
    releasePuts.map((s) => s.Condition),
    [
      { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["CLUSTER#*"] } },
      { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["WHO#*"] } },
    ],
  );
});

test("the sync pipeline: a schedule for the scheduler, the worker on SyncQueue one cluster per message, a DLQ", () => {
  const queue = template.Resources.SyncQueue.Properties as {
    VisibilityTimeout: number;
    RedrivePolicy: { deadLetterTargetArn: unknown; maxReceiveCount: number };
  };
  const worker = template.Resources.SyncWorkerLambdaFunction.Properties as { Timeout: number };
  assert.ok(queue.VisibilityTimeout >= 6 * worker.Timeout, "visibility timeout >= 6x the worker timeout");
  assert.deepEqual(queue.RedrivePolicy.deadLetterTargetArn, { "Fn::GetAtt": ["SyncDeadLetterQueue", "Arn"] });
  const [, mapping] = resourcesOfType("AWS::Lambda::EventSourceMapping").find(([, m]) =>
    JSON.stringify(m.Properties.FunctionName).includes("SyncWorkerLambdaFunction"),
  )!;
  assert.deepEqual(mapping.Properties.FunctionResponseTypes, ["ReportBatchItemFailures"]);
  assert.equal(mapping.Properties.BatchSize, 1);
  const schedulerPolicy = JSON.stringify(template.Resources.SyncSchedulerRole.Properties.Policies);
  assert.match(schedulerPolicy, /sqs:SendMessage/);
  assert.doesNotMatch(schedulerPolicy, /eks:DescribeCluster|dynamodb:/, "the scheduler reads the registry only");
  const workerPolicy = JSON.stringify(template.Resources.SyncWorkerRole.Properties.Policies);
  assert.match(workerPolicy, /sqs:ReceiveMessage/);
  assert.match(workerPolicy, /dynamodb:ConditionCheckItem/);
  assert.doesNotMatch(workerPolicy, /sqs:SendMessage|SnapshotsTable/);
  // Who changed it (docs/who.md): Logs Insights on the own-account clusters' EKS log groups, nothing else.
  const logs = allStatements().filter((s) => [s.Action].flat().includes("logs:StartQuery"));
  assert.equal(logs.length, 1, "only the sync worker queries audit logs");
  assert.match(workerPolicy, /"Sid":"QueryClusterAuditLogs"/);
  assert.deepEqual(
    [logs[0].Resource].flat().map((r) => (r as { "Fn::Sub": string })["Fn::Sub"].replace(/^.*:logs:/, "")),
    ["prod-eu", "prod-us", "legacy"].flatMap((name) => {
      const group = `${name === "prod-us" ? "us-east-1" : "eu-west-1"}:\${AWS::AccountId}:log-group:/aws/eks/${name}/cluster`;
      return [group, `${group}:*`];
    }),
    "a cluster read through its role (partner) is queried as that role",
  );
});
