/**
 * Deploy-time view of the cluster registry for serverless.yml, so the Lambda's
 * IAM policy names exactly the clusters and roles the registry lists (least
 * privilege) and the function gets the same registry as its CLUSTERS variable.
 *
 * Source, first found: the CLUSTERS variable (inline JSON/YAML), the file named
 * by CLUSTERS_FILE, else infra/clusters.yml. CommonJS because osls `require`s
 * variable files; the runtime (shared/clusters/registry.ts) re-validates fully
 * at cold start, this only checks what the IAM resources are built from.
 */
const { readFileSync } = require("node:fs");
const path = require("node:path");
const { parse } = require("yaml");

const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const ROLE_ARN = /^arn:aws(-cn|-us-gov|-iso|-iso-[a-z])?:iam::\d{12}:role\/([\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;
/** Kubernetes namespace and group names (DNS-1123 label; groups are free-form but kept simple). */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const GROUP = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,62}$/;
/**
 * The read-only EKS access policies a registry entry may name. AmazonEKSViewPolicy
 * excludes Secrets, RBAC objects and custom resources (they come back 403 and show
 * as "forbidden" in MISSING); AmazonEKSAdminViewPolicy reads everything, Secrets
 * included. Write policies (Edit, Admin, ClusterAdmin) are refused.
 */
const ACCESS_POLICIES = ["AmazonEKSViewPolicy", "AmazonEKSAdminViewPolicy"];

function loadRegistry() {
  const env = process.env;
  let text;
  let source;
  if (env.CLUSTERS?.trim()) {
    text = env.CLUSTERS;
    source = "CLUSTERS";
  } else {
    const file = env.CLUSTERS_FILE?.trim() || path.join(__dirname, "clusters.yml");
    text = readFileSync(file, "utf8");
    source = file;
  }
  const entries = parse(text) ?? [];
  if (!Array.isArray(entries)) throw new Error(`${source}: the cluster registry must be a list`);
  entries.forEach((entry, index) => {
    const where = `${source}: entry ${index}`;
    if (!CLUSTER_NAME.test(String(entry?.name))) throw new Error(`${where}: bad or missing "name"`);
    if (!REGION.test(String(entry.region))) throw new Error(`${where} ("${entry.name}"): bad or missing "region"`);
    if (entry.roleArn !== undefined && !ROLE_ARN.test(String(entry.roleArn))) {
      throw new Error(`${where} ("${entry.name}"): "roleArn" is not an IAM role ARN`);
    }
    if (entry.access !== undefined) entry.access = validateAccess(entry.access, `${where} ("${entry.name}"): access`);
  });
  return entries;
}

/**
 * A cluster's `access` (deploy time only; the runtime ignores it):
 *   access: aws-auth                  the cluster is on the aws-auth ConfigMap: map the roles by hand (docs/deploy.md)
 *   access:                           EKS access entries for every function role with `clusters: read`
 *     policies:
 *       - policy: AmazonEKSViewPolicy
 *         namespaces: [apps]          namespace scope; omitted = the whole cluster
 *     groups: [helm-status-readers]   Kubernetes groups bound by infra/rbac/*.yml (e.g. get on Secrets)
 * Returns {mode: "aws-auth"} or {mode: "access-entry", policies: [{arn, namespaces}], groups}.
 */
function validateAccess(access, where) {
  if (access === "aws-auth") return { mode: "aws-auth" };
  if (access === null || typeof access !== "object" || Array.isArray(access)) {
    throw new Error(`${where}: expected "aws-auth" or {policies, groups}`);
  }
  for (const key of Object.keys(access)) {
    if (!["policies", "groups"].includes(key)) throw new Error(`${where}.${key}: unknown field (policies, groups)`);
  }
  const policies = access.policies ?? [];
  const groups = access.groups ?? [];
  if (!Array.isArray(policies) || !Array.isArray(groups)) throw new Error(`${where}: policies and groups are lists`);
  if (policies.length === 0 && groups.length === 0) {
    throw new Error(`${where}: name at least one access policy or Kubernetes group, or the entry grants nothing`);
  }
  const seen = new Set();
  const normalized = policies.map((item, index) => {
    const at = `${where}.policies[${index}]`;
    if (!ACCESS_POLICIES.includes(item?.policy)) {
      throw new Error(
        `${at}.policy: ${JSON.stringify(item?.policy)} is not a read-only access policy (${ACCESS_POLICIES.join(", ")})`,
      );
    }
    if (seen.has(item.policy)) throw new Error(`${at}: ${item.policy} is listed twice (EKS associates a policy once)`);
    seen.add(item.policy);
    const namespaces = item.namespaces;
    if (
      namespaces !== undefined &&
      (!Array.isArray(namespaces) || namespaces.length === 0 || namespaces.some((n) => !NAMESPACE.test(String(n))))
    ) {
      throw new Error(`${at}.namespaces: expected a non-empty list of namespace names (omit it for cluster scope)`);
    }
    return { policy: item.policy, namespaces: namespaces ? [...new Set(namespaces.map(String))] : undefined };
  });
  groups.forEach((group, index) => {
    if (!GROUP.test(String(group)) || /^(system:|eks:|aws:|amazon:|iam:)/.test(String(group))) {
      throw new Error(`${where}.groups[${index}]: ${JSON.stringify(group)} is not a usable Kubernetes group name`);
    }
  });
  return { mode: "access-entry", policies: normalized, groups: groups.map(String) };
}

/**
 * Clusters reached with the Lambda's own role need eks:DescribeCluster on their
 * ARN; clusters with a roleArn are described *as that role* (the connector
 * assumes it first), so for them the Lambda only needs sts:AssumeRole.
 */
function clusterStatements(entries) {
  const statements = [];
  const direct = entries.filter((entry) => !entry.roleArn);
  if (direct.length > 0) {
    statements.push({
      Sid: "DescribeRegistryClusters",
      Effect: "Allow",
      Action: ["eks:DescribeCluster"],
      Resource: direct.map((entry) => ({
        "Fn::Sub": `arn:\${AWS::Partition}:eks:${entry.region}:\${AWS::AccountId}:cluster/${entry.name}`,
      })),
    });
  }
  const roles = [...new Set(entries.map((entry) => entry.roleArn).filter(Boolean))];
  if (roles.length > 0) {
    statements.push({ Sid: "AssumeClusterRoles", Effect: "Allow", Action: ["sts:AssumeRole"], Resource: roles });
  }
  return statements;
}

/**
 * Who changed it (docs/who.md): Logs Insights on each registry cluster's EKS control-plane log group,
 * `/aws/eks/<cluster>/cluster`, and no other. StartQuery reads a log group (the only action that chooses what is
 * read) and is scoped to them; GetQueryResults and StopQuery name only a query id (StartQuery's answer, a random
 * id), not a log group, so they are on `*`: they can fetch or cancel a query already started, nothing else.
 * A cluster with a roleArn is read *as that role* (the lookup assumes it, like the connector): its account
 * grants the same on its log group (docs/deploy.md), and here only sts:AssumeRole (from `clusters: read`).
 */
function auditLogStatements(entries) {
  const direct = entries.filter((entry) => !entry.roleArn);
  if (direct.length === 0) return [];
  const group = (entry) =>
    `arn:\${AWS::Partition}:logs:${entry.region}:\${AWS::AccountId}:log-group:/aws/eks/${entry.name}/cluster`;
  return [
    {
      Sid: "QueryClusterAuditLogs",
      Effect: "Allow",
      Action: ["logs:StartQuery"],
      Resource: direct.flatMap((entry) => [{ "Fn::Sub": group(entry) }, { "Fn::Sub": `${group(entry)}:*` }]),
    },
    {
      Sid: "AuditLogQueryResults",
      Effect: "Allow",
      Action: ["logs:GetQueryResults", "logs:StopQuery"],
      Resource: ["*"],
    },
  ];
}

module.exports = () => {
  const entries = loadRegistry();
  return {
    // The runtime registry: endpoints overrides are for local runs and are not deployed.
    clustersJson: JSON.stringify(
      entries.map(({ name, region, roleArn, externalId }) => ({ name, region, roleArn, externalId })),
    ),
  };
};
module.exports.loadRegistry = loadRegistry;
module.exports.auditLogStatements = auditLogStatements;
module.exports.validateAccess = validateAccess;
module.exports.ACCESS_POLICIES = ACCESS_POLICIES;
module.exports.clusterStatements = clusterStatements;
