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
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validateTemplate } from "../../infra/validate-template.ts";

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
  const out = join(work, "artifacts");
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}`,
    HOME: work,
    CLUSTERS_FILE: registry,
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
    timeout: 180_000,
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

test("the packaged template is valid against the CloudFormation resource specification", () => {
  assert.deepEqual(validateTemplate(template as never), []);
});

test("no IAM statement grants a '*' action (bare or service-wide)", () => {
  const statements = allStatements();
  assert.ok(statements.length > 0);
  for (const statement of statements) {
    const actions = [statement.Action].flat();
    for (const action of actions) assert.doesNotMatch(action, /\*/, `wildcard action ${action}`);
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

test("DynamoDB actions are scoped to the table and its index ARNs only", () => {
  const dynamo = allStatements().filter((s) => [s.Action].flat().some((a) => a.startsWith("dynamodb:")));
  assert.equal(dynamo.length, 1);
  const resources = JSON.stringify(dynamo[0].Resource);
  assert.match(resources, /"Fn::GetAtt":\["ReleasesTable","Arn"\]/);
  assert.match(resources, /\/index\/GSI1/);
  assert.match(resources, /\/index\/GSI2/);
  assert.ok(!(dynamo[0].Action as string[]).includes("dynamodb:Scan"), "listings use the indexes, never Scan");
});

test("eks:DescribeCluster on the registry's own-account clusters, sts:AssumeRole on its roles", () => {
  const statements = allStatements();
  const eks = statements.filter((s) => [s.Action].flat().includes("eks:DescribeCluster"));
  assert.equal(eks.length, 1);
  const arns = JSON.stringify(eks[0].Resource);
  assert.match(arns, /:eks:eu-west-1:\$\{AWS::AccountId\}:cluster\/prod-eu"/);
  assert.match(arns, /:eks:us-east-1:\$\{AWS::AccountId\}:cluster\/prod-us"/);
  assert.doesNotMatch(arns, /partner/, "a cluster reached through its role is described as that role");
  const sts = statements.filter((s) => [s.Action].flat().includes("sts:AssumeRole"));
  assert.deepEqual(
    sts.map((s) => [s.Resource].flat()),
    [["arn:aws:iam::111122223333:role/helm-status-reader"]],
  );
});

test("the function runs on nodejs24.x with the registry and table in its environment", () => {
  const [[, fn]] = resourcesOfType("AWS::Lambda::Function");
  assert.equal(fn.Properties.Runtime, "nodejs24.x");
  assert.equal(fn.Properties.Handler, "functions/api/handler.handler");
  const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
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

test("access entries: one per in-region, own-account cluster with an access block and cluster-reading role", () => {
  const entries = resourcesOfType("AWS::EKS::AccessEntry");
  assert.deepEqual(
    entries.map(([id]) => id),
    ["EksAccessProdEuApi"],
    "prod-us is in another region, legacy is on aws-auth, partner is reached through its own role",
  );
  const [[, entry]] = entries;
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

test("every HTTP API route requires IAM authorization", () => {
  const routes = resourcesOfType("AWS::ApiGatewayV2::Route");
  assert.equal(routes.length, 9);
  for (const [, route] of routes)
    assert.equal(route.Properties.AuthorizationType, "AWS_IAM", String(route.Properties.RouteKey));
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
  // The generated API client of @kubernetes/client-node is dropped (only KubeConfig is used).
  assert.doesNotMatch(code.stdout, /CoreV1Api/);
});
