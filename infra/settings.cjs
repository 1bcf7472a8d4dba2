/**
 * Per-stage deploy settings: infra/stages/<stage>.yml if it exists (or the file
 * named by DEPLOY_SETTINGS_FILE), else defaults (no VPC, no alarm topic). Read by
 * the infra/ generators at `osls package`/`deploy` time; every problem is
 * reported at once, naming the file and the field.
 *
 *   vpc:                          # optional: run the cluster-reading functions in a VPC (private EKS endpoints)
 *     subnetIds: [subnet-0a1b2c3d, subnet-0e4f5a6b]
 *     securityGroupIds: [sg-0123abcd]
 *     endpoints:                  # optional: create the VPC endpoints those functions then need
 *       vpcId: vpc-0123abcd
 *       routeTableIds: [rtb-0123abcd]   # the DynamoDB gateway endpoint's route tables
 *       services: [sts, eks, sqs, ssm, logs]  # interface endpoints (default: all five)
 *   alarms:
 *     topicArn: arn:aws:sns:eu-west-1:123456789012:oncall   # optional: alarm and OK actions
 *     statusP99Ms: 10000          # status route p99 latency threshold
 *     auditLagMinutes: 15         # time since the last completed audit run
 *     chatopsAckP99Ms: 2500       # Slack wants an acknowledgement within 3 s
 *     chatopsTeamsP99Ms: 4500     # Teams wants the answer itself within 5 s
 *   secrets:                      # SSM parameter names (SecureString); only the names reach the template
 *     slackSigningSecret: /helm-status/prod/slack-signing-secret
 *     teamsSecret: /helm-status/prod/teams-secret
 *     kmsKeyArn: arn:aws:kms:...  # only for a customer managed key (aws/ssm needs no IAM grant)
 */
const { existsSync, readFileSync } = require("node:fs");
const path = require("node:path");
const { parse } = require("yaml");

const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;
const VPC = /^vpc-[0-9a-f]{8,17}$/;
const ROUTE_TABLE = /^rtb-[0-9a-f]{8,17}$/;
const SNS_ARN = /^arn:aws(-[a-z-]+)?:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/;
const KMS_ARN = /^arn:aws(-[a-z-]+)?:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$/;
/** SSM parameter names: letters, digits, . - _ and / separators (a leading / is the usual hierarchy). */
const PARAMETER = /^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;
const INTERFACE_SERVICES = ["sts", "eks", "sqs", "ssm", "logs"];

const DEFAULT_ALARMS = { statusP99Ms: 10_000, auditLagMinutes: 15, chatopsAckP99Ms: 2_500, chatopsTeamsP99Ms: 4_500 };

function settingsFile(stage, env = process.env) {
  return env.DEPLOY_SETTINGS_FILE?.trim() || path.join(__dirname, "stages", `${stage}.yml`);
}

/** The settings of `stage` with defaults filled in. Throws one error listing every problem. */
function loadSettings(stage, env = process.env) {
  const file = settingsFile(stage, env);
  const explicit = Boolean(env.DEPLOY_SETTINGS_FILE?.trim());
  if (!existsSync(file)) {
    if (explicit) throw new Error(`DEPLOY_SETTINGS_FILE ${file}: no such file`);
    return validateSettings({}, `stage "${stage}" (no ${path.relative(process.cwd(), file)}, defaults)`, stage);
  }
  const document = parse(readFileSync(file, "utf8"), { uniqueKeys: true }) ?? {};
  return validateSettings(document, file, stage);
}

function validateSettings(document, source, stage) {
  const problems = [];
  const fail = (field, rule) => problems.push(`${field}: ${rule}`);
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  const unknownKeys = (value, allowed, where) => {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${where}${key}`, `unknown field`);
  };
  const ids = (value, pattern, field, min = 1) => {
    if (!Array.isArray(value) || value.length < min) {
      fail(field, `expected a list of at least ${min} id(s)`);
      return [];
    }
    value.forEach((id, index) => {
      if (!pattern.test(String(id))) fail(`${field}[${index}]`, `${JSON.stringify(id)} does not look like ${pattern}`);
    });
    return value.map(String);
  };

  if (!isObject(document)) {
    throw new Error(`${source}: expected a mapping with vpc, alarms, secrets`);
  }
  unknownKeys(document, ["vpc", "alarms", "secrets"], "");

  let vpc = null;
  if (document.vpc !== undefined && document.vpc !== null) {
    if (!isObject(document.vpc)) fail("vpc", "expected {subnetIds, securityGroupIds, endpoints?}");
    else {
      unknownKeys(document.vpc, ["subnetIds", "securityGroupIds", "endpoints"], "vpc.");
      vpc = {
        subnetIds: ids(document.vpc.subnetIds, SUBNET, "vpc.subnetIds"),
        securityGroupIds: ids(document.vpc.securityGroupIds, SECURITY_GROUP, "vpc.securityGroupIds"),
        endpoints: null,
      };
      const endpoints = document.vpc.endpoints;
      if (endpoints !== undefined && endpoints !== null) {
        if (!isObject(endpoints)) fail("vpc.endpoints", "expected {vpcId, routeTableIds, services?}");
        else {
          unknownKeys(endpoints, ["vpcId", "routeTableIds", "services"], "vpc.endpoints.");
          if (!VPC.test(String(endpoints.vpcId))) fail("vpc.endpoints.vpcId", "expected vpc-<hex>");
          const services = endpoints.services ?? INTERFACE_SERVICES;
          if (!Array.isArray(services) || services.some((s) => !INTERFACE_SERVICES.includes(s))) {
            fail("vpc.endpoints.services", `expected a list of ${INTERFACE_SERVICES.join(", ")}`);
          }
          vpc.endpoints = {
            vpcId: String(endpoints.vpcId),
            routeTableIds: ids(endpoints.routeTableIds ?? [], ROUTE_TABLE, "vpc.endpoints.routeTableIds", 0),
            services: Array.isArray(services) ? [...new Set(services)] : [],
          };
        }
      }
    }
  }

  const alarms = { ...DEFAULT_ALARMS, topicArn: null };
  if (document.alarms !== undefined && document.alarms !== null) {
    if (!isObject(document.alarms)) fail("alarms", "expected a mapping");
    else {
      unknownKeys(document.alarms, ["topicArn", ...Object.keys(DEFAULT_ALARMS)], "alarms.");
      const { topicArn } = document.alarms;
      if (topicArn !== undefined && topicArn !== null) {
        if (!SNS_ARN.test(String(topicArn))) fail("alarms.topicArn", "expected an SNS topic ARN");
        else alarms.topicArn = String(topicArn);
      }
      for (const key of Object.keys(DEFAULT_ALARMS)) {
        const value = document.alarms[key];
        if (value === undefined) continue;
        if (!Number.isFinite(value) || value <= 0) fail(`alarms.${key}`, "expected a positive number");
        else alarms[key] = value;
      }
    }
  }

  const secrets = {
    slackSigningSecret: `/helm-status/${stage}/slack-signing-secret`,
    teamsSecret: `/helm-status/${stage}/teams-secret`,
    kmsKeyArn: null,
  };
  if (document.secrets !== undefined && document.secrets !== null) {
    if (!isObject(document.secrets)) fail("secrets", "expected a mapping");
    else {
      unknownKeys(document.secrets, Object.keys(secrets), "secrets.");
      for (const key of ["slackSigningSecret", "teamsSecret"]) {
        const value = document.secrets[key];
        if (value === undefined) continue;
        if (!PARAMETER.test(String(value))) fail(`secrets.${key}`, "expected an SSM parameter name such as /a/b");
        else secrets[key] = String(value);
      }
      const { kmsKeyArn } = document.secrets;
      if (kmsKeyArn !== undefined && kmsKeyArn !== null) {
        if (!KMS_ARN.test(String(kmsKeyArn))) fail("secrets.kmsKeyArn", "expected a KMS key ARN (key/<uuid>)");
        else secrets.kmsKeyArn = String(kmsKeyArn);
      }
    }
  }

  if (problems.length > 0) throw new Error(`${source}:\n  ${problems.join("\n  ")}`);
  // CloudWatch compares the audit lag metric in seconds.
  alarms.auditLagSeconds = Math.round(alarms.auditLagMinutes * 60);
  return { vpc, alarms, secrets };
}

/** osls: `custom.settings: ${file(./infra/settings.cjs):forStage}` (the resolved settings of the stage). */
async function forStage({ resolveConfigurationProperty }) {
  return loadSettings(await resolveConfigurationProperty(["provider", "stage"]));
}

module.exports = { forStage, loadSettings, validateSettings, settingsFile, INTERFACE_SERVICES };
