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
  });
  return entries;
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
module.exports.clusterStatements = clusterStatements;
