/**
 * EKS access entries from the registry: for every cluster whose entry has an
 * `access` block, one AWS::EKS::AccessEntry per function role that reads
 * clusters (`clusters: read` in custom.access), with the access policies and
 * Kubernetes groups the registry names. See infra/clusters.cjs validateAccess.
 *
 * CloudFormation creates access entries in the stack's own account and region
 * only, so clusters in another region, or reached through a `roleArn` (the
 * principal EKS sees is then that role, in its own account), are not covered:
 * `node infra/eks-access.cjs` prints the AWS CLI / eksctl commands for them and
 * for `access: aws-auth` clusters.
 */
const { loadRegistry } = require("./clusters.cjs");
const { pascal, roleLogicalId } = require("./naming.cjs");

const POLICY_PREFIX = "arn:${AWS::Partition}:eks::aws:cluster-access-policy/";

/** The function keys whose roles read clusters. */
function clusterReaders(access) {
  return Object.entries(access ?? {})
    .filter(([, grants]) => grants?.clusters === "read")
    .map(([key]) => key);
}

/** Why this stack cannot create the cluster's access entries, or undefined when it can. */
function notCoveredReason(cluster, region) {
  if (cluster.access?.mode !== "access-entry") return undefined;
  if (cluster.roleArn) return `reached through ${cluster.roleArn}: the entry names that role, in its account`;
  if (cluster.region !== region) return `in ${cluster.region}: access entries are regional, this stack is in ${region}`;
  return undefined;
}

/** { Resources, Outputs } plus `notCovered` (clusters needing a manual step, with the reason). */
function buildAccessEntries({ service, stage, region, access, registry }) {
  const readers = clusterReaders(access);
  const Resources = {};
  const notCovered = [];
  for (const cluster of registry) {
    if (!cluster.access) continue;
    const reason = cluster.access.mode === "aws-auth" ? "on the aws-auth ConfigMap" : notCoveredReason(cluster, region);
    if (reason) {
      notCovered.push({ cluster: cluster.name, reason });
      continue;
    }
    for (const key of readers) {
      const id = `EksAccess${pascal(cluster.name)}${pascal(key)}`;
      if (Resources[id]) throw new Error(`eks access entries: clusters ${cluster.name} and another map to ${id}`);
      Resources[id] = {
        Type: "AWS::EKS::AccessEntry",
        Properties: {
          ClusterName: cluster.name,
          PrincipalArn: { "Fn::GetAtt": [roleLogicalId(key), "Arn"] },
          Type: "STANDARD",
          ...(cluster.access.groups.length > 0 ? { KubernetesGroups: cluster.access.groups } : {}),
          AccessPolicies: cluster.access.policies.map(({ policy, namespaces }) => ({
            PolicyArn: { "Fn::Sub": `${POLICY_PREFIX}${policy}` },
            AccessScope: namespaces ? { Type: "namespace", Namespaces: namespaces } : { Type: "cluster" },
          })),
          Tags: [
            { Key: "service", Value: service },
            { Key: "stage", Value: stage },
            { Key: "function", Value: key },
          ],
        },
      };
    }
  }
  return { Resources, notCovered };
}

/**
 * The shell commands that give `roleArn` (the role of function `key`) read access on a cluster this
 * stack does not cover. aws-auth clusters also need infra/rbac/helm-status-reader.yml applied once.
 */
function manualCommands(cluster, roleArn, key = "reader") {
  const at = `--cluster-name ${cluster.name} --region ${cluster.region}`;
  if (cluster.access.mode === "aws-auth") {
    // One username per function, so the cluster's audit log tells them apart.
    return [
      `eksctl create iamidentitymapping --cluster ${cluster.name} --region ${cluster.region} --arn ${roleArn} --username helm-status-${key} --group helm-status-readers`,
    ];
  }
  const principal = cluster.roleArn ?? roleArn;
  const groups = cluster.access.groups.length > 0 ? ` --kubernetes-groups ${cluster.access.groups.join(" ")}` : "";
  return [
    `aws eks create-access-entry ${at} --principal-arn ${principal} --type STANDARD${groups}`,
    ...cluster.access.policies.map(
      ({ policy, namespaces }) =>
        `aws eks associate-access-policy ${at} --principal-arn ${principal} --policy-arn arn:aws:eks::aws:cluster-access-policy/${policy} --access-scope ${namespaces ? `type=namespace,namespaces=${namespaces.join(",")}` : "type=cluster"}`,
    ),
  ];
}

/** osls entry point: `${file(./infra/eks-access.cjs):resources}`. */
module.exports = async ({ resolveConfigurationProperty }) => {
  const [service, stage, region, access] = await Promise.all([
    resolveConfigurationProperty(["service"]),
    resolveConfigurationProperty(["provider", "stage"]),
    resolveConfigurationProperty(["provider", "region"]),
    resolveConfigurationProperty(["custom", "access"]),
  ]);
  const { Resources, notCovered } = buildAccessEntries({ service, stage, region, access, registry: loadRegistry() });
  for (const { cluster, reason } of notCovered) {
    console.warn(`EKS access for cluster ${cluster} is a manual step (${reason}): node infra/eks-access.cjs`);
  }
  // An empty Resources section is invalid CloudFormation; osls merges this fragment into the stack's.
  return { resources: Object.keys(Resources).length > 0 ? { Resources } : {} };
};
module.exports.buildAccessEntries = buildAccessEntries;
module.exports.manualCommands = manualCommands;

if (require.main === module) {
  // `node infra/eks-access.cjs [stage] [region]`: the manual steps, with the role ARNs the stack will create.
  const [stage = "dev", region = process.env.AWS_REGION ?? "eu-west-1"] = process.argv.slice(2);
  const account = process.env.AWS_ACCOUNT_ID ?? "<ACCOUNT_ID>";
  const { parse } = require("yaml");
  const { readFileSync } = require("node:fs");
  const config = parse(readFileSync(require("node:path").join(__dirname, "..", "serverless.yml"), "utf8"), {
    customTags: ["!Ref", "!GetAtt", "!Sub", "!Join"].map((tag) => ({ tag, resolve: (value) => value })),
    logLevel: "silent",
  });
  const service = config.service;
  const registry = loadRegistry();
  const { notCovered } = buildAccessEntries({ service, stage, region, access: config.custom.access, registry });
  if (notCovered.length === 0) console.log("# every cluster with an access block is covered by the stack");
  for (const { cluster: name, reason } of notCovered) {
    const cluster = registry.find((entry) => entry.name === name);
    console.log(`\n# ${name}: ${reason}`);
    if (cluster.roleArn) {
      for (const command of manualCommands(cluster, cluster.roleArn)) console.log(command);
      continue;
    }
    if (cluster.access.mode === "aws-auth") {
      console.log("kubectl apply -f infra/rbac/helm-status-reader.yml   # once, as a cluster admin");
    }
    for (const key of clusterReaders(config.custom.access)) {
      const roleArn = `arn:aws:iam::${account}:role/${service}-${stage}-${region}-${key}`;
      console.log(`# role of the ${key} function`);
      for (const command of manualCommands(cluster, roleArn, key)) console.log(command);
    }
  }
}
