/**
 * The infra/ generators (CommonJS, because osls `require`s variable files),
 * loaded with typed signatures for the fast unit tests.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export type Json = Record<string, unknown>;
export interface Settings {
  vpc: { subnetIds: string[]; securityGroupIds: string[]; endpoints: Json | null } | null;
  alarms: {
    topicArn: string | null;
    statusP99Ms: number;
    auditLagMinutes: number;
    auditLagSeconds: number;
    chatopsAckP99Ms: number;
  };
  secrets: { slackSigningSecret: string; teamsSecret: string; kmsKeyArn: string | null };
}
export interface Template {
  Resources: Record<string, { Type: string; Properties: Json; DependsOn?: unknown; Condition?: string }>;
  Outputs?: Record<string, Json>;
}
export interface RoleInput {
  service: string;
  stage: string;
  region: string;
  functions: Record<string, Json>;
  access: Record<string, Json> | undefined;
  providerVpc?: unknown;
  registry: Json[];
  settings: Settings;
}

export const roles = require("../../infra/roles.cjs") as { buildRoles(input: RoleInput): Template };
export const settings = require("../../infra/settings.cjs") as {
  validateSettings(document: unknown, source: string, stage: string): Settings;
  loadSettings(stage: string, env?: Record<string, string>): Settings;
};

export interface AccessEntriesInput {
  service: string;
  stage: string;
  region: string;
  access: Record<string, Json> | undefined;
  registry: Json[];
}
export const clusters = require("../../infra/clusters.cjs") as {
  validateAccess(access: unknown, where: string): Json;
};
export const eksAccess = require("../../infra/eks-access.cjs") as {
  buildAccessEntries(input: AccessEntriesInput): Template & { notCovered: { cluster: string; reason: string }[] };
  manualCommands(cluster: Json, roleArn: string, key?: string): string[];
};

export interface MonitoringInput {
  template: Template;
  functions: { key: string; logicalId: string }[];
  definitions: Record<string, Json> | undefined;
  settings: Settings["alarms"];
  service: string;
  stage: string;
  log?: (message: string) => void;
}
export const monitoring = require("../../infra/monitoring.cjs") as {
  buildMonitoring(input: MonitoringInput): Template;
};
export const network = require("../../infra/network.cjs") as {
  functionVpc(settings: Settings): Json | null;
  buildEndpoints(settings: Settings): Template | Record<string, never>;
};
export const checks = require("../../infra/checks.cjs") as { checkOperations(template: Template): string[] };
