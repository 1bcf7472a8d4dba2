/**
 * One least-privilege IAM role per function, generated from `custom.access` in
 * serverless.yml. Every function must have an entry there and `role: <Key>Role`
 * (e.g. `api` -> `ApiRole`); packaging fails otherwise, so a new function cannot
 * silently fall back to a shared default role.
 *
 * What an entry may grant (nothing else; no wildcard action is expressible):
 *   dynamodb: { ReleasesTable: [GetItem, Query, ...] }   item actions on the table and its indexes
 *   sqs: { send: [AuditQueue], consume: [AuditQueue] }   queues by logical id (consume is also
 *                                                        derived from the function's sqs events)
 *   ssm: [slackSigningSecret, /other/name]               SSM parameters: a key of the stage's `secrets`
 *                                                        settings (infra/settings.cjs) or a literal name
 *   clusters: read                                       eks:DescribeCluster on the registry's clusters,
 *                                                        sts:AssumeRole on its roles, EKS access entries,
 *                                                        and the CLUSTER# items of the releases table
 *                                                        (DescribeCluster's answers kept: GetItem, PutItem)
 *   auditLogs: read                                      Logs Insights on the registry's clusters' EKS log
 *                                                        groups (who changed it: docs/who.md)
 *   attributions: enqueue                                GetItem, BatchGetItem, Query and PutItem on the
 *                                                        releases table's WHO# items only (a function that
 *                                                        writes no release enqueues writes to attribute and
 *                                                        reads a release's attributions)
 * Always added: CreateLogStream/PutLogEvents on the function's own log group, and
 * AWSLambdaVPCAccessExecutionRole when the function runs in a VPC.
 */
const { loadRegistry, clusterStatements, auditLogStatements } = require("./clusters.cjs");
const { functionName, pascal, roleLogicalId, stackArn } = require("./naming.cjs");
const { loadSettings } = require("./settings.cjs");

/** DynamoDB item-level actions a function may be granted (table-level and admin actions are not grantable). */
const DYNAMODB_ITEM_ACTIONS = [
  "GetItem",
  "BatchGetItem",
  "Query",
  "PutItem",
  "UpdateItem",
  "DeleteItem",
  "BatchWriteItem",
  "ConditionCheckItem",
];
/** The indexes of each table this stack defines (shared/store/table-schema.ts, shared/snapshots/table-schema.ts). */
const TABLE_INDEXES = { ReleasesTable: ["GSI1", "GSI2"], SnapshotsTable: ["FLEET"] };
/** What Lambda's SQS event source mapping needs on its queue. */
const SQS_CONSUME = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"];
const SQS_SEND = ["sqs:SendMessage", "sqs:GetQueueAttributes"];
const VPC_POLICY = { "Fn::Sub": `arn:\${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole` };
const GRANTS = ["dynamodb", "sqs", "ssm", "clusters", "auditLogs", "attributions"];
/**
 * Part of `clusters: read`: DescribeCluster's answers kept in the releases table (shared/eks/facts-store.ts), so a
 * cold start does not ask EKS again; its CLUSTER#<name> items only (a function without writes on the table, the
 * audit worker, may write these and nothing else of it).
 */
const CLUSTER_FACTS_STATEMENT = {
  Sid: "ClusterFactsItems",
  Effect: "Allow",
  Action: ["dynamodb:GetItem", "dynamodb:PutItem"],
  Resource: [{ "Fn::GetAtt": ["ReleasesTable", "Arn"] }],
  Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["CLUSTER#*"] } },
};
/**
 * `attributions: enqueue` (docs/who.md): the audit worker enqueues the drift writes it sees (shared/who/
 * dynamodb-attribution-store.ts `enqueue`: a BatchGetItem of the kept ones, a conditional PutItem of each new one)
 * and its change notifications name who preceded the change (shared/audit/change-events.ts: `forRelease`, a Query,
 * and `clusterLogging`, a GetItem); its WHO# items only, so a function with no other write on the releases table
 * cannot overwrite a release.
 */
const ATTRIBUTION_QUEUE_STATEMENT = {
  Sid: "AttributionQueueItems",
  Effect: "Allow",
  Action: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem"],
  Resource: [{ "Fn::GetAtt": ["ReleasesTable", "Arn"] }],
  Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["WHO#*"] } },
};

/** The logical id an sqs event names: `arn: !GetAtt Queue.Arn` (object or string form). */
function queueOfEvent(event) {
  const arn = typeof event.sqs === "string" ? event.sqs : event.sqs?.arn;
  const getAtt = arn?.["Fn::GetAtt"];
  if (Array.isArray(getAtt)) return getAtt[0];
  if (typeof getAtt === "string") return getAtt.split(".")[0];
  return undefined;
}

function runsInVpc(definition, providerVpc) {
  if (definition.vpc === null || definition.vpc === false) return false;
  return Boolean(definition.vpc ?? providerVpc);
}

/**
 * The roles as CloudFormation: { Resources, Outputs }. `functions` and `access`
 * are the resolved serverless.yml sections. Throws one error listing every problem.
 */
function buildRoles({ service, stage, region, functions, access, providerVpc, registry, settings }) {
  const problems = [];
  const Resources = {};
  const Outputs = {};
  access = access ?? {};
  for (const key of Object.keys(access)) {
    if (!functions[key]) problems.push(`custom.access.${key}: no function "${key}" in serverless.yml`);
  }
  for (const [key, definition] of Object.entries(functions)) {
    const roleId = roleLogicalId(key);
    const where = `functions.${key}`;
    if (definition.role !== roleId) {
      problems.push(`${where}.role: must be ${roleId} (its own role from infra/roles.cjs), got ${definition.role}`);
    }
    const grants = access[key];
    if (!grants || typeof grants !== "object") {
      problems.push(`custom.access.${key}: missing (every function declares what it may touch)`);
      continue;
    }
    for (const grant of Object.keys(grants)) {
      if (!GRANTS.includes(grant)) problems.push(`custom.access.${key}.${grant}: unknown grant (${GRANTS.join(", ")})`);
    }
    for (const event of definition.events ?? []) {
      // EventBridge Scheduler invokes through a role of its own, which these per-function roles do not provide.
      if (event.schedule?.method === "scheduler") {
        problems.push(`${where}.events: schedule method "scheduler" needs a scheduler role; use the default eventBus`);
      }
    }
    const name = functionName(service, stage, key, definition);
    const statements = [
      {
        Sid: "OwnLogGroup",
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: [stackArn("logs", `log-group:/aws/lambda/${name}:*`)],
      },
      ...dynamodbStatements(grants.dynamodb, `custom.access.${key}.dynamodb`, problems),
      ...sqsStatements(grants.sqs, definition.events ?? [], `custom.access.${key}.sqs`, problems),
      ...ssmStatements(grants.ssm, settings, `custom.access.${key}.ssm`, problems),
    ];
    if (grants.clusters !== undefined) {
      if (grants.clusters !== "read") problems.push(`custom.access.${key}.clusters: the only grant is "read"`);
      else statements.push(...clusterStatements(registry), CLUSTER_FACTS_STATEMENT);
    }
    if (grants.auditLogs !== undefined) {
      if (grants.auditLogs !== "read") problems.push(`custom.access.${key}.auditLogs: the only grant is "read"`);
      else statements.push(...auditLogStatements(registry));
    }
    if (grants.attributions !== undefined) {
      if (grants.attributions !== "enqueue") {
        problems.push(`custom.access.${key}.attributions: the only grant is "enqueue"`);
      } else statements.push(ATTRIBUTION_QUEUE_STATEMENT);
    }
    const roleName = `${service}-${stage}-${region}-${key}`;
    if (roleName.length > 64) problems.push(`${where}: role name ${roleName} is over IAM's 64 characters`);
    Resources[roleId] = {
      Type: "AWS::IAM::Role",
      Properties: {
        // A fixed, path-less name: aws-auth mappings and cross-account trust policies can name it before deploy.
        RoleName: roleName,
        Description: `helm-status-lambda ${stage}: the ${key} function only`,
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: ["sts:AssumeRole"] }],
        },
        ...(runsInVpc(definition, providerVpc) ? { ManagedPolicyArns: [VPC_POLICY] } : {}),
        Policies: [
          { PolicyName: `${key}-least-privilege`, PolicyDocument: { Version: "2012-10-17", Statement: statements } },
        ],
      },
    };
    Outputs[`${pascal(key)}RoleArn`] = {
      Description: `IAM role of the ${key} function (access entries, aws-auth, cross-account trust)`,
      Value: { "Fn::GetAtt": [roleId, "Arn"] },
    };
  }
  if (problems.length > 0) throw new Error(`per-function roles (infra/roles.cjs):\n  ${problems.join("\n  ")}`);
  return { Resources, Outputs };
}

function dynamodbStatements(tables, where, problems) {
  if (tables === undefined) return [];
  return Object.entries(tables).map(([table, actions]) => {
    const bad = [actions].flat().filter((action) => !DYNAMODB_ITEM_ACTIONS.includes(action));
    if (!Array.isArray(actions) || actions.length === 0 || bad.length > 0) {
      problems.push(`${where}.${table}: expected item actions from ${DYNAMODB_ITEM_ACTIONS.join(", ")}`);
    }
    const tableArn = { "Fn::GetAtt": [table, "Arn"] };
    // Indexes are named when known; a table defined elsewhere gets its own indexes only (still under its ARN).
    const indexes = TABLE_INDEXES[table] ?? ["*"];
    return {
      Sid: `${table}Items`,
      Effect: "Allow",
      Action: [actions].flat().map((action) => `dynamodb:${action}`),
      Resource: [tableArn, ...indexes.map((index) => ({ "Fn::Join": ["", [tableArn, `/index/${index}`]] }))],
    };
  });
}

function sqsStatements(grant, events, where, problems) {
  grant = grant ?? {};
  for (const key of Object.keys(grant)) {
    if (!["send", "consume"].includes(key)) problems.push(`${where}.${key}: expected send or consume`);
  }
  const consumed = new Set([...(grant.consume ?? []), ...events.map(queueOfEvent).filter(Boolean)]);
  const sent = new Set(grant.send ?? []);
  const arns = (queues) => [...queues].map((queue) => ({ "Fn::GetAtt": [queue, "Arn"] }));
  const statements = [];
  if (consumed.size > 0)
    statements.push({ Sid: "ConsumeQueues", Effect: "Allow", Action: SQS_CONSUME, Resource: arns(consumed) });
  if (sent.size > 0) statements.push({ Sid: "SendToQueues", Effect: "Allow", Action: SQS_SEND, Resource: arns(sent) });
  return statements;
}

function ssmStatements(parameters, settings, where, problems) {
  if (parameters === undefined) return [];
  if (!Array.isArray(parameters) || parameters.length === 0) {
    problems.push(`${where}: expected a list of parameter names or secrets settings`);
    return [];
  }
  const names = parameters.map((parameter) => {
    if (String(parameter).startsWith("/")) return String(parameter);
    const name = settings.secrets[parameter];
    if (typeof name !== "string") problems.push(`${where}: "${parameter}" is not a secrets setting or a /name`);
    return name ?? "";
  });
  const statements = [
    {
      Sid: "ReadParameters",
      Effect: "Allow",
      Action: ["ssm:GetParameter", "ssm:GetParameters"],
      // A name that starts with / joins without a second slash ("parameter/a/b").
      Resource: names.map((name) => stackArn("ssm", `parameter/${name.replace(/^\//, "")}`)),
    },
  ];
  // SecureStrings under the AWS managed aws/ssm key need no IAM grant; a customer managed key does.
  if (settings.secrets.kmsKeyArn) {
    statements.push({
      Sid: "DecryptParameters",
      Effect: "Allow",
      Action: ["kms:Decrypt"],
      Resource: [settings.secrets.kmsKeyArn],
      Condition: { StringEquals: { "kms:ViaService": { "Fn::Sub": `ssm.\${AWS::Region}.amazonaws.com` } } },
    });
  }
  return statements;
}

/** osls entry point: `${file(./infra/roles.cjs):resources}`. */
module.exports = async ({ resolveConfigurationProperty }) => {
  const [service, stage, region, functions, access, providerVpc] = await Promise.all([
    resolveConfigurationProperty(["service"]),
    resolveConfigurationProperty(["provider", "stage"]),
    resolveConfigurationProperty(["provider", "region"]),
    resolveConfigurationProperty(["functions"]),
    resolveConfigurationProperty(["custom", "access"]),
    resolveConfigurationProperty(["provider", "vpc"]),
  ]);
  const resources = buildRoles({
    service,
    stage,
    region,
    functions: functions ?? {},
    access,
    providerVpc,
    registry: loadRegistry(),
    settings: loadSettings(stage),
  });
  return { resources };
};
module.exports.buildRoles = buildRoles;
module.exports.DYNAMODB_ITEM_ACTIONS = DYNAMODB_ITEM_ACTIONS;
