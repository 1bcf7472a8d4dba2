/**
 * Private EKS endpoints: with `vpc` in the stage settings (infra/settings.cjs),
 * the functions that read clusters run in those subnets and security groups,
 * and (with `vpc.endpoints`) the stack creates the VPC endpoints they then need,
 * because a function in a VPC has no route to AWS's public endpoints:
 *   sts       interface  cross-account AssumeRole and the SDK's credential calls
 *   eks       interface  eks:DescribeCluster (Kubernetes API traffic goes to the cluster endpoint itself)
 *   sqs       interface  SendMessage from the functions (the SQS event source polls from outside the VPC)
 *   ssm       interface  GetParameter for Slack/Teams secrets (a function in a VPC that reads them)
 *   logs      interface  Logs Insights on the clusters' audit logs (who changed it, docs/who.md: the sync worker)
 *   dynamodb  gateway    the releases table, through the route tables (no security group)
 * The endpoints' own security group admits HTTPS from the functions' security groups only.
 * Functions that do not read clusters (chatops webhook) stay out of the VPC: `vpc: ~`.
 */
const { loadSettings } = require("./settings.cjs");

const ENDPOINT_IDS = {
  sts: "StsEndpoint",
  eks: "EksEndpoint",
  sqs: "SqsEndpoint",
  ssm: "SsmEndpoint",
  logs: "LogsEndpoint",
};

/** The function-level `vpc` of a cluster-reading function: the settings' subnets and groups, or null (no VPC). */
function functionVpc(settings) {
  if (!settings.vpc) return null;
  return { subnetIds: settings.vpc.subnetIds, securityGroupIds: settings.vpc.securityGroupIds };
}

/** { Resources, Outputs } of the endpoints, empty without `vpc.endpoints`. */
function buildEndpoints(settings) {
  const endpoints = settings.vpc?.endpoints;
  if (!endpoints) return {};
  const Resources = {
    VpcEndpointSecurityGroup: {
      Type: "AWS::EC2::SecurityGroup",
      Properties: {
        GroupDescription: "helm-status-lambda VPC endpoints: HTTPS from the functions only",
        VpcId: endpoints.vpcId,
        SecurityGroupIngress: settings.vpc.securityGroupIds.map((group) => ({
          IpProtocol: "tcp",
          FromPort: 443,
          ToPort: 443,
          SourceSecurityGroupId: group,
          Description: "HTTPS from a function security group",
        })),
        // No egress is needed by an interface endpoint; one rule to nowhere replaces the default allow-all.
        SecurityGroupEgress: [
          { IpProtocol: "icmp", FromPort: 252, ToPort: 86, CidrIp: "255.255.255.255/32", Description: "none" },
        ],
      },
    },
  };
  for (const service of endpoints.services) {
    Resources[ENDPOINT_IDS[service]] = {
      Type: "AWS::EC2::VPCEndpoint",
      Properties: {
        VpcEndpointType: "Interface",
        ServiceName: { "Fn::Sub": `com.amazonaws.\${AWS::Region}.${service}` },
        VpcId: endpoints.vpcId,
        SubnetIds: settings.vpc.subnetIds,
        SecurityGroupIds: [{ Ref: "VpcEndpointSecurityGroup" }],
        // The SDK's default hostnames (sts.<region>.amazonaws.com, ...) resolve to the endpoint inside the VPC.
        PrivateDnsEnabled: true,
      },
    };
  }
  if (endpoints.routeTableIds.length > 0) {
    Resources.DynamodbEndpoint = {
      Type: "AWS::EC2::VPCEndpoint",
      Properties: {
        VpcEndpointType: "Gateway",
        ServiceName: { "Fn::Sub": "com.amazonaws.${AWS::Region}.dynamodb" },
        VpcId: endpoints.vpcId,
        RouteTableIds: endpoints.routeTableIds,
      },
    };
  }
  return { Resources };
}

async function stageSettings(resolveConfigurationProperty) {
  return loadSettings(await resolveConfigurationProperty(["provider", "stage"]));
}

module.exports = {
  /** `vpc: ${file(./infra/network.cjs):clusterVpc}` on each function that reads clusters. */
  clusterVpc: async ({ resolveConfigurationProperty }) =>
    functionVpc(await stageSettings(resolveConfigurationProperty)),
  /** `${file(./infra/network.cjs):resources}` in resources. */
  resources: async ({ resolveConfigurationProperty }) =>
    buildEndpoints(await stageSettings(resolveConfigurationProperty)),
  functionVpc,
  buildEndpoints,
};
